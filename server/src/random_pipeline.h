// Random Halide pipelines for training and stress tests (`hlsched random-pipeline`).
//
// Writes C++ text, not Halide IR: the result is an ordinary Halide 14 generator source (one .cpp,
// generator name "random_pipeline") that `hlsched schedule` and GenGen accept. The DAG mixes
// pointwise arithmetic of mixed types and casts, stencils of several shapes, down- and
// up-sampling, transposes, reductions over RDoms (update definitions), histograms (scatters),
// lookup tables (gathers through clamped data-dependent indices), several inputs and outputs,
// boundary conditions, at sizes from 8x8 to 8K. Every input and output has estimates.
//
// Validity by construction: inputs are only read through boundary conditions, every
// data-dependent index is clamped, integers are only divided by positive constants, every
// operand is cast to one working type, and pointwise expressions use each operand once (so
// inlining chains of them stays linear in size).
//
// Determinism: the same options give the same bytes on every platform and standard library
// (std::mt19937_64 with our own integer mappings; no floating-point randomness; no iteration
// over unordered containers). Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <string>

namespace hlsched::server {

/// The writer's versions. A seed writes the same file under the same version forever (the
/// datasets rebuild their pipelines from it); what a newer writer makes differently:
///   1  the datasets of 2026-12-01 and 2026-12-02
///   2  a channel mix is a layer: its sum over the input channels is a Func of its own, read
///      pointwise by an activation (`max(sum + bias, 0)`), and mixes into 8-32 channels are
///      common (a pointwise convolution of a network, the kernels register tiles are for)
constexpr int kRandomPipelineWriterVersion = 2;

struct RandomPipelineOptions {
  uint64_t seed = 0;
  /// Steps of the random DAG, each defining one Func (a boundary condition or an inline
  /// reduction a step makes along the way is part of that step).
  int stages = 12;
  /// Which writer (kRandomPipelineWriterVersion's list): 1..kRandomPipelineWriterVersion.
  int writer_version = kRandomPipelineWriterVersion;
};

constexpr int kMaxRandomPipelineStages = 500;

/// The generator source. Throws std::invalid_argument when stages is outside
/// [1, kMaxRandomPipelineStages].
std::string random_pipeline_source(const RandomPipelineOptions &options);

}  // namespace hlsched::server
