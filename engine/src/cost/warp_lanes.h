// Which lanes of a thread block issue a stage's instructions when the stage's thread loops are
// shorter than the block (Funcs fused per block grow the block past their consumer's threads).
#pragma once

#include <vector>

namespace hlsched {

/// Lanes of the warps holding at least one thread of a stage whose thread loops have extents
/// `active` (per thread dimension, from 0; Halide guards each loop to its extent) in a launched
/// block of extents `block` (3 each): the lanes that issue the stage's instructions. Warps with
/// no active thread skip the stage.
double warp_lanes_touched(const std::vector<double> &active, const std::vector<double> &block, double warp_size);

}  // namespace hlsched
