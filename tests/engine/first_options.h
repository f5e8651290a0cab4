// Test helper: a partial search state completed the plainest way the search could complete it.
#pragma once

#include <optional>

#include "hlsched/engine/gpu_profile.h"
#include "hlsched/engine/pipeline_dag.h"
#include "search/decision_options.h"
#include "search/schedule_state.h"

namespace hlsched {

/// Decides every Func `state` leaves undecided at its first option, consumers first (the order
/// the search decides in, so each Func's options see its consumers' decisions).
inline void decide_rest_at_first_options(const PipelineDag &dag, ScheduleState &state, const GpuProfile &gpu) {
  for (int f = int(dag.funcs.size()) - 1; f >= 0; f--)
    if (!state.decided[f]) state.decide(f, decision_options(dag, state, f, gpu, OptionLimits{}).front());
}

/// The schedule with `f` decided as `d`, `out` at its first standalone option, and every other
/// Func at its first option, consumers first (as the search decides).
inline ScheduleState decided_with(const PipelineDag &dag, int out, int f, const FuncDecision &d,
                                  const GpuProfile &gpu) {
  ScheduleState state(dag);
  state.decide(out, standalone_options(dag, out, gpu, OptionLimits{}).front());
  state.decide(f, d);
  decide_rest_at_first_options(dag, state, gpu);
  return state;
}

/// The first of `f`'s standalone options computed at root whose first stage's tiling `wanted`
/// accepts (how a test pins a kernel's tiling), or nothing.
template <typename Wanted>
std::optional<FuncDecision> root_option_where(const PipelineDag &dag, int f, const GpuProfile &gpu, Wanted wanted) {
  for (const FuncDecision &d : standalone_options(dag, f, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && !d.tilings.empty() && wanted(d.tilings.front())) return d;
  return std::nullopt;
}

/// One point per thread in 32x8 threads: the tiling the fused-per-block tests build on.
inline bool one_point_per_thread_32x8(const StageTiling &t) {
  return t.threads.size() == 2 && t.threads[0] == 32 && t.threads[1] == 8 && t.serial[0] == 1 && t.serial[1] == 1;
}

}  // namespace hlsched
