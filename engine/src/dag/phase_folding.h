// Loops whose phase picks what a point computes, and what a point costs once that phase is known.
//
// A Bayer demosaic writes demosaiced(x, y, c) = select(c == 0, red, c == 1, green, blue) with
// red = select(y % 2 == 1, select(x % 2 == 1, ...), ...). As written every point computes every
// branch: on the GPU a select evaluates both sides. Unrolled inside each thread over whole
// periods, from a start the compiler knows (align_bounds(x, 2) on the Func, or coordinates its
// consumers fix: demosaiced(x, y, 0)), each unrolled copy simplifies to its own branch. Halide 14's
// PTX for camera_pipe's demosaic over a 2x2 quad per thread: 20 global loads instead of 72.
#pragma once

#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

/// Fills the phase loops of `node`'s pure stage and its folded counts (StageNode::phase_loops,
/// StageNode::folded), from its definition, region and FuncNode::fixed_dims.
void describe_phase_loops(const Halide::Internal::Function &f, FuncNode &node);

/// Fills StageNode::unrolled_jointly of `node`'s update stages (needs FuncNode::constant_dims and
/// the region).
void describe_unrolled_updates(const Halide::Internal::Function &f, FuncNode &node);

}  // namespace hlsched
