// The loop nest a ScheduleSpec makes, as canonical text.
//
// Two specs that say the same thing differently (a reorder naming a loop that is already where it
// would go, as state_to_spec's reorders do since they list the extra block loops) give the same
// lines; two that make different loop nests give different lines. The dataset fidelity check uses
// it to ask whether a stored schedule, rebuilt with today's code, is still the one measured.
#pragma once

#include <string>
#include <vector>

#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// One line per Func (its compute level) and per scheduled stage: where it is computed, the
/// loops innermost first with how each runs (serial, block, thread, unrolled, vectorized), the
/// splits and fuses that made them, and the other directives. Loops are simulated the way
/// Halide 14's Stage methods edit a stage's dimension list, starting from the DAG's loops.
std::vector<std::string> loop_nest_lines(const PipelineDag &dag, const ScheduleSpec &spec);

/// `spec` without its stages' schedules for outputs of whole tiles (each run of directives from a
/// SpecializeStage to its EndSpecialization): the general schedule, the one that runs for other
/// sizes, and the whole schedule of anything measured before those existed (session 29).
ScheduleSpec without_whole_tile_schedules(ScheduleSpec spec);

/// How a schedule rebuilt today differs from the stored one that was measured.
struct LoopNestComparison {
  /// loop_nest_lines that only one side has: "measured: <line>" or "rebuilt:  <line>".
  std::vector<std::string> differing;
  /// The rebuilt schedule only adds schedules for whole tiles to one measured before they
  /// existed: its general schedule is the one measured (and `differing` is empty).
  bool whole_tiles_added = false;
};
LoopNestComparison compare_loop_nests(const PipelineDag &dag, const ScheduleSpec &measured,
                                      const ScheduleSpec &rebuilt);

}  // namespace hlsched
