// Building the PipelineDag from Halide's IR.
//
// Three passes over the Funcs in topological order:
//  1. describe each Func and stage (loops, op counts, per-point producer regions) from its IR;
//  2. walk consumers before producers to bound the region each Func must compute under the
//     pipeline's estimates (the same question Halide's bounds inference answers, with numbers);
//  3. fill the loop estimates and point counts from those regions.
#include "hlsched/engine/pipeline_dag.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "hlsched/engine/pipeline_walk.h"
#include "dag/algorithm_loops.h"
#include "dag/atomic_index.h"
#include "dag/estimates.h"
#include "dag/op_counter.h"
#include "dag/phase_folding.h"

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

std::string to_text(const Expr &e) {
  std::ostringstream out;
  out << e;
  return out.str();
}

// Decomposes a (simplified) index expression into constant + sum(coefficient * var) over the
// given loop variables. Division by a positive constant is kept as a fractional coefficient
// (x/2 is "half of x"), which is what the cost model needs for down-sampling.
class AffineDecomposer {
public:
  explicit AffineDecomposer(const std::set<std::string> &vars) : vars_(vars) {}

  AffineExpr decompose(const Expr &e) {
    AffineExpr result;
    result.text = to_text(e);
    result.is_affine = visit(e, 1.0, result);
    if (!result.is_affine) {
      result.constant = 0;
      result.coefficients.clear();
      AffineExpr inside;
      through_clamps_ = true;
      result.clamped_affine = visit(e, 1.0, inside);
      through_clamps_ = false;
      if (result.clamped_affine) result.clamped_coefficients = std::move(inside.coefficients);
    }
    return result;
  }

private:
  // Whether `e` mentions one of the loop variables.
  bool moves(const Expr &e) const {
    return std::any_of(vars_.begin(), vars_.end(), [&](const std::string &v) { return expr_uses_var(e, v); });
  }

  // Through clamps: min/max against a limit that does not move with the loops keeps the other
  // side's coefficients (its constant is not tracked).
  bool visit_clamped(const Expr &a, const Expr &b, double scale, AffineExpr &acc) {
    if (!moves(b)) return visit(a, scale, acc);
    if (!moves(a)) return visit(b, scale, acc);
    return false;
  }

  bool visit(const Expr &e, double scale, AffineExpr &acc) {
    if (through_clamps_) {
      if (const Min *m = e.as<Min>()) return visit_clamped(m->a, m->b, scale, acc);
      if (const Max *m = e.as<Max>()) return visit_clamped(m->a, m->b, scale, acc);
      // A parameter (an image's extent, a scalar input): an unknown constant.
      if (const Variable *v = e.as<Variable>(); v && !vars_.count(v->name)) return true;
    }
    if (const int64_t *c = as_const_int(e)) {
      acc.constant += scale * double(*c);
      return true;
    }
    if (const double *f = as_const_float(e)) {
      acc.constant += scale * *f;
      return true;
    }
    if (const Variable *v = e.as<Variable>()) {
      if (!vars_.count(v->name)) return false;
      acc.coefficients[v->name] += scale;
      return true;
    }
    if (const Add *a = e.as<Add>()) return visit(a->a, scale, acc) && visit(a->b, scale, acc);
    if (const Sub *s = e.as<Sub>()) return visit(s->a, scale, acc) && visit(s->b, -scale, acc);
    if (const Mul *m = e.as<Mul>()) {
      if (const int64_t *c = as_const_int(m->b)) return visit(m->a, scale * double(*c), acc);
      if (const int64_t *c = as_const_int(m->a)) return visit(m->b, scale * double(*c), acc);
      return false;
    }
    if (const Div *d = e.as<Div>()) {
      const int64_t *c = as_const_int(d->b);
      return c && *c > 0 && visit(d->a, scale / double(*c), acc);
    }
    if (const Cast *c = e.as<Cast>()) return c->type.is_int_or_uint() && visit(c->value, scale, acc);
    return false;
  }

  const std::set<std::string> &vars_;
  bool through_clamps_ = false;
};

