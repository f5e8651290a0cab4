// Test helper: a partial search state completed the plainest way the search could complete it.
#pragma once

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

}  // namespace hlsched
