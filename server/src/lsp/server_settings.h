// The language server's configuration: what the editor sends in initialize's
// initializationOptions and in workspace/didChangeConfiguration, as one typed struct.
//
// The search knobs mirror hlsched::AutoschedulerOptions (engine/include/hlsched/engine/
// autoscheduler.h) field by field, with the same names as the CLI and the plugin, so that one
// name means one thing everywhere. JSON shape (either at the top level or under "hlsched"):
//
//   {"gpu_profile": "a100", "strategy": "beam", "beam_size": 32, "passes": 2,
//    "freeze": true, "sampling": true, "memo": true, "seed": 0,
//    "work_budget": 8, "time_budget_s": 30,                 // AutoschedulerOptions
//    "timeout": 60, "memory_limit_mb": 8192,                 // worker limits (CLI: --timeout)
//    "generator": "blur", "params": {"schedule": "none"},    // which generator, GeneratorParams
//    "compile_flags": ["-DFOO"], "debounce_ms": 400,
//    "trusted": true}                                        // false: build and run nothing
//
// Threading: plain value types.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hlsched::server::lsp {

/// How long the editor must be quiet after an edit before the document is analyzed again.
/// (Opening and saving a document analyze it at once.) Each analysis rebuilds the generator, so
/// analyzing on every keystroke would only start builds that the next keystroke cancels.
struct DebouncePolicy {
  std::chrono::milliseconds delay{400};
};

/// Mirrors hlsched::AutoschedulerOptions: same fields, same names, same defaults (a test checks
/// the defaults). A mirror rather than the struct itself keeps Halide.h out of the server's
/// headers; analysis_runner.cpp converts. `memo_path` is absent on purpose: the server keeps one
/// memo file per document (DocumentScheduler), it is not a user setting.
struct SearchSettings {
  std::string gpu_profile = "h200";  ///< see hlsched/engine/gpu_profile.h
  std::string strategy = "beam";     ///< "beam" or "simple"
  int beam_size = 32;
  int passes = 2;
  bool freeze = true;
  bool sampling = true;
  bool memo = true;
  std::uint64_t seed = 0;
  double work_budget = 8.0;          ///< counted work, reference seconds (search/search_work.h)
  double time_budget_s = 30.0;       ///< wall-clock limit besides
  std::string model = "both";        ///< cost model: "hand", "learned" or "both"
  std::string weights;               ///< learned model weights file (empty: embedded)
};

struct ServerSettings {
  SearchSettings search;
  double timeout_s = 60;               ///< "timeout": seconds a generator may take to build + schedule
  /// "memory_limit_mb": address-space limit (RLIMIT_AS) of the worker that runs the user's
  /// generator and the search; 0 = none. On by default in the daemon: a runaway generator must
  /// not take the editor's machine down with it (workers need well under 1 GiB for the examples).
  std::size_t memory_limit_mb = 8192;
  std::string generator;               ///< "generator": which one when a file registers several
  std::map<std::string, std::string> params;  ///< "params": GeneratorParams
  std::vector<std::string> compile_flags;     ///< "compile_flags": extra flags for the generator build
  DebouncePolicy debounce;             ///< "debounce_ms"
  /// "trusted": the workspace's code may be built and run. Analyzing a generator compiles and
  /// runs the user's code; a client in an untrusted workspace (VS Code's workspace trust) sets
  /// false, and every analysis then ends at once as a user error saying why, with nothing built.
  bool trusted = true;

  friend bool operator==(const ServerSettings &a, const ServerSettings &b);
};

/// Applies the members present in `json` (flat, or under "hlsched") over `settings`; absent
/// members keep their value. All or nothing: a member of the wrong type or an unknown GPU profile
/// throws protocol::InvalidParamsError naming it and leaves `settings` unchanged. Unknown member
/// names are returned (for a warning), not rejected: editors send whole configuration sections.
std::vector<std::string> apply_settings(const nlohmann::json &json, ServerSettings &settings);

/// The settings as JSON (the shape apply_settings reads), for logs and hlsched/schedule replies.
nlohmann::json settings_to_json(const ServerSettings &settings);

}  // namespace hlsched::server::lsp
