// Small, reusable walks over a built Halide::Pipeline: its Funcs and its input parameters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "Halide.h"

namespace hlsched {

/// Every Function the pipeline's outputs reach (outputs included, input buffers excluded),
/// by unique Halide name.
std::map<std::string, Halide::Internal::Function> pipeline_functions(const Halide::Pipeline &pipeline);

/// The pipeline's inputs: image (buffer) and scalar Parameters referenced anywhere in its
/// definitions, by name, in a stable (name) order.
std::vector<Halide::Internal::Parameter> pipeline_input_parameters(const Halide::Pipeline &pipeline);

/// The Halide target we compile GPU schedules for by default: the newest CUDA capability
/// Halide 14 knows (the driver JIT-compiles the PTX for newer GPUs).
Halide::Target default_gpu_target();

/// The host CPU target without AVX-512. Halide 14 maps some AVX-512 CPUs (AMD Zen 4, for one) to
/// feature sets they lack (avx512_sapphirerapids) and its JIT code then dies with SIGILL.
Halide::Target safe_host_target();

}  // namespace hlsched