bool is_boundary_condition_name(const std::string &name) {
  static const char *kNames[] = {"repeat_edge", "constant_exterior", "repeat_image", "mirror_image",
                                 "mirror_interior"};
  for (const char *prefix : kNames)
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

// What a mirrored index is made of: a likely() branch, an abs() and a modulo.
class MirrorParts : public IRVisitor {
public:
  bool likely = false, abs = false, mod = false;
  bool all() const { return likely && abs && mod; }

private:
  using IRVisitor::visit;
  void visit(const Call *op) override {
    likely = likely || op->is_intrinsic(Call::likely);
    abs = abs || op->is_intrinsic(Call::abs);
    IRVisitor::visit(op);
  }
  void visit(const Mod *op) override {
    mod = true;
    IRVisitor::visit(op);
  }
};

bool definition_mirrors_at_boundary(const Function &f) {
  if (!f.has_pure_definition() || f.has_extern_definition()) return false;
  MirrorParts parts;
  for (const Expr &v : f.values()) v.accept(&parts);
  return parts.all();
}

std::string definition_text(const Function &f, const Definition &def) {
  std::ostringstream out;
  out << f.name() << "(";
  for (size_t i = 0; i < def.args().size(); i++) out << (i ? ", " : "") << def.args()[i];
  out << ") = ";
  if (def.values().size() > 1) out << "{";
  for (size_t i = 0; i < def.values().size(); i++) out << (i ? ", " : "") << def.values()[i];
  if (def.values().size() > 1) out << "}";
  return out.str();
}

// Whether `e` has an upper bound whatever values the loop variables take (clamp(x, 0, w - 1),
// a constant), not x + 1 or x / 2.
bool bounded_above_anywhere(const Expr &e, const std::set<std::string> &loop_vars) {
  Scope<Interval> anywhere;
  for (const std::string &v : loop_vars) anywhere.push(v, Interval::everything());
  return bounds_of_expr_in_scope(e, anywhere).has_upper_bound();
}

// The symbolic per-point scope of a stage: every loop variable is the point [v, v].
Scope<Interval> point_scope(const Function &f, const Definition &def, bool is_update) {
  Scope<Interval> scope;
  for (const Dim &d : algorithm_loops(f, def, is_update)) {
    Expr v = Variable::make(Int(32), d.var);
    scope.push(d.var, Interval(v, v));
  }
  return scope;
}

// Whether an index divides by a constant other than a power of two: Halide 14's bounds of
// (y * 7) / 9 over a GPU block's rows, under the tail's min(), span the whole image (its
// per-block Func's thread loop then does too), where / 2 and * 3 / 4 stay a block's.
class UnevenDivision : public IRVisitor {
public:
  bool found = false;

private:
  using IRVisitor::visit;
  void visit(const Div *op) override {
    const int64_t *divisor = as_const_int(op->b);
    if (divisor && *divisor > 1 && (*divisor & (*divisor - 1)) != 0) found = true;
    IRVisitor::visit(op);
  }
};

bool divides_unevenly(const Expr &index) {
  if (!index.defined()) return false;
  UnevenDivision finder;
  index.accept(&finder);
  return finder.found;
}

// Per producer: whether every call of it in the expressions has affine arguments (read before
// common-subexpression elimination, whose lets hide the loop variables).
class CallAffinity : public IRVisitor {
public:
  explicit CallAffinity(AffineDecomposer &affine) : affine_(affine) {}
  std::map<std::string, bool> each_call_affine;
  std::map<std::string, std::vector<std::vector<AffineExpr>>> call_args;  ///< distinct calls, by text

private:
  using IRVisitor::visit;
  AffineDecomposer &affine_;
  std::set<std::string> seen_;

  void visit(const Call *call) override {
    IRVisitor::visit(call);
    const bool input = call->call_type == Call::Image && !call->image.defined();
    if (call->call_type != Call::Halide && !input) return;
    bool affine = true;
    std::vector<AffineExpr> args;
    std::string key = call->name;
    for (const Expr &arg : call->args) {
      args.push_back(affine_.decompose(simplify(arg)));
      affine = affine && args.back().is_affine;
      key += "," + args.back().text;
    }
    auto [it, first] = each_call_affine.emplace(call->name, affine);
    if (!first) it->second = it->second && affine;
    if (seen_.insert(key).second) call_args[call->name].push_back(std::move(args));
  }
};

std::vector<ProducerAccess> describe_accesses(const Function &f, const Definition &def, bool is_update,
                                              const std::map<std::string, Function> &env) {
  std::set<std::string> loop_vars;
  for (const Dim &d : algorithm_loops(f, def, is_update)) loop_vars.insert(d.var);
  AffineDecomposer affine(loop_vars);

  Scope<Interval> scope = point_scope(f, def, is_update);
  std::map<std::string, Box> boxes;
  const std::vector<Expr> exprs = definition_exprs(def, is_update);
  for (const Expr &e : exprs)
    for (auto &[name, box] : boxes_required(e, scope)) merge_boxes(boxes[name], box);
  // Call sites as the operations are counted: a Func read twice at one point (harris's det reads
  // Sxy(x, y) twice; hist's recolored reads both of chroma's values) is evaluated, or inlined and
  // computed, once in the generated code.
  const CallSites counter = count_call_sites(exprs);
  CallAffinity affinity(affine);
  for (const Expr &e : exprs) e.accept(&affinity);

  std::vector<ProducerAccess> accesses;
  for (const auto &[name, calls] : counter.calls) {
    ProducerAccess access;
    access.producer = name;
    access.producer_is_input = counter.inputs.count(name) > 0;
    access.calls_per_point = calls;
    const Box &box = boxes[name];
    access.is_affine = true;
    access.is_pointwise = true;
    const Function *producer = env.count(name) ? &env.at(name) : nullptr;
    for (size_t d = 0; d < box.size(); d++) {
      Expr lo = box[d].has_lower_bound() ? simplify(box[d].min) : Expr();
      Expr hi = box[d].has_upper_bound() ? simplify(box[d].max) : Expr();
      AffineExpr lo_a = lo.defined() ? affine.decompose(lo) : AffineExpr{};
      AffineExpr hi_a = hi.defined() ? affine.decompose(hi) : AffineExpr{};
      if (!lo.defined()) lo_a.text = "-inf";
      if (!hi.defined()) hi_a.text = "+inf";
      access.is_affine = access.is_affine && lo_a.is_affine && hi_a.is_affine;
      int64_t extent = -1;
      if (lo.defined() && hi.defined()) {
        const Expr span = simplify(hi - lo + 1);  // as_const_int points into it: keep it alive
        if (const int64_t *c = as_const_int(span)) extent = *c;
      }
      access.points_per_consumer_point.push_back(extent);
      access.bounded_above = (d == 0 || access.bounded_above) && hi.defined() && bounded_above_anywhere(hi, loop_vars);
      bool own_point = producer && d < producer->args().size() && lo_a.is_affine && hi_a.is_affine &&
                       lo_a.constant == 0 && hi_a.constant == 0 && lo_a.coefficients.size() == 1 &&
                       lo_a.coefficients == hi_a.coefficients &&
                       lo_a.coefficients.begin()->second == 1.0;
      access.is_pointwise = access.is_pointwise && own_point;
      access.region_min.push_back(lo_a);
      access.region_max.push_back(hi_a);
      access.divides_unevenly = access.divides_unevenly || divides_unevenly(lo) || divides_unevenly(hi);
    }
    if (!access.is_affine && affinity.each_call_affine[name]) access.call_args = std::move(affinity.call_args[name]);
    accesses.push_back(std::move(access));
  }
  return accesses;
}

StageNode describe_stage(const Function &f, int index, const std::map<std::string, Function> &env) {
  const bool is_update = index > 0;
  const Definition &def = is_update ? f.updates()[index - 1] : f.definition();
  StageNode stage;
  stage.index = index;
  stage.name = f.name() + ".s" + std::to_string(index);
  stage.definition = definition_text(f, def);
  for (const Dim &d : algorithm_loops(f, def, is_update)) {
    LoopDim loop;
    loop.var = d.var;
    loop.is_rvar = d.is_rvar();
    loop.is_pure = d.is_pure();
    stage.loops.push_back(loop);
  }
  stage.ops = count_operations(definition_exprs(def, is_update));
  if (is_update)
    for (const Expr &index : def.args())
      for (const ReductionVariable &rv : def.schedule().rvars())
        stage.scatter = stage.scatter || expr_uses_var(index, rv.var);
  if (is_update && def.values().size() == 1 && def.values()[0].type().bits() == 32) {
    // Atomics only for scatters (the stored index depends on the reduction): an update of fixed
    // elements (a total sum) becomes an atomic load in a compare-and-swap loop, which LLVM 14's
    // NVPTX back end cannot select ("Cannot select: AtomicLoad"); scatters of +, max and float +
    // compile.
    AssociativeOp op = prove_associativity(f.name(), def.args(), def.values());
    stage.atomic_safe = stage.scatter && op.associative() && op.commutative();
    if (stage.atomic_safe) {
      const AtomicIndexReads reads = atomic_index_reads(f, def);
      stage.index_reads = reads.index;
      stage.increment_reads = reads.increment;
      stage.index_call_sites = reads.index_sites;
      // A subexpression of the index repeated in the definition itself (or shared with the
      // increment) makes Halide 14 lower the atomic to a compare-and-swap loop whatever the
      // schedule: such an update runs serially instead.
      stage.atomic_safe = !reads.repeats_subexpression;
    }
  }
  if (is_update && def.values().size() == 1 && !def.schedule().rvars().empty()) {
    AssociativeOp op = prove_associativity(f.name(), def.args(), def.values());
    stage.rfactor_safe = op.associative() && op.commutative();
  }
  stage.accesses = describe_accesses(f, def, is_update, env);
  return stage;
}

// A per-point window whose size depends on the point (two calls at x and x + dx read |dx| + 1
// elements) has no constant size; its largest size over the loops' ranges is what a point reads.
// Without it the window counts as the producer's whole extent, per point.
void bound_varying_windows(StageNode &stage, const Function &f, const Definition &def,
                           const Scope<Interval> &ranges) {
  std::map<std::string, Box> boxes;
  const Scope<Interval> point = point_scope(f, def, stage.index > 0);
  for (const Expr &e : definition_exprs(def, stage.index > 0))
    for (auto &[name, box] : boxes_required(e, point)) merge_boxes(boxes[name], box);
  for (ProducerAccess &a : stage.accesses) {
    auto it = boxes.find(a.producer);
    if (it == boxes.end()) continue;
    for (size_t d = 0; d < a.points_per_consumer_point.size() && d < it->second.size(); d++) {
      const Interval &window = it->second[d];
      if (a.points_per_consumer_point[d] > 0 || !window.is_bounded()) continue;
      const Interval size = bounds_of_expr_in_scope(simplify(window.max - window.min + 1), ranges);
      const Expr upper = size.has_upper_bound() ? simplify(size.max) : Expr();  // as_const_int points into it
      const int64_t *largest = upper.defined() ? as_const_int(upper) : nullptr;
      if (largest && *largest > 0) a.points_per_consumer_point[d] = *largest;
    }
  }
}

std::vector<Span> spans_of_box(const Box &box, const EstimateSubstituter &estimates, bool &bounded) {
  std::vector<Span> spans;
  for (size_t d = 0; d < box.size(); d++) {
    auto lo = box[d].has_lower_bound() ? estimates.as_constant(box[d].min) : std::nullopt;
    auto hi = box[d].has_upper_bound() ? estimates.as_constant(box[d].max) : std::nullopt;
    if (!lo || !hi) bounded = false;
    spans.push_back(Span{lo.value_or(0), hi.value_or(-1)});
  }
  return spans;
}

void merge_span(std::vector<Span> &into, const std::vector<Span> &more) {
  if (into.empty()) {
    into = more;
    return;
  }
  for (size_t d = 0; d < into.size() && d < more.size(); d++) {
    if (more[d].extent() <= 0) continue;
    if (into[d].extent() <= 0) {
      into[d] = more[d];
      continue;
    }
    into[d].min = std::min(into[d].min, more[d].min);
    into[d].max = std::max(into[d].max, more[d].max);
  }
}

// Halide's loop variables are int32.
Expr int32_const(int64_t v) {
  return Expr(int32_t(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)));
}

