// Measuring the variants of one app, in one process (a child of the orchestrator).
//
// For each variant, in order:
//   1. warm-up calls (module load, the driver's PTX JIT, Halide's allocation cache);
//   2. the output check: outputs poisoned, one call, outputs compared with the app's reference
//      (the first variant that got this far; its outputs are kept in files so that a later child
//      process can compare against them);
//   3. timed calls with CUDA events, rotating through the input sets, as many as the
//      RepetitionPolicy asks for; the median is the variant's runtime;
//   4. a few more calls traced by CUPTI, for per-kernel times attributed to Funcs.
// Each variant's record is appended to a JSON-lines file as soon as it is complete. After the
// first variant that fails (Halide error, CUDA error, exception) this returns: a failed
// pipeline may leave the CUDA context unusable, so the orchestrator continues with the rest in a
// fresh process.
#pragma once

#include <string>
#include <vector>

#include "manifest.h"
#include "output_check.h"
#include "sample_stats.h"

namespace hlsched::bench {

struct AppRunOptions {
  RepetitionPolicy repetitions;
  int kernel_repetitions = 3;  ///< traced calls per variant; 0: no per-kernel times
  /// The CUDA context's preferred L1/shared split (cuCtxSetCacheConfig), an experiment's knob:
  /// "none" (the driver sizes each kernel's carve-out to its blocks), "shared", "l1", "equal".
  std::string cache_config = "none";
  int64_t rotate_below_bytes = int64_t(100) << 20;  ///< rotate input sets below this working set
  int64_t rotate_target_bytes = int64_t(200) << 20; ///< ... until the sets cover this many bytes
  int max_input_sets = 16;
  FloatTolerance tolerance;
  std::string library_dir;     ///< the bundle's lib/ (libcupti.so)
  std::string reference_dir;   ///< reference outputs, shared by the app's child processes
  std::string records_path;    ///< JSON lines, appended
};

/// Returns 0 when every variant was measured, 1 when one failed (its record says why).
int run_app_variants(const Manifest &manifest, const std::string &app, const std::vector<std::string> &functions,
                     const AppRunOptions &options);

/// For --dry-run and the bundle builder: checks that every compiled variant is linked in, has
/// usable metadata, the manifest's target, and the same arguments as the other variants of its
/// app. Prints one line per variant (and its arguments per app) to stdout; returns the problems.
std::vector<std::string> check_variants(const Manifest &manifest, const std::vector<std::string> &apps, bool verbose);

}  // namespace hlsched::bench
