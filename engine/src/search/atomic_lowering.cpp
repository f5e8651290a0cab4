#include "search/atomic_lowering.h"

#include <algorithm>
#include <set>

namespace hlsched {

namespace {

// How the update's index reads one producer once the schedule's inlined Funcs are substituted.
struct Reach {
  int64_t index_paths = 0;          ///< call sites in the inlined index
  int64_t exposed_index_paths = 0;  ///< ... of them, not shielded by another call's arguments
  int64_t increment_paths = 0;      ///< call sites in the inlined rest of the value
  std::set<std::string> parents;    ///< definitions holding those call sites ("#index", "#increment", Funcs)
  bool computed_arguments = false;  ///< some call's arguments are not the caller's own point
};

// Tiled as an atomic scatter: on global memory, or privatized (a copy per block in shared memory,
// merged into global memory atomically). Both lower to compare-and-swap loops the same way.
bool atomic_scatter(const FuncDecision &d, int stage) {
  if (d.level != ComputeLevel::Root || stage >= int(d.tilings.size())) return false;
  return d.tilings[stage].atomic || d.tilings[stage].privatized;
}

// Whether a call at `site` sits inside some call's arguments once inlining is done, where Halide
// clamps a bounded Func alike in the store's index and in the value's copy. An input's or a
// materialized Func's call stays; an inlined Func's arguments land where its body uses them.
template <typename Inlined>
bool shielded(const PipelineDag &dag, const EnclosingCalls &site, const Inlined &inlined) {
  return std::any_of(site.begin(), site.end(), [&](const std::string &name) {
    const int g = dag.index_of(name);
    if (g < 0 || !inlined(g) || dag.funcs[g].stages.empty()) return true;
    const std::vector<EnclosingCalls> &uses = dag.funcs[g].stages.at(0).argument_uses;
    return std::all_of(uses.begin(), uses.end(), [&](const EnclosingCalls &use) { return shielded(dag, use, inlined); });
  });
}

}  // namespace

bool atomic_update_lowers_to_cas(const PipelineDag &dag, const ScheduleState &state, int func, int stage,
                                 int candidate, const FuncDecision *candidate_decision) {
  auto decision = [&](int f) -> const FuncDecision * {
    if (f == candidate) return candidate_decision;
    return state.decided[f] ? &state.decisions[f] : nullptr;
  };
  auto inlined = [&](int f) {
    const FuncDecision *d = decision(f);
    return d && d->level == ComputeLevel::Inline;
  };

  auto exposed_sites = [&](const std::vector<EnclosingCalls> &sites) {
    return int64_t(std::count_if(sites.begin(), sites.end(),
                                 [&](const EnclosingCalls &site) { return !shielded(dag, site, inlined); }));
  };

  const StageNode &update = dag.funcs[func].stages[stage];
  std::map<std::string, Reach> reach;
  for (const auto &[producer, calls] : update.index_reads) {
    reach[producer].index_paths += calls;
    const auto sites = update.index_call_sites.find(producer);
    reach[producer].exposed_index_paths += sites == update.index_call_sites.end() ? calls : exposed_sites(sites->second);
    reach[producer].parents.insert("#index");
  }
  for (const ProducerAccess &a : update.accesses)
    if (!a.is_pointwise && reach.count(a.producer)) reach[a.producer].computed_arguments = true;
  for (const auto &[producer, calls] : update.increment_reads) {
    reach[producer].increment_paths += calls;
    reach[producer].parents.insert("#increment");
  }
  // Substitute inlined Funcs, consumers before producers (dag.funcs is producers first).
  for (int g = func - 1; g >= 0; g--) {
    auto it = reach.find(dag.funcs[g].name);
    if (it == reach.end() || !inlined(g) || dag.funcs[g].stages.empty()) continue;
    const Reach here = it->second;
    const StageNode &body = dag.funcs[g].stages[0];
    for (const ProducerAccess &a : body.accesses) {
      Reach &r = reach[a.producer];
      r.index_paths += here.index_paths * a.calls_per_point;
      const auto sites = body.call_sites.find(a.producer);
      r.exposed_index_paths +=
          here.exposed_index_paths * (sites == body.call_sites.end() ? a.calls_per_point : exposed_sites(sites->second));
      r.increment_paths += here.increment_paths * a.calls_per_point;
      r.parents.insert(dag.funcs[g].name);
      r.computed_arguments = r.computed_arguments || !a.is_pointwise;
    }
  }

  for (const auto &[name, r] : reach) {
    if (r.index_paths == 0) continue;
    // The same producer called from two definitions now in one expression (or from the index and
    // the increment): identical calls, which CSE lifts into lets on each side separately.
    if (r.parents.size() > 1) return true;
    const int g = dag.index_of(name);
    if (g < 0) continue;  // an input buffer: Halide never clamps those
    if (inlined(g)) {
      // Its body twice in the index, or a repeated subexpression of its own definition: a let
      // again.
      if (r.index_paths > 1 || dag.funcs[g].repeats_subexpression) return true;
      // An argument it uses twice, computed at the call (a load): the computation repeats.
      if (dag.funcs[g].repeats_argument && r.computed_arguments) return true;
    } else if (decision(g) && dag.funcs[g].clamped_in_indexes && r.exposed_index_paths > 0) {
      // Materialized with bounded values: clamped inside the value's f(index), not in the store's
      // index, unless the index already reads it inside another call's arguments (random
      // pipeline 710011: a lookup in a materialized table indexed by it ran on atomic adds).
      return true;
    }
  }
  return false;
}

bool decision_breaks_atomic_add(const PipelineDag &dag, const ScheduleState &state, int func, const FuncDecision &d) {
  if (!dag.has_atomic_safe_updates) return false;
  for (int c = func + 1; c < int(dag.funcs.size()); c++) {
    if (!state.decided[c]) continue;
    for (const StageNode &s : dag.funcs[c].stages) {
      if (!s.atomic_safe || !atomic_scatter(state.decisions[c], s.index)) continue;
      // Only what this decision changes: an update already lowered to CAS by others is not its fault.
      if (atomic_update_lowers_to_cas(dag, state, c, s.index, func, &d) &&
          !atomic_update_lowers_to_cas(dag, state, c, s.index))
        return true;
    }
  }
  return false;
}

}  // namespace hlsched
