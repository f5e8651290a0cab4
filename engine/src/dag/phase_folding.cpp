#include "dag/phase_folding.h"

#include <numeric>

#include "dag/op_counter.h"

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

constexpr int kMaxPeriod = 4;       // longer periods unroll too much code per thread
constexpr size_t kMaxPhaseLoops = 3;

// The residues and comparisons of a definition's pure variables.
class PhaseUses : public IRGraphVisitor {
public:
  explicit PhaseUses(const std::vector<std::string> &args) : args_(args) {}
  std::map<std::string, int> residue_period;  ///< var -> lcm of the moduli it is taken by
  std::set<std::string> compared;             ///< vars compared with a constant

private:
  using IRGraphVisitor::visit;

  // The one pure variable `e` depends on, or "" when none or several.
  std::string only_var(const Expr &e) const {
    std::string found;
    for (const std::string &v : args_) {
      if (!expr_uses_var(e, v)) continue;
      if (!found.empty()) return "";
      found = v;
    }
    return found;
  }
  void residue(const Expr &of, int64_t modulus) {
    if (modulus < 2 || modulus > kMaxPeriod) return;
    const std::string v = only_var(of);
    if (v.empty()) return;
    int &period = residue_period[v];
    period = period == 0 ? int(modulus) : std::lcm(period, int(modulus));
  }
  template <typename Node>
  void comparison(const Node *op) {
    IRGraphVisitor::visit(op);
    for (const auto &[side, other] : {std::pair{op->a, op->b}, std::pair{op->b, op->a}}) {
      const Variable *v = side.template as<Variable>();
      if (v && is_const(other) && std::count(args_.begin(), args_.end(), v->name)) compared.insert(v->name);
    }
  }

  void visit(const Mod *op) override {
    IRGraphVisitor::visit(op);
    if (const int64_t *m = as_const_int(op->b)) residue(op->a, *m);
  }
  void visit(const Call *op) override {
    IRGraphVisitor::visit(op);
    if (op->is_intrinsic(Call::bitwise_and) && op->args.size() == 2)
      if (const int64_t *mask = as_const_int(op->args[1]))
        if (*mask == 1 || *mask == 3) residue(op->args[0], *mask + 1);
  }
  void visit(const EQ *op) override { comparison(op); }
  void visit(const NE *op) override { comparison(op); }
  void visit(const LT *op) override { comparison(op); }
  void visit(const LE *op) override { comparison(op); }
  void visit(const GT *op) override { comparison(op); }
  void visit(const GE *op) override { comparison(op); }

  const std::vector<std::string> &args_;
};

// Counts summed over every phase of the loops in `mask`.
FoldedStage fold(const std::vector<Expr> &exprs, const std::vector<PhaseLoop> &loops, unsigned mask) {
  std::vector<const PhaseLoop *> known;
  for (size_t k = 0; k < loops.size(); k++)
    if (mask & (1u << k)) known.push_back(&loops[k]);
  FoldedStage folded;
  folded.phases = 1;
  for (const PhaseLoop *l : known) folded.phases *= l->period;
  for (int64_t phase = 0; phase < folded.phases; phase++) {
    std::map<std::string, Expr> replacement;
    int64_t rest = phase;
    for (const PhaseLoop *l : known) {
      const int64_t r = rest % l->period;
      rest /= l->period;
      const Expr v = Variable::make(Int(32), l->var);
      replacement[l->var] = l->by_value ? Expr(int32_t(l->first + r)) : v * l->period + int32_t(r);
    }
    std::vector<Expr> specialized;
    for (const Expr &e : exprs) specialized.push_back(simplify(substitute(replacement, e)));
    for (const auto &[key, n] : count_operations(specialized)) folded.ops_total[key] += n;
    for (const auto &[producer, n] : count_call_sites(specialized).calls) folded.calls_total[producer] += n;
  }
  return folded;
}

}  // namespace

void describe_phase_loops(const Function &f, FuncNode &node) {
  if (f.has_extern_definition() || node.stages.empty()) return;
  const std::vector<Expr> exprs = definition_exprs(f.definition(), /*is_update=*/false);

  PhaseUses uses(f.args());
  for (const Expr &e : exprs) e.accept(&uses);
  StageNode &stage = node.stages[0];
  stage.phase_loops.clear();
  stage.folded.clear();
  for (size_t d = 0; d < f.args().size(); d++) {
    const std::string &v = f.args()[d];
    auto residue = uses.residue_period.find(v);
    if (residue != uses.residue_period.end() && residue->second <= kMaxPeriod) {
      stage.phase_loops.push_back(PhaseLoop{v, residue->second, false, 0});
    } else if (uses.compared.count(v) && d < node.fixed_dims.size() && node.fixed_dims[d] && d < node.region.size()) {
      const Span &span = node.region[d];
      if (span.extent() >= 2 && span.extent() <= kMaxPeriod)
        stage.phase_loops.push_back(PhaseLoop{v, int(span.extent()), true, span.min});
    }
    if (stage.phase_loops.size() == kMaxPhaseLoops) break;
  }
  const unsigned subsets = 1u << stage.phase_loops.size();
  for (unsigned mask = 1; mask < subsets; mask++) stage.folded[mask] = fold(exprs, stage.phase_loops, mask);
}

void describe_unrolled_updates(const Function &f, FuncNode &node) {
  constexpr int64_t kMaxCopies = 32;
  for (StageNode &stage : node.stages) {
    stage.unrolled_jointly.clear();
    if (stage.index == 0 || f.has_extern_definition()) continue;
    const Definition &def = f.updates()[size_t(stage.index - 1)];
    const std::vector<Expr> exprs = definition_exprs(def, /*is_update=*/true);
    for (size_t d = 0; d < f.args().size() && d < node.region.size(); d++) {
      if (d >= node.constant_dims.size() || !node.constant_dims[d]) continue;
      const Span &span = node.region[d];
      if (span.extent() < 2 || span.extent() > kMaxCopies) continue;
      // The update's own loop over this dim: its pure variable, named in its argument there.
      const Variable *var = d < def.args().size() ? def.args()[d].as<Variable>() : nullptr;
      if (!var) continue;
      std::vector<Expr> copies;
      for (int64_t value = span.min; value <= span.max; value++)
        for (const Expr &e : exprs) copies.push_back(simplify(substitute(var->name, Expr(int32_t(value)), e)));
      FoldedStage joint;
      joint.phases = span.extent();
      joint.ops_total = count_operations(copies);
      joint.calls_total = count_call_sites(copies).calls;
      stage.unrolled_jointly[var->name] = std::move(joint);
    }
  }
}

}  // namespace hlsched
