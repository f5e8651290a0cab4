// How a Func's coordinates inside one kernel follow the kernel's loops, path by path.
//
// Halide sizes a Func fused into a kernel (per block or per thread) by the bounding box of
// everything the block reads of it. Read along one path, or along several that agree up to a
// constant (a stencil's taps), that box is the same size in every block. Read along paths that
// move differently with the block (random pipeline 400144: `matmul_2(x, y)` and, through an
// inlined transpose, `matmul_2(y * 4 / 3, x * 3 / 4)`), the two reads drift apart from block to
// block, and the box of the farthest block spans most of the Func: Halide allocated it in
// shared memory for every block and the launch failed (CUDA_ERROR_INVALID_VALUE on the H200).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

/// One way a coordinate moves with the kernel: a coefficient per loop (the kernel stage's loops
/// by name; a fused Func's own reduction loops as "Func:var"). Empty: a constant coordinate.
using LoopCoefficients = std::map<std::string, double>;

/// The ways one dimension of a Func is read in a kernel.
struct DimPaths {
  std::set<LoopCoefficients> seen;
  bool unknown = false;  ///< a non-affine read (a clamp, a gather) or too many paths to follow

  /// Reads that drift apart from block to block: the Func's box there is not a constant size.
  bool drifts() const { return !unknown && seen.size() > 1; }
  void merge(const DimPaths &other);
};

/// Whether Halide's printing of an index expression mentions the variable `name`.
bool text_mentions(const std::string &text, const std::string &name);

/// The kernel's own stage: each of its arguments follows its own loop.
std::vector<DimPaths> identity_paths(const std::vector<std::string> &args);

/// The paths along which access `a` of a stage of `consumer` (whose own arguments are read along
/// `consumer_paths`) reads each dimension of its producer. `consumer_is_root`: the consumer is
/// the kernel's stage, whose reduction loops are loops of the kernel. A boundary condition's
/// clamped index (a window of constant size around one argument) follows that argument as if
/// unclamped: inside the image it is the argument itself.
std::vector<DimPaths> compose_paths(const FuncNode &consumer, bool consumer_is_root,
                                    const std::vector<DimPaths> &consumer_paths, const ProducerAccess &a);

}  // namespace hlsched
