#include "lsp/document_analysis.h"
#include "util/file_text.h"

#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>

namespace hlsched::server::lsp {

namespace fs = std::filesystem;

const char *status_name(AnalysisOutcome::Status status) {
  switch (status) {
    case AnalysisOutcome::Status::Ok: return "ok";
    case AnalysisOutcome::Status::CompileError: return "compile_error";
    case AnalysisOutcome::Status::Crashed: return "crashed";
    case AnalysisOutcome::Status::TimedOut: return "timed_out";
    case AnalysisOutcome::Status::Cancelled: return "cancelled";
    case AnalysisOutcome::Status::UserError: return "user_error";
    case AnalysisOutcome::Status::InternalError: return "internal_error";
  }
  return "?";
}

double DocumentAnalysis::predicted_runtime_ms() const {
  if (!ok()) return 0;
  return outcome.result.value("predicted_runtime_ms", 0.0);
}

double DocumentAnalysis::search_ms() const {
  if (!ok() || !outcome.result.contains("search")) return 0;
  return outcome.result["search"].value("time_ms", 0.0);
}

namespace {

std::string read_file(const fs::path &path, bool &ok) {
  std::optional<std::string> text = read_file_text(path);
  ok = text.has_value();
  return text.value_or("");
}

// The build cache keys a source by its text plus the quoted headers next to it. The unsaved copy
// lives elsewhere, so those headers' contents are appended to it as a comment (after the last
// line: line numbers do not move) to keep them in the key.
std::string local_headers_stamp(const std::string &text, const fs::path &document_dir) {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re", std::regex::multiline);
  std::string contents;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
    bool ok = false;
    std::string header = read_file(document_dir / (*it)[1].str(), ok);
    if (ok) contents += (*it)[1].str() + "\n" + header + "\n";
  }
  if (contents.empty()) return "";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(contents.data(), contents.size())));
  return std::string("\n// hlsched: local headers ") + hex + "\n";
}

// Writes atomically (temporary + rename): a build reading the previous copy never sees half a file.
bool write_file_atomically(const fs::path &path, const std::string &text) {
  const fs::path temporary = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  return !ec;
}

SourceDiagnostic map_diagnostic(const CompilerDiagnostic &d, const fs::path &analyzed_file) {
  SourceDiagnostic out;
  std::error_code ec;
  out.in_document = fs::path(d.file) == analyzed_file || fs::equivalent(d.file, analyzed_file, ec);
  out.file = d.file;
  out.line = d.line;
  out.column = d.column;
  out.severity = d.severity;
  out.message = d.message;
  return out;
}

}  // namespace

AnalysisRequest make_analysis_request(const AnalysisJob &job, const fs::path &file) {
  const ServerSettings &s = job.settings;
  AnalysisRequest request;
  request.source = file;
  request.task = "schedule";
  request.generator = s.generator;
  request.params = s.params;
  request.gpu_profile = s.search.gpu_profile;
  request.search.gpu_profile = s.search.gpu_profile;
  request.search.strategy = s.search.strategy;
  request.search.beam_size = s.search.beam_size;
  request.search.passes = s.search.passes;
  request.search.freeze = s.search.freeze;
  request.search.sampling = s.search.sampling;
  request.search.memo = s.search.memo;
  request.search.seed = s.search.seed;
  request.search.model = s.search.model;
  request.search.weights = s.search.weights;
  request.search.work_budget = s.search.work_budget;
  request.search.time_budget_s = s.search.time_budget_s;
  request.search.memo_path = job.memo_path.string();
  request.time_limit = std::chrono::milliseconds(static_cast<std::int64_t>(s.timeout_s * 1000));
  request.memory_limit_bytes = s.memory_limit_mb << 20;
  request.cache_dir = job.cache_dir;
  request.extra_compile_flags = s.compile_flags;
  request.cancel = job.cancel.get();
  return request;
}

DocumentAnalysis run_document_analysis(const AnalysisJob &job) {
  const auto start = std::chrono::steady_clock::now();
  DocumentAnalysis analysis;
  analysis.snapshot = job.snapshot;
  analysis.settings = job.settings;
  if (!job.settings.trusted) {  // nothing of the user's is compiled or run
    analysis.outcome.status = AnalysisOutcome::Status::UserError;
    analysis.outcome.error_kind = "untrusted";
    analysis.outcome.message = kUntrustedMessage;
    return analysis;
  }

  // The work folder holds the search memo whether or not an unsaved copy goes there too.
  std::error_code ec;
  if (!job.work_dir.empty()) fs::create_directories(job.work_dir, ec);

  // Analyze the file itself when the buffer is saved, else an unsaved copy.
  bool on_disk = false;
  const std::string disk_text = job.snapshot.path.empty() ? "" : read_file(job.snapshot.path, on_disk);
  fs::path file = job.snapshot.path;
  std::vector<std::string> extra_flags;
  if (!on_disk || disk_text != job.snapshot.text) {
    file = job.work_dir / (job.snapshot.path.empty() ? fs::path("untitled.cpp") : job.snapshot.path.filename());
    const fs::path document_dir = job.snapshot.path.parent_path();
    std::string text = job.snapshot.text;
    // -I only when the document includes headers next to it: extra flags are part of the key of
    // the precompiled Halide.h, so a flag per directory would cost a PCH build per directory.
    const std::string stamp = document_dir.empty() ? "" : local_headers_stamp(text, document_dir);
    if (!stamp.empty()) {
      text += stamp;
      extra_flags.push_back("-I" + document_dir.string());
    }
    if (!write_file_atomically(file, text)) {
      analysis.outcome.status = AnalysisOutcome::Status::InternalError;
      analysis.outcome.error_kind = "internal";
      analysis.outcome.message = "cannot write the unsaved document to " + file.string();
      return analysis;
    }
  }
  analysis.analyzed_file = fs::absolute(file);

  AnalysisRequest request = make_analysis_request(job, analysis.analyzed_file);
  request.extra_compile_flags.insert(request.extra_compile_flags.end(), extra_flags.begin(), extra_flags.end());
  if (job.on_phase) {
    job.on_phase(AnalysisPhase::Building);
    request.on_built = [&] { job.on_phase(AnalysisPhase::Searching); };
  }
  analysis.outcome = analyze_generator(request);
  for (const CompilerDiagnostic &d : analysis.outcome.diagnostics)
    analysis.compile_diagnostics.push_back(map_diagnostic(d, analysis.analyzed_file));
  analysis.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return analysis;
}

}  // namespace hlsched::server::lsp
