// The bundle's manifest.json: what was compiled, how, and what hlsched predicted. The runner
// reads it (server/bench_runner/manifest.h) and copies it into its results, so `hlsched report`
// has everything in one file.
//
//   { "format": "hlsched-bench-bundle-v1", "created", "hlsched_commit", "hlsched_tree_dirty",
//     "target", "cupti": bool,
//     "apps": { "<app>": { "source", "funcs": [...], "input_ranges": {"<input>": [lo, hi]} } },
//     "variants": [ { "function", "app", "label", "source", "generator", "params",
//                     "scheduler": {"plugin", "autoscheduler", "machine_params", "environment"},
//                     "status": "compiled" | "failed", "error"?, "compile_seconds", "command",
//                     "prediction"?: {"predicted_runtime_ms", "strategy", "gpu_profile",
//                                     "cost_model", "stages": [{func, stage, placement,
//                                     predicted_ms, bound}]} | {"error"} } ] }
#pragma once

#include <nlohmann/json.hpp>

#include "bench/aot_compile.h"
#include "bench/bench_variant.h"

namespace hlsched::server::bench {

/// The manifest entry of a variant, with how its compilation went.
nlohmann::json variant_manifest_entry(const BenchVariant &variant, const AotResult &compiled);

/// The part of an `hlsched schedule --json` result that the report compares with measurements.
nlohmann::json prediction_from_schedule_result(const nlohmann::json &result);

/// Every Func name of a schedule or dag result ("funcs" entries).
std::vector<std::string> func_names_from_result(const nlohmann::json &result);

}  // namespace hlsched::server::bench
