// `hlsched bench`: builds a self-contained benchmark bundle for the GPU machine.
//
//   <output_dir>/bench.tar.xz   hlsched-bench-runner (all variants + one Halide runtime linked
//                               in, libstdc++ static: needs only libc and the NVIDIA driver),
//                               manifest.json, lib/libcupti.so (when one was found)
//   <output_dir>/run.sh         unpacks the archive into /tmp and runs it: the one command the
//                               GPU machine needs (`bash .bundle/run.sh [runner options]`)
//   <work_dir>/                 intermediate files: per-variant static libraries, the schedules
//                               the plugins chose (<function>.schedule.h), build logs
//
// The steps: build each generator once (engine/loader's cache), predict hlsched's runtime where
// asked (`hlsched schedule` in a worker), AOT-compile every variant and the runtime in parallel
// (aot_compile.h), link the runner, check it (its --dry-run validates every variant's metadata;
// ldd must show no Halide or LLVM), write the manifest, compress.
//
// A variant that fails to compile does not fail the bundle: the manifest records its error and
// the results list it as not compiled. The build fails when nothing compiled, or the runner does
// not link or does not pass its checks.
//
// Threading: build_bundle() uses options.jobs threads internally; call it from one thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "bench/aot_compile.h"
#include "bench/bench_variant.h"
#include "generator_analysis.h"

namespace hlsched::server::bench {

struct BundleOptions {
  std::vector<BenchVariant> variants;
  AotToolchain toolchain;
  std::filesystem::path output_dir = ".bundle";
  std::filesystem::path work_dir;  ///< default: <output_dir>.work
  int jobs = 2;
  std::filesystem::path runner_library;  ///< the runner's static library (CMake-built)
  std::filesystem::path cupti_library;   ///< libcupti.so to carry; empty: none
  std::filesystem::path cache_dir;       ///< generator builds; default: engine's default
  std::string gpu_profile = "h200";      ///< for predictions
  std::string strategy;                  ///< for predictions; empty: the CLI's default
  /// Per app, per input buffer: the range of generated values (default: by type).
  std::map<std::string, std::map<std::string, std::pair<double, double>>> input_ranges;
  /// Called with a line of progress, possibly from several of the builder's threads at once.
  std::function<void(const std::string &)> progress = [](const std::string &) {};
  /// Called with each predicted variant's index and the whole result of `hlsched schedule`
  /// (or of the sample) behind its prediction, possibly from several threads at once.
  std::function<void(size_t, const nlohmann::json &)> on_prediction = [](size_t, const nlohmann::json &) {};
};

struct BundleSummary {
  bool ok = false;
  std::string error;  ///< when not ok
  int compiled = 0, failed = 0;
  std::filesystem::path archive, run_script, runner;
  std::uintmax_t archive_bytes = 0;
  double seconds = 0;
  std::vector<std::string> warnings;  ///< failed variants, missing CUPTI, failed predictions
};

BundleSummary build_bundle(const BundleOptions &options);

/// Our plugin's HLSCHED_OPTIONS of `variant` ("gpu=a100,no_freeze") applied to the request that
/// predicts it, read as the plugin reads them (a key's underscores are dashes), so that the
/// prediction is for the schedule the plugin applies.
void apply_plugin_options(const BenchVariant &variant, AnalysisRequest &request);

/// The shell script that unpacks and runs a bundle (written as <output_dir>/run.sh).
std::string run_script_text();

/// Problems with an executable's dynamic dependencies (`ldd`): Halide, LLVM, anything not found.
/// Empty when it is self-contained.
std::vector<std::string> dependency_problems(const std::filesystem::path &executable);

}  // namespace hlsched::server::bench
