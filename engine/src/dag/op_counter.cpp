#include "dag/op_counter.h"

#include <sstream>

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

std::string short_type_name(const Type &t) {
  if (t.is_bool()) return "bool";
  std::string prefix = t.is_float() ? "f" : t.is_uint() ? "u" : t.is_int() ? "i" : "h";
  std::string name = prefix + std::to_string(t.bits());
  if (t.lanes() > 1) name += "x" + std::to_string(t.lanes());
  return name;
}

namespace {

constexpr char kJoined[] = "hlsched_joined_values";  ///< joined_for_cse's wrapper

// Arithmetic instructions a math library call runs besides its one special-function-unit
// operation (CUDA's libdevice routines, which Halide's PTX back end calls, in their usual path,
// not counting rare slow paths). A "math" op is charged at the SFU rate, an eighth of the FP32
// rate on the H200: that is right for a bare reciprocal square root but charges pow, which
// takes its logarithm in extended precision, then the exponential, then the special cases, as
// if it were one instruction (camera_pipe's tone curve inlined into its output: 14.7 M pow calls
// predicted 3.5 us, the kernel measured 3x its prediction). Rounding calls are one instruction.
int64_t library_routine_ops(const std::string &name) {
  struct Routine {
    const char *prefix;
    int64_t ops;
  };
  static const Routine routines[] = {
      {"pow_", 55},  {"atan2_", 30}, {"atan_", 25}, {"asin_", 25}, {"acos_", 25}, {"tan_", 30},
      {"sinh_", 20}, {"cosh_", 20},  {"tanh_", 20}, {"asinh_", 30}, {"acosh_", 30}, {"atanh_", 30},
      {"sin_", 20},  {"cos_", 20},   {"log_", 18},  {"exp_", 7},   {"sqrt_", 7},
  };
  for (const Routine &r : routines)
    if (name.rfind(r.prefix, 0) == 0) return r.ops;
  return 0;
}

// Which subexpressions are the same at every point: built of constants and scalar parameters
// only (a buffer's bounds, a Param's arithmetic: `in.min.0 + in.extent.0 - 1` in a boundary
// condition's clamp). The compiler computes them once per kernel (loop-invariant code motion),
// not per point. Memoized per node, so one walk over a DAG of shared subexpressions is linear.
class PointInvariance : public IRGraphVisitor {
public:
  bool invariant(const Expr &e) {
    include(e);
    return !varies_.at(e.get());
  }

private:
  using IRGraphVisitor::visit;
  std::map<const IRNode *, bool> varies_;
  std::set<std::string> invariant_lets_;
  bool found_ = false;  ///< the node being walked depends on a point (a loop variable or a load)

  void include(const Expr &e) override {
    auto it = varies_.find(e.get());
    if (it != varies_.end()) {
      found_ = found_ || it->second;
      return;
    }
    const bool outer = found_;
    found_ = false;
    e.accept(this);
    varies_[e.get()] = found_;
    found_ = outer || found_;
  }
  void visit(const Variable *op) override {
    if (!op->param.defined() && !invariant_lets_.count(op->name)) found_ = true;
  }
  void visit(const Call *op) override {
    IRGraphVisitor::visit(op);
    if (op->call_type == Call::Halide || op->call_type == Call::Image || !op->is_pure()) found_ = true;
  }
  void visit(const Let *op) override {
    if (invariant(op->value)) invariant_lets_.insert(op->name);
    include(op->value);
    include(op->body);
  }
};

// Compiler hints that lower to no instruction.
bool is_hint(const Call *op) {
  return op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::likely_if_innermost) ||
         op->is_intrinsic(Call::promise_clamped) || op->is_intrinsic(Call::unsafe_promise_clamped);
}

class OperationCounter : public IRGraphVisitor {
public:
  OpCounts counts;

private:
  using IRGraphVisitor::visit;
  PointInvariance invariance_;

  // What is the same at every point is computed once per kernel: not counted per point.
  void include(const Expr &e) override {
    if (!e.as<Variable>() && !is_const(e) && invariance_.invariant(e)) return;
    IRGraphVisitor::include(e);
  }

  void count(const char *kind, const Type &t) { counts[std::string(kind) + "." + short_type_name(t)]++; }

  template <typename Node>
  void binary(const Node *op, const char *kind) {
    IRGraphVisitor::visit(op);
    count(kind, op->type);
  }
  template <typename Node>
  void compare(const Node *op) {
    IRGraphVisitor::visit(op);
    count("cmp", op->a.type());
  }