// The range of each loop var of a stage, given the Func's region (pure vars) and the RDom.
Scope<Interval> region_scope(const Function &f, const Definition &def, const std::vector<Span> &region,
                             const EstimateSubstituter &estimates, std::map<std::string, Span> &loop_spans) {
  Scope<Interval> scope;
  for (size_t i = 0; i < f.args().size() && i < region.size(); i++) {
    scope.push(f.args()[i], Interval(int32_const(region[i].min), int32_const(region[i].max)));
    loop_spans[f.args()[i]] = region[i];
  }
  for (const ReductionVariable &rv : def.schedule().rvars()) {
    auto lo = estimates.as_constant(rv.min);
    auto extent = estimates.as_constant(rv.extent);
    Span span{lo.value_or(0), lo.value_or(0) + extent.value_or(1) - 1};
    loop_spans[rv.var] = span;
    scope.push(rv.var, Interval(int32_const(span.min), int32_const(span.max)));
  }
  return scope;
}

// A Func with update stages is computed over what its consumers need and what its updates
// touch: Halide's bounds inference runs the pure stage over every point an update writes or
// reads of the Func itself, each update iterating its pure loops over what the consumers need.
// A scan read at one column (random pipeline 620042's mix_7 reads `iir_5(2160, y)`) still runs,
// and initializes, whole rows: its kernels launched 4,320 times the blocks the consumers' region
// alone gives. Unbounded (data-dependent) indices add nothing.
void add_what_updates_touch(const Function &f, const EstimateSubstituter &estimates, std::vector<Span> &region) {
  std::vector<Span> touched = region;
  auto merge_bounded = [&](const Box &box) {
    bool bounded = true;
    std::vector<Span> spans = spans_of_box(box, estimates, bounded);
    if (bounded) merge_span(touched, spans);
  };
  for (const Definition &def : f.updates()) {
    std::map<std::string, Span> loop_spans;
    Scope<Interval> scope = region_scope(f, def, region, estimates, loop_spans);
    Box written;
    for (const Expr &arg : def.args()) written.push_back(bounds_of_expr_in_scope(arg, scope));
    merge_bounded(written);
    for (const Expr &e : definition_exprs(def, /*is_update=*/true))
      for (auto &[producer, box] : boxes_required(e, scope))
        if (producer == f.name()) merge_bounded(box);
  }
  region = std::move(touched);
}

}  // namespace

