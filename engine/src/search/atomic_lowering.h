// Whether a schedule's atomic scatter compiles to hardware atomic adds or to a compare-and-swap
// loop. Halide 14 chooses inside its lowering, from how the update's stored index and the value's
// copy of it come out after inlining (dag/atomic_index.h has the two causes). A CAS loop on a
// histogram whose values pile into a few bins retries on one address across the whole GPU: random
// pipelines 200037 and 200124 ran for over 60 s per call on the H200 where the same update with
// adds took 1.2 ms (docs/PERFORMANCE.md, "Atomic scatters that ran for minutes").
#pragma once

#include <vector>

#include "hlsched/engine/pipeline_dag.h"
#include "search/schedule_state.h"

namespace hlsched {

/// Whether the atomic update `stage` of `func` lowers to a compare-and-swap loop in
/// `state`, with `candidate` (when not -1) taken as decided by `candidate_decision`. Undecided
/// Funcs count as materialized but are not yet held against the update (their own decision is
/// checked when it is made). Conservative: it may predict a CAS loop Halide would avoid (two
/// calls of an inlined Func at different points), never the reverse for the two causes known.
bool atomic_update_lowers_to_cas(const PipelineDag &dag, const ScheduleState &state, int func, int stage,
                                 int candidate = -1, const FuncDecision *candidate_decision = nullptr);

/// Whether deciding `func` as `d` in `state` turns a decided atomic update that reads it (directly
/// or through inlined Funcs) into a compare-and-swap loop. Privatized scatters count too: their
/// CAS loops are on shared memory, but a histogram's hot bins make every lane of a warp retry on
/// one word, and few blocks share the work (random pipeline 400141: 338 ms where adds took 1.1 ms).
bool decision_breaks_atomic_add(const PipelineDag &dag, const ScheduleState &state, int func, const FuncDecision &d);

/// Of the options for `func`, those that keep every decided atomic update on atomic adds;
/// all of them when none does. `decision_of(option)` gives an option's FuncDecision (options are
/// decisions or shared pointers to them).
template <typename Option, typename DecisionOf>
std::vector<Option> keep_atomic_adds(const PipelineDag &dag, const ScheduleState &state, int func,
                                     std::vector<Option> options, DecisionOf decision_of) {
  std::vector<Option> kept;
  for (Option &o : options)
    if (!decision_breaks_atomic_add(dag, state, func, decision_of(o))) kept.push_back(o);
  return kept.empty() ? options : kept;
}

}  // namespace hlsched
