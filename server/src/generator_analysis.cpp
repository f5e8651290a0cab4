#include "generator_analysis.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "hlsched/engine/worker_process.h"
#include "search_options_cli.h"
#include "worker_main.h"

namespace hlsched::server {

using nlohmann::json;
using Status = AnalysisOutcome::Status;

namespace {

std::string tail(const std::string &text, size_t max_chars = 4000) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

std::string compile_error_message(const std::filesystem::path &source, const GeneratorBuild &build) {
  std::ostringstream out;
  out << "the generator " << source.string() << " does not compile";
  if (!build.error.empty()) out << ": " << build.error;
  out << "\n";
  for (const CompilerDiagnostic &d : build.diagnostics) {
    if (d.severity == "note") continue;
    out << d.file;
    if (d.line) out << ":" << d.line << ":" << d.column;
    out << ": " << d.severity << ": " << d.message << "\n";
  }
  if (build.diagnostics.empty()) out << tail(build.compiler_output);
  return out.str();
}

std::vector<std::string> worker_argv(const AnalysisRequest &request, const std::string &library,
                                     const std::string &result_path) {
  std::vector<std::string> argv = {own_image_path().string(), "worker", "--task", request.task,
                                   "--library", library, "--result", result_path,
                                   "--gpu", request.gpu_profile};
  for (const std::string &arg : search_option_args(request.search)) argv.push_back(arg);
  if (!request.generator.empty()) argv.insert(argv.end(), {"--generator", request.generator});
  for (const auto &[k, v] : request.params) argv.insert(argv.end(), {"--param", k + "=" + v});
  if (!request.target.empty()) argv.insert(argv.end(), {"--target", request.target});
  if (!request.stmt_path.empty()) argv.insert(argv.end(), {"--stmt-out", request.stmt_path});
  if (!request.schedule_path.empty()) argv.insert(argv.end(), {"--schedule", request.schedule_path});
  if (!request.decisions_path.empty()) argv.insert(argv.end(), {"--decisions", request.decisions_path});
  if (request.verify) argv.push_back("--verify");
  if (request.task == "candidates") argv.insert(argv.end(), {"--count", std::to_string(request.sample_count)});
  if (request.task == "sample")
    argv.insert(argv.end(), {"--count", std::to_string(request.sample_count), "--sample-seed",
                             std::to_string(request.sample_seed), "--sample-first",
                             std::to_string(request.sample_first)});
  return argv;
}

std::filesystem::path temporary_result_path() {
  static std::atomic<int> counter{0};
  return std::filesystem::temp_directory_path() /
         ("hlsched-result-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".json");
}

json read_json_file(const std::filesystem::path &path) {
  std::ifstream in(path);
  if (!in) return json();
  try {
    return json::parse(in);
  } catch (const json::exception &) {
    return json();
  }
}

struct WorkerRun {
  WorkerOutcome run;
  json result;  ///< null when the worker left no readable result
};

// One worker process on the built generator; its result file is removed whatever happens.
WorkerRun run_analysis_worker(const AnalysisRequest &request, const GeneratorBuild &build) {
  const std::filesystem::path result_path = temporary_result_path();
  WorkerLimits limits;
  limits.time_limit = request.time_limit;
  limits.memory_limit_bytes = request.memory_limit_bytes;
  limits.cancel = request.cancel;
  WorkerRun w;
  w.run = run_worker(worker_argv(request, build.shared_object.string(), result_path.string()), limits);
  w.result = read_json_file(result_path);
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);
  return w;
}

// Failures that a damaged .so causes as well as a bug in the user's code: a crash or an exit
// without a result, a library that does not load. (Time limits, cancellation and errors the
// worker explained are not retried.)
bool may_be_a_damaged_build(const AnalysisOutcome &outcome, const WorkerOutcome &run) {
  if (outcome.error_kind == "load") return true;
  if (outcome.error_kind != "crash") return false;
  // Killed from outside (SIGKILL from the OOM killer or a person) says nothing about the binary.
  return run.kind != WorkerOutcome::Kind::Signaled || is_crash_signal(run.signal);
}

void interpret_worker(const WorkerRun &worker, AnalysisOutcome &outcome, const AnalysisRequest &request) {
  const WorkerOutcome &run = worker.run;
  const json &result = worker.result;
  outcome.worker_seconds = run.seconds;
  outcome.worker_stderr = tail(run.stderr_text);
  switch (run.kind) {
    case WorkerOutcome::Kind::Signaled:
      outcome.status = Status::Crashed;
      outcome.error_kind = "crash";
      outcome.message = "the generator crashed with " + run.signal_name + " while building its pipeline (" +
                        run.describe() + ")";
      if (run.signal == SIGKILL && request.memory_limit_bytes > 0)
        outcome.message += "; nothing in hlsched sends SIGKILL here: the system may have run out of memory";
      if (!outcome.worker_stderr.empty()) outcome.message += "\n" + outcome.worker_stderr;
      return;
    case WorkerOutcome::Kind::TimedOut:
      outcome.status = Status::TimedOut;
      outcome.error_kind = "timeout";
      outcome.message = "the generator did not finish within " +
                        std::to_string(request.time_limit.count() / 1000.0).substr(0, 5) +
                        " s (change the limit with --timeout SECONDS)";
      return;
    case WorkerOutcome::Kind::Cancelled:
      outcome.status = Status::Cancelled;
      outcome.error_kind = "cancelled";
      outcome.message = "cancelled";
      return;
    case WorkerOutcome::Kind::FailedToStart:
      outcome.status = Status::InternalError;
      outcome.error_kind = "internal";
      outcome.message = "could not start the worker process: " + run.error;
      return;
    case WorkerOutcome::Kind::Exited: break;
  }
  if (run.exit_code == kWorkerOk && result.is_object()) {
    outcome.status = Status::Ok;
    outcome.result = result;
    return;
  }
  if (result.is_object() && result.contains("error")) {
    outcome.error_kind = result["error"].value("kind", "internal");
    outcome.message = result["error"].value("message", "unknown error");
    outcome.status = run.exit_code == kWorkerUserError ? Status::UserError : Status::InternalError;
    return;
  }
  if (run.exit_code == kWorkerOk || run.exit_code == kWorkerUserError || run.exit_code == kWorkerInternalError) {
    // The worker says it finished, but its result file is missing or not JSON (a full temporary
    // directory, or something overwrote it): not the user's fault.
    outcome.status = Status::InternalError;
    outcome.error_kind = "internal";
    outcome.message = "the worker finished (" + run.describe() + ") but its result is missing or unreadable";
    if (!outcome.worker_stderr.empty()) outcome.message += "\n" + outcome.worker_stderr;
    return;
  }
  // The user's code called exit() or similar before we could report anything.
  outcome.status = Status::Crashed;
  outcome.error_kind = "crash";
  outcome.message = "the generator exited with status " + std::to_string(run.exit_code) +
                    " while building its pipeline";
  if (!outcome.worker_stderr.empty()) outcome.message += "\n" + outcome.worker_stderr;
}

// The outcome of a build that failed: the compiler's diagnostics (build time already recorded).
AnalysisOutcome compile_error_outcome(const AnalysisRequest &request, const GeneratorBuild &build,
                                      AnalysisOutcome outcome) {
  outcome.status = Status::CompileError;
  outcome.error_kind = "compile_error";
  outcome.diagnostics = build.diagnostics;
  outcome.message = compile_error_message(request.source, build);
  return outcome;
}

}  // namespace

std::pair<std::string, std::string> parse_param(const std::string &text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("expected key=value, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

AnalysisOutcome analyze_generator(const AnalysisRequest &request) {
  AnalysisOutcome outcome;
  if (!std::filesystem::exists(request.source)) {
    outcome.status = Status::UserError;
    outcome.error_kind = "no_such_file";
    outcome.message = "no such file: " + request.source.string();
    return outcome;
  }

  GeneratorBuildOptions build_options;
  build_options.compiler = default_generator_compiler();
  build_options.cache_dir = request.cache_dir;
  build_options.extra_flags = request.extra_compile_flags;
  build_options.cancel = request.cancel;
  GeneratorBuild build = build_generator(std::filesystem::absolute(request.source), build_options);
  outcome.build_seconds = build.seconds;
  outcome.build_cache_hit = build.cache_hit;
  if (!build.ok) return compile_error_outcome(request, build, outcome);
  if (request.on_built) request.on_built();

  const WorkerRun first = run_analysis_worker(request, build);
  interpret_worker(first, outcome, request);
  if (build.cache_hit && may_be_a_damaged_build(outcome, first.run)) {
    // A cached build passed its checksum but the worker could not load or run it. Before blaming
    // the user's code, build it afresh (replacing the cached file) and try once more.
    spdlog::warn("the worker failed on the cached build {} ({}); rebuilding it once", build.shared_object.string(),
                 outcome.error_kind);
    build_options.rebuild = true;
    build = build_generator(std::filesystem::absolute(request.source), build_options);
    outcome = AnalysisOutcome{};
    outcome.build_seconds = build.seconds;
    if (!build.ok) return compile_error_outcome(request, build, outcome);
    interpret_worker(run_analysis_worker(request, build), outcome, request);
  }
  return outcome;
}

}  // namespace hlsched::server