bool StageNode::has_rvars() const {
  return std::any_of(loops.begin(), loops.end(), [](const LoopDim &l) { return l.is_rvar; });
}

ArithmeticOps StageNode::arithmetic_ops() const { return arithmetic_ops_of(ops); }

double StageNode::arithmetic_with_phases_known() const {
  if (phase_loops.empty()) return double(arithmetic_ops().total());
  const FoldedStage &all = folded.at((1u << phase_loops.size()) - 1);
  return double(arithmetic_ops_of(all.ops_total).total()) / double(all.phases);
}

namespace {

// Instructions one operation of kind.type compiles to on an NVIDIA GPU, where that is more than
// one. The GPU has no integer divider: CUDA's routines run about 20 instructions for 32 bits and
// about 70 for 64 (hist's equalization curve, inlined per pixel, divides in 64 bits: its kernel
// measured 2.5x the one that computes the curve once per bin); 64-bit integer arithmetic is
// done in 32-bit halves.
int64_t instructions_per_op(const std::string &key) {
  const size_t dot = key.find('.');
  if (dot == std::string::npos) return 1;
  const std::string kind = key.substr(0, dot), type = key.substr(dot + 1);
  const bool integer = type[0] == 'i' || type[0] == 'u';
  const bool wide = integer && type.compare(1, 2, "64") == 0;
  if (!integer) return 1;
  if (kind == "div" || kind == "mod") return wide ? 70 : 20;
  if (kind == "divc" || kind == "modc") return wide ? 8 : 3;
  if (wide) return kind == "mul" ? 4 : 2;
  return 1;
}

}  // namespace

