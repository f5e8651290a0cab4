// Ahead-of-time compilation of benchmark variants with GenGen (our hlsched-gengen, which loads a
// generator built by engine/loader), as static libraries the runner links:
//   <out>/<function>.a                  the pipeline, compiled for the target with no_runtime
//   <out>/<function>.registration.o     registers it with the runner (halide_register_argv_...)
//   <out>/<function>.schedule.h         what an autoscheduler plugin chose, for people to read
// and one Halide runtime for all of them (compile_runtime).
//
// Threading: both functions may run concurrently (each call runs its own child processes).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_variant.h"

namespace hlsched::server::bench {

struct AotToolchain {
  std::filesystem::path gengen;  ///< hlsched-gengen
  std::string compiler = "g++";  ///< for the registration files
  std::string target;            ///< Halide target of every variant, without no_runtime
  std::chrono::seconds time_limit{900};  ///< per GenGen run (a deep pipeline can take minutes)
  /// Resume a bundle build cut short: keep a variant that an earlier build of the same folder
  /// compiled with the same GenGen command (<function>.command records it; the generator's
  /// shared object may differ, as when random pipelines are packed differently).
  bool reuse_previous = false;
};

struct AotResult {
  bool ok = false;
  std::string error;           ///< the last lines of the tool's output, when it failed
  std::vector<std::filesystem::path> link_inputs;  ///< what the runner links (objects first)
  std::filesystem::path schedule_file;             ///< autoscheduled variants; may not exist
  double seconds = 0;
  std::string command_line;
};

/// Compiles one variant whose generator is in `generator_library` (built by build_generator).
AotResult compile_variant(const BenchVariant &variant, const std::filesystem::path &generator_library,
                          const AotToolchain &toolchain, const std::filesystem::path &out_dir);

/// Compiles the Halide runtime for the toolchain's target (named halide_runtime).
AotResult compile_runtime(const AotToolchain &toolchain, const std::filesystem::path &out_dir);

}  // namespace hlsched::server::bench
