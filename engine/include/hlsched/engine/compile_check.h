// Compiling a scheduled pipeline for a target without running it: the proof that a schedule is
// valid, and the lowered program used to compare two ways of applying one schedule.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"

namespace hlsched {

/// One GPU kernel launch of the lowered host code.
struct KernelLaunch {
  std::string kernel;           ///< the device entry point, e.g. "_kernel_blur_s0_y_yo___block_id_y"
  /// Threads per block at the arguments' estimates, else at most (the thread extents through the
  /// host code's lets); -1 where one has neither.
  int64_t block_threads = -1;
};

struct CompiledPipeline {
  std::string lowered_stmt;  ///< the lowered program, as Halide prints it
  std::vector<KernelLaunch> launches;  ///< the GPU launches found in the host code

  /// GPU block loop nests (kernel launches per run).
  int gpu_kernels() const { return int(launches.size()); }

  /// Launches whose thread block at the estimated sizes is over `max_threads` or unknown: such a
  /// launch fails (random pipeline 770018: 256x236 threads, CUDA_ERROR_INVALID_VALUE), and none
  /// of the schedules we emit intends one.
  std::vector<KernelLaunch> unbounded_launches(int64_t max_threads = 1024) const;
};

/// Lowers and compiles `pipeline` with whatever schedule it has for `target` (for CUDA targets,
/// through the PTX back end). Throws Halide::Error when the schedule is invalid.
CompiledPipeline compile_pipeline(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                  const std::string &function_name = "hlsched_pipeline");

}  // namespace hlsched
