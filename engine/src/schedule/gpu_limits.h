// Limits of CUDA and of Halide 14's CUDA code that show only when a schedule runs (a launch that
// fails, an address that wraps), never when it compiles: the schedulers respect them themselves.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// CUDA grids: up to 2^31 - 1 blocks along x, 65535 along y and z (every compute capability
/// since 3.0).
constexpr int64_t kMaxGridBlocksX = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxGridBlocksYZ = 65535;

/// Halide 14's PTX backend computes buffer indices in 32 bits (it never widens them to 64 bits
/// on the device, whatever the target's features), and its host code refuses buffers of 2^31 or
/// more elements or bytes unless the target has `large_buffers`.
constexpr double kMaxInt32 = double(std::numeric_limits<int32_t>::max());

inline double elements_of(const std::vector<Span> &region) {
  double n = 1;
  for (const Span &s : region) n *= double(s.extent() > 0 ? s.extent() : 1);
  return n;
}

/// A Func that is not an output and whose region has more points than a 32-bit index reaches
/// (indices 0 .. 2^31 - 1): stored in global memory, its kernels would address it out of bounds.
/// It must be inlined or fused into its consumer's kernel (stored per block or thread) instead.
inline bool too_large_to_store_on_device(const FuncNode &f) {
  return !f.is_output && elements_of(f.region) > kMaxInt32 + 1;
}

/// Whether the pipeline, scheduled with `spec`, needs Halide's `large_buffers` target feature:
/// an input or output of more than 2^31 - 1 elements (Halide checks extents and strides in
/// elements), or a Func stored at root whose allocation has more than 2^31 - 1 bytes.
inline bool needs_large_buffers(const PipelineDag &dag, const ScheduleSpec &spec) {
  for (const InputNode &in : dag.inputs)
    if (in.is_buffer && elements_of(in.estimate) > kMaxInt32) return true;
  for (const FuncSchedule &fs : spec.funcs) {
    const FuncNode *f = dag.find(fs.func);
    if (!f || fs.level != ComputeLevel::Root) continue;
    const double elements = elements_of(f->region);
    if (elements > kMaxInt32 || elements * double(f->bytes_per_point()) > kMaxInt32) return true;
  }
  return false;
}

/// Inputs and outputs with more than 2^31 elements: their last elements lie beyond any 32-bit
/// index, so no schedule lets Halide 14's GPU kernels address them correctly.
inline std::vector<std::string> buffers_beyond_device_indexing(const PipelineDag &dag) {
  std::vector<std::string> names;
  for (const InputNode &in : dag.inputs)
    if (in.is_buffer && elements_of(in.estimate) > kMaxInt32 + 1) names.push_back(in.name);
  for (const FuncNode &f : dag.funcs)
    if (f.is_output && elements_of(f.region) > kMaxInt32 + 1) names.push_back(f.name);
  return names;
}

}  // namespace hlsched
