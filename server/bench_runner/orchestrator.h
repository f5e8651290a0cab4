// The runner's parent process: it never touches the GPU itself. It starts one child process to
// measure the device (copy bandwidth, device facts), then, app by app, child processes that
// measure the app's variants (app_run.h). A child that crashes, hangs past its time limit or
// stops after a failed variant only costs that variant: the next child continues with the rest.
// The results file is rewritten after every app, so a run cut short still leaves what it measured.
//
// Results JSON (format "hlsched-bench-results-v1"):
//   { "format", "started", "finished", "seconds", "complete": bool,
//     "manifest": {...the bundle's manifest...},
//     "device": {...}, "copy_bandwidth": {"bytes_moved", "milliseconds", "gb_per_s"},
//     "options": {...how it was measured...},
//     "variants": [ {"function", "app", "label", "status": "ok" | "failed" | "not_compiled" |
//                    "skipped", "error"?, "runtime_ms": {median, min, max, mean, p10, p90, count},
//                    "samples_ms", "check": {"reference", "ok", "outputs"?},
//                    "kernel_trace": {"calls", "busy_ms", "kernels": [{name, func, stage,
//                    launches_per_call, ms, grid, block, ...}]} | {"error"},
//                    "input_sets", "working_set_bytes", "input_bytes", "output_bytes",
//                    "arguments"} ] }
#pragma once

#include <string>
#include <vector>

#include "app_run.h"
#include "manifest.h"

namespace hlsched::bench {

struct RunOptions {
  AppRunOptions app;
  std::vector<std::string> apps;  ///< empty: every app of the manifest
  double time_budget_s = 270;     ///< apps not started within it are recorded as skipped
  double app_timeout_s = 120;     ///< per child process
  std::string output_path = "results.json";
  std::string scratch_dir;        ///< for records and reference outputs (default: a temp dir)
  /// Each app's variants measured last to first: a variant run right after another of the same
  /// app can run slower (up to 20% for pipelines under 0.1 ms on an H100), so an A/B compares
  /// runs in both orders. The first variant measured owns the reference outputs.
  bool reverse_variants = false;
};

/// Measures everything and writes options.output_path. Returns 0 when every compiled variant
/// was measured and matched its reference, 1 otherwise (the results say what happened).
int run_benchmark(const Manifest &manifest, const std::string &self_executable, const RunOptions &options);

/// What the child processes receive on their command line besides the task.
std::vector<std::string> child_arguments(const RunOptions &options);

}  // namespace hlsched::bench
