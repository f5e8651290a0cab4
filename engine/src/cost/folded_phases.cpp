#include "cost/folded_phases.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "cost/kernel_model.h"

namespace hlsched {

namespace {

// What the compiler knows of one coordinate of a Func in the kernel: nothing, its value, or
// that it is `coefficient` x a kernel loop `loop` (plus a constant).
struct Coordinate {
  enum Kind { Unknown, Value, Linear } kind = Unknown;
  std::string loop;
  double coefficient = 0;
  bool operator==(const Coordinate &o) const {
    return kind == o.kind && (kind != Linear || (loop == o.loop && coefficient == o.coefficient));
  }
};

Coordinate merge(const Coordinate &a, const Coordinate &b) {
  if (a == b) return a;
  if (a.kind == Coordinate::Value) return b;
  if (b.kind == Coordinate::Value) return a;
  return Coordinate{};
}

// The coordinate one access reads in producer dim `d`, from the consumer's coordinates.
Coordinate through(const ProducerAccess &a, size_t d, const std::vector<std::string> &consumer_args,
                   const std::vector<Coordinate> &consumer) {
  if (d >= a.region_min.size()) return {};
  const AffineExpr &lo = a.region_min[d], &hi = a.region_max[d];
  if (!lo.is_affine || !hi.is_affine || lo.coefficients != hi.coefficients) return {};
  std::map<std::string, double> terms;
  for (const auto &[var, k] : lo.coefficients)
    if (k != 0) terms[var] = k;
  if (terms.empty()) return Coordinate{Coordinate::Value, "", 0};
  if (terms.size() != 1) return {};
  const auto &[var, k] = *terms.begin();
  for (size_t i = 0; i < consumer_args.size() && i < consumer.size(); i++) {
    if (consumer_args[i] != var) continue;
    const Coordinate &c = consumer[i];
    if (c.kind != Coordinate::Linear) return c;
    return Coordinate{Coordinate::Linear, c.loop, c.coefficient * k};
  }
  return {};
}

// The start alignment of loop x that makes k * x + b known modulo `period`, or 0 where the
// coefficient is neither an integer nor the inverse of one.
int alignment_for(double k, int period) {
  const double magnitude = std::fabs(k);
  if (magnitude >= 1 && magnitude == std::floor(magnitude))
    return period / std::gcd(period, int(std::lround(magnitude)));
  if (magnitude > 0 && magnitude < 1) {
    const double q = 1.0 / magnitude;
    if (q == std::floor(q) && q <= 8) return int(q) * period;
  }
  return 0;
}

}  // namespace

const FoldedStage *FoldedPhases::counts(const PipelineDag &dag, int f) const {
  auto it = masks.find(f);
  if (it == masks.end()) return nullptr;
  return &dag.funcs[size_t(f)].stages[0].folded.at(it->second);
}

FoldedPhases folded_phases(const PipelineDag &dag, const ScheduleState &state, int root, int stage) {
  FoldedPhases out;
  const FuncNode &r = dag.funcs[size_t(root)];
  const FuncDecision &d = state.decisions[size_t(root)];
  if (stage != 0 || d.level != ComputeLevel::Root || d.tilings.empty() || r.stages.empty()) return out;
  // An output's updates would run outside the specialization of its pure definition; a Tuple
  // has no single output buffer to state the origin of.
  if (r.is_output && (r.stages.size() > 1 || r.types.size() > 1)) return out;
  const StageTiling &t = d.tilings[0];
  if (t.single_thread || t.atomic || t.privatized) return out;
  const bool channels_unrolled = unrolls_in_thread_loops(dag, state, root, 0);

  // The kernel's own coordinates, and how many unrolled points per thread each tiled loop runs.
  std::vector<std::vector<Coordinate>> known(dag.funcs.size());
  known[size_t(root)].resize(r.args.size());
  std::map<std::string, int64_t> points_per_thread;
  for (size_t i = 0; i < t.vars.size(); i++) {
    const auto arg = std::find(r.args.begin(), r.args.end(), t.vars[i]);
    if (arg == r.args.end()) continue;
    const size_t dim = size_t(arg - r.args.begin());
    Coordinate &c = known[size_t(root)][dim];
    if (t.in_thread[i] && channels_unrolled && dim < r.fixed_dims.size() && r.fixed_dims[dim]) {
      c = Coordinate{Coordinate::Value, "", 0};
    } else if (t.tiled(i) && t.serial[i] >= 2) {
      c = Coordinate{Coordinate::Linear, t.vars[i], 1};
      points_per_thread[t.vars[i]] = t.serial[i];
    }
  }

  // Funcs fused into the kernel (per block or thread) and the Funcs inlined into them: they run
  // their own loops, not the root's.
  std::vector<bool> fused_side(dag.funcs.size(), false);
  for (int f = int(dag.funcs.size()) - 1; f >= 0; f--) {
    if (!state.decided[size_t(f)]) continue;
    const FuncDecision &d = state.decisions[size_t(f)];
    const bool fused = d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread;
    if (fused && d.kernel_root == root) fused_side[size_t(f)] = true;
    if (!fused_side[size_t(f)]) continue;
    for (const std::string &name : dag.funcs[size_t(f)].producers) {
      const int p = dag.index_of(name);
      if (p >= 0 && state.decided[size_t(p)] && state.decisions[size_t(p)].level == ComputeLevel::Inline)
        fused_side[size_t(p)] = true;
    }
  }

  // Funcs inlined into the kernel, consumers first (producers have lower indices).
  std::vector<bool> in_kernel(dag.funcs.size(), false), reached(dag.funcs.size(), false);
  in_kernel[size_t(root)] = true;
  for (int f = root; f >= 0; f--) {
    if (!in_kernel[size_t(f)]) continue;
    const FuncNode &func = dag.funcs[size_t(f)];
    if (func.stages.empty()) continue;
    // Read also where its coordinates are not the kernel's (inlined into a Func fused into the
    // kernel, which runs its own loops): nothing is known of them there.
    for (const std::string &consumer : func.consumers) {
      const int q = dag.index_of(consumer);
      if (f == root || q < 0 || in_kernel[size_t(q)] || !state.decided[size_t(q)]) continue;
      // (Not a consumer inlined into another kernel: random pipeline 710034's down_5 was costed
      // differently as a sibling read of the same inlined Func was inlined elsewhere or not.)
      if (fused_side[size_t(q)]) known[size_t(f)].assign(func.args.size(), Coordinate{});
    }
    for (const ProducerAccess &a : func.stages[0].accesses) {
      const int p = dag.index_of(a.producer);
      if (p < 0 || p == f || !state.decided[size_t(p)] || state.decisions[size_t(p)].level != ComputeLevel::Inline)
        continue;
      const FuncNode &producer = dag.funcs[size_t(p)];
      std::vector<Coordinate> seen(producer.args.size());
      for (size_t dim = 0; dim < seen.size(); dim++) seen[dim] = through(a, dim, func.args, known[size_t(f)]);
      if (!reached[size_t(p)]) {
        known[size_t(p)] = seen;
      } else {
        for (size_t dim = 0; dim < seen.size(); dim++) known[size_t(p)][dim] = merge(known[size_t(p)][dim], seen[dim]);
      }
      reached[size_t(p)] = in_kernel[size_t(p)] = true;
    }
  }

  // Each Func's phase loops that its coordinates fold, and the alignment they need.
  for (int f = root; f >= 0; f--) {
    if (!in_kernel[size_t(f)] || dag.funcs[size_t(f)].stages.empty()) continue;
    const FuncNode &func = dag.funcs[size_t(f)];
    const std::vector<PhaseLoop> &loops = func.stages[0].phase_loops;
    unsigned mask = 0;
    for (size_t k = 0; k < loops.size(); k++) {
      const auto arg = std::find(func.args.begin(), func.args.end(), loops[k].var);
      if (arg == func.args.end()) continue;
      const Coordinate &c = known[size_t(f)][size_t(arg - func.args.begin())];
      if (c.kind == Coordinate::Value) {
        mask |= 1u << k;
        continue;
      }
      if (c.kind != Coordinate::Linear || loops[k].by_value) continue;
      const int align = alignment_for(c.coefficient, loops[k].period);
      if (align == 0 || points_per_thread[c.loop] % align != 0) continue;
      const int combined = std::lcm(out.alignment.count(c.loop) ? out.alignment[c.loop] : 1, align);
      if (!r.is_output) {
        // align_bounds only where it changes nothing under the estimates.
        const auto dim = std::find(r.args.begin(), r.args.end(), c.loop) - r.args.begin();
        const Span &span = r.region.at(size_t(dim));
        if (span.min % combined != 0 || span.extent() % combined != 0) continue;
      }
      out.alignment[c.loop] = combined;
      mask |= 1u << k;
    }
    if (mask) out.masks[f] = mask;
  }
  return out;
}

}  // namespace hlsched
