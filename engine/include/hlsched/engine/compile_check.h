// Compiling a scheduled pipeline for a target without running it: the proof that a schedule is
// valid, and the lowered program used to compare two ways of applying one schedule.
#pragma once

#include <string>

#include "Halide.h"

namespace hlsched {

struct CompiledPipeline {
  std::string lowered_stmt;  ///< the lowered program, as Halide prints it
  int gpu_kernels = 0;       ///< GPU block loop nests (kernel launches per run)
};

/// Lowers and compiles `pipeline` with whatever schedule it has for `target` (for CUDA targets,
/// through the PTX back end). Throws Halide::Error when the schedule is invalid.
CompiledPipeline compile_pipeline(const Halide::Pipeline &pipeline, const Halide::Target &target,
                                  const std::string &function_name = "hlsched_pipeline");

}  // namespace hlsched
