// The loops of a stage as its algorithm defines them, whatever schedule the Func already has.
//
// The search plans every stage from its unscheduled loop nest. A generator that already has a
// schedule (a hand-written one, or our own suggestion pasted into schedule()) has replaced
// those loops in Halide's Definition with split, renamed, fused and reordered ones (x.xo, x.xi,
// __block_id_x...): reading them would describe a stage of one point with loops the definition's
// expressions never mention. These are the loops Halide gives a definition before scheduling.
#pragma once

#include <vector>

#include "Halide.h"

namespace hlsched {

/// Innermost first, without Halide's `__outermost`. A pure definition: its Func's args in order.
/// An update: its reduction variables (in RDom order), then the args that stay pure Vars.
std::vector<Halide::Internal::Dim> algorithm_loops(const Halide::Internal::Function &f,
                                                   const Halide::Internal::Definition &def, bool is_update);

}  // namespace hlsched
