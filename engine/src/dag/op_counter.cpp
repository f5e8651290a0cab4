#include "dag/op_counter.h"

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

class OperationCounter : public IRGraphVisitor {
public:
  OpCounts counts;

private:
  using IRGraphVisitor::visit;

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
  void visit(const Div *op) override { binary(op, "div"); }
  void visit(const Mod *op) override { binary(op, "mod"); }
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
    } else if (op->is_intrinsic(Call::absd) || op->is_intrinsic(Call::abs)) {
      count("sub", op->type);
    } else if (op->call_type == Call::PureIntrinsic || op->call_type == Call::Intrinsic) {
      count("intrinsic", op->type);
    }
  }
};

}  // namespace

OpCounts count_operations(const std::vector<Expr> &exprs) {
  OperationCounter counter;
  for (const Expr &e : exprs) {
    // Shared subexpressions are computed once in the generated code.
    common_subexpression_elimination(e).accept(&counter);
    counter.counts["store." + short_type_name(e.type())]++;
  }
  return counter.counts;
}

}  // namespace hlsched
