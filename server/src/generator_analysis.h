// Running one analysis of a generator source, isolated from the caller: compile the source into a
// shared object (cached), then build and analyze its pipeline in a worker process with time and
// memory limits. Every way user code can fail comes back as a status with a clear message.
//
// Threading: analyze_generator() may be called from several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/generator_build.h"

namespace hlsched::server {

struct AnalysisRequest {
  std::filesystem::path source;
  std::string task = "schedule";  ///< "schedule", "candidates", "dag", "lower", "apply", ... (see worker_main.h)
  std::string generator;
  std::map<std::string, std::string> params;
  std::string gpu_profile = "h200";
  AutoschedulerOptions search;  ///< the knobs (gpu_profile above takes precedence)
  std::string target;
  bool verify = false;
  std::string stmt_path;
  std::string schedule_path;  ///< "apply": the schedule JSON to apply
  std::string decisions_path; ///< "schedule": a schedule's saved decisions, rebuilt with no search
  int sample_count = 1;       ///< "sample"; "candidates": how many schedules
  uint64_t sample_seed = 0;   ///< "sample"
  int sample_first = 0;       ///< "sample": index of the first random walk
  std::chrono::milliseconds time_limit{60000};  ///< for building the pipeline and scheduling it
  std::size_t memory_limit_bytes = 0;
  std::filesystem::path cache_dir;
  std::vector<std::string> extra_compile_flags;
  const std::atomic<bool> *cancel = nullptr;
  /// Called on the calling thread once the generator is built, before its worker starts (the
  /// language server reports "building" then "searching" progress with it). Optional.
  std::function<void()> on_built;
};

struct AnalysisOutcome {
  enum class Status { Ok, CompileError, Crashed, TimedOut, Cancelled, UserError, InternalError };
  Status status = Status::InternalError;
  nlohmann::json result;         ///< the worker's result (Ok)
  std::string error_kind;        ///< "compile_error", "crash", "timeout", "missing_estimates", ...
  std::string message;           ///< for people, complete on its own
  std::vector<CompilerDiagnostic> diagnostics;  ///< CompileError
  std::string worker_stderr;     ///< what user code printed, for context
  double build_seconds = 0;
  double worker_seconds = 0;
  bool build_cache_hit = false;

  bool ok() const { return status == Status::Ok; }
};

AnalysisOutcome analyze_generator(const AnalysisRequest &request);

/// "key=value" -> {key, value}; throws std::invalid_argument on a missing '='.
std::pair<std::string, std::string> parse_param(const std::string &text);

}  // namespace hlsched::server