ArithmeticOps arithmetic_ops_of(const OpCounts &ops) {
  ArithmeticOps n;
  for (const auto &[key, count] : ops) {
    if (key.rfind("load.", 0) == 0 || key.rfind("store.", 0) == 0) continue;
    (key.rfind("math.", 0) == 0 ? n.math : n.basic) += count * instructions_per_op(key);
  }
  // The GPU fuses a float multiply and an add into one instruction (LLVM contracts them).
  auto count_of = [&](const char *key) {
    auto it = ops.find(key);
    return it == ops.end() ? int64_t(0) : it->second;
  };
  for (const char *width : {"f32", "f64", "f16"})
    n.basic -= std::min(count_of((std::string("mul.") + width).c_str()),
                        count_of((std::string("add.") + width).c_str()) + count_of((std::string("sub.") + width).c_str()));
  return n;
}

int64_t FuncNode::bytes_per_point() const {
  int64_t bytes = 0;
  for (const Type &t : types) bytes += t.bytes();
  return bytes;
}

const FuncNode *PipelineDag::find(const std::string &name) const {
  int i = index_of(name);
  return i < 0 ? nullptr : &funcs[i];
}

int PipelineDag::index_of(const std::string &name) const {
  for (size_t i = 0; i < funcs.size(); i++)
    if (funcs[i].name == name) return int(i);
  return -1;
}

