// Helpers shared by the tests that run pipelines on the CPU and compile them for CUDA.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/generator_instance.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/pipeline_walk.h"

namespace hlsched::testing {

/// The host CPU target, for running pipelines in tests (CI has no GPU). With strict_float, so
/// that schedules that inline differently still round identically (no FMA contraction), and
/// float outputs can be compared exactly.
Halide::Target cpu_target();

/// `compute_root()` on every Func of the pipeline, serial loops: a simple reference schedule
/// that cannot blow up compile time the way inlining everything can.
void schedule_compute_root_everywhere(const Halide::Pipeline &pipeline);

/// Binds a buffer to the pipeline's input of that name (throws if there is none).
void bind_input(const Halide::Pipeline &pipeline, const std::string &name, const Halide::Buffer<> &buffer);

/// Binds a scalar input parameter by name.
template <typename T>
void bind_scalar(const Halide::Pipeline &pipeline, const std::string &name, T value);

/// Lowers and compiles the pipeline (with whatever schedule it has) to a CUDA module and returns
/// the lowered statement text. Throws Halide::Error on an invalid schedule.
std::string compile_for_cuda(const Halide::Pipeline &pipeline);

/// True when a lowered statement launches at least one GPU kernel.
bool launches_gpu_kernels(const std::string &lowered_stmt);

/// The thread counts of every kernel launch in a lowered program (halide_cuda_run's 6th-8th
/// arguments, three per launch), as written: a number, or the expression Halide computes at run
/// time. With `kernel`, only the launches whose call names a kernel containing it.
std::vector<std::string> launch_thread_extents(const std::string &lowered_stmt, const std::string &kernel = "");
/// Whether a launch extent of launch_thread_extents is a constant (digits only).
bool is_number(const std::string &extent);
/// Threads per block of every kernel launch (the product of its three extents), or -1 for a
/// launch whose extents are not all constants; throws std::logic_error when the program's
/// launches do not come in threes.
std::vector<int64_t> launch_block_threads(const std::string &lowered_stmt);

/// How many bytes of two outputs differ: exact comparison, floats included (cpu_target() keeps
/// float arithmetic as written). Throws std::invalid_argument when their sizes differ.
int64_t count_differences(const Halide::Buffer<> &a, const Halide::Buffer<> &b);

/// A buffer filled with uniform random values in [lo, hi] (integers) or [lo, hi) (floats).
template <typename T>
Halide::Buffer<T> random_buffer(std::vector<int> sizes, uint32_t seed, double lo, double hi) {
  Halide::Buffer<T> buffer(sizes);
  std::mt19937 rng(seed);
  buffer.for_each_value([&](T &v) {
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(std::uniform_real_distribution<double>(lo, hi)(rng));
    } else {
      v = static_cast<T>(std::uniform_int_distribution<int64_t>(static_cast<int64_t>(lo), static_cast<int64_t>(hi))(rng));
    }
  });
  return buffer;
}

/// A 2-D float input named "in" whose estimates are 512 x 512: the input of most small test
/// pipelines.
Halide::ImageParam float_input_512x512();

/// The DAG index of the Func a test named `name`, also when Halide renamed it because an earlier
/// test of the process took the name ("name$1"); -1 when there is none.
int func_named(const PipelineDag &dag, const std::string &name);

}  // namespace hlsched::testing