  void visit(const Add *op) override { binary(op, "add"); }
  void visit(const Sub *op) override { binary(op, "sub"); }
  void visit(const Mul *op) override { binary(op, "mul"); }
  // An integer division by a constant compiles to a multiply and shifts; by a variable, to a
  // routine of a few dozen instructions (arithmetic_ops_of weighs them).
  void visit(const Div *op) override { binary(op, op->type.is_float() || !is_const(op->b) ? "div" : "divc"); }
  void visit(const Mod *op) override { binary(op, op->type.is_float() || !is_const(op->b) ? "mod" : "modc"); }
  void visit(const Min *op) override { binary(op, "min"); }
  void visit(const Max *op) override { binary(op, "max"); }
  void visit(const EQ *op) override { compare(op); }
  void visit(const NE *op) override { compare(op); }
  void visit(const LT *op) override { compare(op); }
  void visit(const LE *op) override { compare(op); }
  void visit(const GT *op) override { compare(op); }
  void visit(const GE *op) override { compare(op); }
  void visit(const And *op) override { binary(op, "logic"); }
  void visit(const Or *op) override { binary(op, "logic"); }
  void visit(const Not *op) override { binary(op, "logic"); }
  void visit(const Select *op) override { binary(op, "select"); }
  void visit(const Cast *op) override { binary(op, "cast"); }
  void visit(const Call *op) override {
    IRGraphVisitor::visit(op);
    if (op->call_type == Call::Halide || op->call_type == Call::Image) {
      count("load", op->type);
    } else if (op->is_intrinsic(Call::bitwise_and) || op->is_intrinsic(Call::bitwise_or) ||
               op->is_intrinsic(Call::bitwise_xor) || op->is_intrinsic(Call::bitwise_not) ||
               op->is_intrinsic(Call::shift_left) || op->is_intrinsic(Call::shift_right)) {
      count("bitwise", op->type);
    } else if (op->call_type == Call::PureExtern) {
      count("math", op->type);
      // Counted with the basic arithmetic (ArithmeticOps::basic), at the FP32 rate.
      if (const int64_t extra = library_routine_ops(op->name))
        counts["libm." + short_type_name(op->type)] += extra;
    } else if (op->is_intrinsic(Call::absd) || op->is_intrinsic(Call::abs)) {
      count("sub", op->type);
    } else if (op->name == kJoined || is_hint(op)) {
      return;  // joined_for_cse's wrapper, likely(): no instruction
    } else if (op->call_type == Call::PureIntrinsic || op->call_type == Call::Intrinsic) {
      count("intrinsic", op->type);
    }
  }
};

}  // namespace

namespace {

class CallSiteCounter : public IRVisitor {
public:
  CallSites sites;

private:
  using IRVisitor::visit;
  std::set<std::string> seen_;  ///< producer and arguments of the calls counted

  void visit(const Call *call) override {
    IRVisitor::visit(call);
    const bool input = call->call_type == Call::Image && !call->image.defined();
    if (call->call_type != Call::Halide && !input) return;
    std::ostringstream key;
    key << call->name;
    for (const Expr &arg : call->args) key << "," << arg;
    if (!seen_.insert(key.str()).second) return;  // another element of the same Tuple point
    sites.calls[call->name]++;
    if (input) sites.inputs.insert(call->name);
  }
};

}  // namespace

std::vector<Expr> definition_exprs(const Definition &def, bool is_update) {
  std::vector<Expr> exprs = def.values();
  if (is_update) {
    // LHS indices of updates can read producers too (histograms: hist(im(r.x, r.y)) += 1).
    for (const Expr &arg : def.args()) exprs.push_back(arg);
  }
  if (def.predicate().defined()) exprs.push_back(def.predicate());
  return exprs;
}

Expr joined_for_cse(const std::vector<Expr> &exprs) {
  if (exprs.size() == 1) return exprs[0];
  return Call::make(Int(32), kJoined, exprs, Call::PureIntrinsic);
}

CallSites count_call_sites(const std::vector<Expr> &exprs) {
  CallSiteCounter counter;
  if (!exprs.empty()) common_subexpression_elimination(joined_for_cse(exprs)).accept(&counter);
  return counter.sites;
}

OpCounts count_operations(const std::vector<Expr> &exprs) {
  OperationCounter counter;
  // Shared subexpressions are computed once in the generated code, across a Tuple's values too.
  if (!exprs.empty()) common_subexpression_elimination(joined_for_cse(exprs)).accept(&counter);
  for (const Expr &e : exprs) counter.counts["store." + short_type_name(e.type())]++;
  return counter.counts;
}

}  // namespace hlsched