namespace {

// Whether a bound of a consumer's access is affine in the consumer's pure loops over its
// constant dims only (FuncNode::constant_dims, already known for the consumer).
bool follows_constant_dims(const FuncNode &consumer, const StageNode &stage, const AffineExpr &bound) {
  if (!bound.is_affine) return false;
  for (const auto &[var, k] : bound.coefficients) {
    if (k == 0) continue;
    const bool pure = std::any_of(stage.loops.begin(), stage.loops.end(),
                                  [&](const LoopDim &l) { return l.var == var && l.is_pure && !l.is_rvar; });
    const auto arg = std::find(consumer.args.begin(), consumer.args.end(), var);
    if (!pure || arg == consumer.args.end()) return false;
    const size_t dim = size_t(arg - consumer.args.begin());
    if (dim >= consumer.constant_dims.size() || !consumer.constant_dims[dim]) return false;
  }
  return true;
}

}  // namespace

PipelineDag build_pipeline_dag(const Pipeline &pipeline) {
  const std::map<std::string, Function> env = pipeline_functions(pipeline);
  std::vector<Function> output_functions;
  for (const Func &out : pipeline.outputs()) output_functions.push_back(out.function());
  const std::vector<std::string> order = topological_order(output_functions, env);

  PipelineDag dag;
  EstimateSubstituter estimates(pipeline);
  dag.inputs = estimates.describe_inputs();
  for (const Func &out : pipeline.outputs()) dag.outputs.push_back(out.name());
  estimates.require_estimates(output_functions);

  // Pass 1: describe every Func from its IR.
  const std::map<std::string, bool> clamped = funcs_clamped_in_indexes(order, env);
  for (const std::string &name : order) {
    const Function &f = env.at(name);
    FuncNode node;
    node.name = name;
    node.args = f.args();
    node.types = f.output_types();
    node.is_output = std::count(dag.outputs.begin(), dag.outputs.end(), name) > 0;
    node.has_extern_definition = f.has_extern_definition();
    node.is_boundary_condition = is_boundary_condition_name(name);
    node.clamped_in_indexes = clamped.at(name);
    node.repeats_subexpression = definition_repeats_subexpression(f);
    node.repeats_argument = definition_repeats_argument(f);
    node.mirrors_at_boundary = definition_mirrors_at_boundary(f);
    if (!f.has_extern_definition()) {
      node.stages.push_back(describe_stage(f, 0, env));
      PureCallSites sites = pure_call_sites(f);
      node.stages[0].call_sites = std::move(sites.calls);
      node.stages[0].argument_uses = std::move(sites.argument_uses);
      for (size_t u = 0; u < f.updates().size(); u++) node.stages.push_back(describe_stage(f, int(u) + 1, env));
      for (const StageNode &s : node.stages) dag.has_atomic_safe_updates = dag.has_atomic_safe_updates || s.atomic_safe;
    }
    dag.funcs.push_back(std::move(node));
  }
  for (FuncNode &consumer : dag.funcs) {
    std::set<std::string> producers;
    for (const StageNode &stage : consumer.stages)
      for (const ProducerAccess &a : stage.accesses) {
        if (a.producer_is_input || a.producer == consumer.name) continue;
        dag.edges.push_back(DagEdge{a.producer, consumer.name, stage.index});
        producers.insert(a.producer);
      }
    consumer.producers.assign(producers.begin(), producers.end());
    for (const std::string &p : producers) {
      int i = dag.index_of(p);
      if (i >= 0) dag.funcs[i].consumers.push_back(consumer.name);
    }
  }

  // Producers before consumers: what can be computed past its region (a RoundUp split).
  for (FuncNode &node : dag.funcs) {
    node.computable_past_region = !node.has_extern_definition;
    for (const StageNode &stage : node.stages)
      for (const ProducerAccess &a : stage.accesses) {
        if (a.producer == node.name || a.bounded_above) continue;
        const FuncNode *producer = a.producer_is_input ? nullptr : dag.find(a.producer);
        if (!producer || producer->is_output || !producer->computable_past_region) node.computable_past_region = false;
      }
  }

  // Pass 2: required regions, consumers first.
  std::map<std::string, std::vector<Span>> required;
  for (const Function &out : output_functions) required[out.name()] = estimates.output_region(out);
  for (auto it = dag.funcs.rbegin(); it != dag.funcs.rend(); ++it) {
    FuncNode &node = *it;
    const Function &f = env.at(node.name);
    node.region = required[node.name];
    if (node.region.empty()) {
      node.region.assign(f.args().size(), Span{0, 0});
      node.region_is_bounded = false;
    }
    for (Span &s : node.region)
      if (s.extent() <= 0) {
        s = Span{0, 1023};  // unbounded (data-dependent) access: assume a modest region
        node.region_is_bounded = false;
      }
    if (!f.has_extern_definition() && !f.updates().empty()) add_what_updates_touch(f, estimates, node.region);
    for (StageNode &stage : node.stages) {
      const Definition &def = stage.index == 0 ? f.definition() : f.updates()[stage.index - 1];
      std::map<std::string, Span> loop_spans;
      Scope<Interval> scope = region_scope(f, def, node.region, estimates, loop_spans);
      for (const Expr &e : definition_exprs(def, stage.index > 0)) {
        for (auto &[producer, box] : boxes_required(e, scope)) {
          if (producer == node.name || !env.count(producer)) continue;
          bool bounded = true;
          std::vector<Span> spans = spans_of_box(box, estimates, bounded);
          merge_span(required[producer], spans);
        }
      }
      bound_varying_windows(stage, f, def, scope);
      // Pass 3 for this stage: loop extents and points.
      stage.points = 1;
      for (LoopDim &loop : stage.loops) {
        auto span = loop_spans.find(loop.var);
        loop.estimate = span != loop_spans.end() ? span->second : Span{0, 0};
        stage.points *= std::max<int64_t>(1, loop.estimate.extent());
      }
    }
  }

  // Loops whose phase picks what a point computes (dag/phase_folding.h), once regions are known.
  for (FuncNode &node : dag.funcs) {
    node.fixed_dims.assign(node.args.size(), !node.is_output);
    for (const std::string &consumer : node.consumers)
      for (const StageNode &stage : dag.find(consumer)->stages)
        for (const ProducerAccess &a : stage.accesses) {
          if (a.producer != node.name) continue;
          for (size_t d = 0; d < node.fixed_dims.size(); d++) {
            const bool fixed = d < a.region_min.size() && a.region_min[d].is_affine && a.region_max[d].is_affine &&
                               a.region_min[d].coefficients.empty() && a.region_max[d].coefficients.empty();
            node.fixed_dims[d] = node.fixed_dims[d] && fixed;
          }
        }
    describe_phase_loops(env.at(node.name), node);
  }
  // Regions known when the pipeline compiles, consumers first.
  for (auto it = dag.funcs.rbegin(); it != dag.funcs.rend(); ++it) {
    FuncNode &node = *it;
    node.constant_dims.assign(node.args.size(), !node.is_output && !node.consumers.empty());
    for (const std::string &name : node.consumers) {
      const FuncNode &consumer = *dag.find(name);
      for (const StageNode &stage : consumer.stages)
        for (const ProducerAccess &a : stage.accesses) {
          if (a.producer != node.name) continue;
          for (size_t d = 0; d < node.constant_dims.size(); d++)
            node.constant_dims[d] = node.constant_dims[d] && d < a.region_min.size() &&
                                    follows_constant_dims(consumer, stage, a.region_min[d]) &&
                                    follows_constant_dims(consumer, stage, a.region_max[d]);
        }
    }
    describe_unrolled_updates(env.at(node.name), node);
  }
  return dag;
}

}  // namespace hlsched
