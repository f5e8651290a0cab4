// Which phase loops (dag/phase_folding.h) of the Funcs computed in one kernel each thread's
// unrolled copies fold, and what the schedule must state for the compiler to fold them.
//
// A kernel's thread runs `serial` points along a tiled loop unrolled, from a start that is a
// multiple of `serial` once the loop's start is: the compiler then knows each copy's coordinate
// modulo `serial`. Funcs inlined into the kernel read coordinates of the form k * x + b, whose
// residues follow (x / 2 in a downsampling, x + 1 in a stencil). The kernel states the start:
// `align_bounds` on a Func computed at root (where the region under the estimates is already
// aligned: elsewhere it would compute and read past its region), `specialize` on an output's
// buffer origin (the other origins run the unfolded code). A loop run whole in each thread is
// known by value where consumers read the Func at constant coordinates.
#pragma once

#include <map>
#include <string>

#include "hlsched/engine/pipeline_dag.h"
#include "search/schedule_state.h"

namespace hlsched {

struct FoldedPhases {
  /// The kernel's Func, or a Func inlined into it -> its folded phase loops (a bitmask over its
  /// pure stage's StageNode::phase_loops; absent: none).
  std::map<int, unsigned> masks;
  /// The kernel's loops (Var names) whose start must be known modulo this.
  std::map<std::string, int> alignment;
  bool any() const { return !masks.empty(); }
  /// Func `f`'s counts with its folded phases known, or nullptr.
  const FoldedStage *counts(const PipelineDag &dag, int f) const;
};

/// The phase loops folded in the kernel of Root Func `root`'s stage `stage` (only pure stages
/// fold: phase loops are found in pure definitions).
FoldedPhases folded_phases(const PipelineDag &dag, const ScheduleState &state, int root, int stage);

}  // namespace hlsched
