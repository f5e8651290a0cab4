// One analysis of one version of an open document: its unsaved text is built and scheduled in a
// worker process (generator_analysis.h), and the outcome is kept with the text it came from.
//
// Unsaved text goes to <work_dir>/<file name> (one stable file per document, so the build cache
// hits when the text returns to an earlier state), compiled with -I<the document's directory> so
// its quoted includes still resolve. When the buffer equals the file on disk the file itself is
// analyzed. Compiler diagnostics in the copy are mapped back to the document.
//
// Threading: run_document_analysis() runs on a worker-pool thread; `on_phase` is called on that
// thread. DocumentAnalysis is immutable once made and shared as shared_ptr<const>.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "generator_analysis.h"
#include "lsp/server_settings.h"

namespace hlsched::server::lsp {

/// One version of a document's text.
struct DocumentSnapshot {
  std::string uri;
  std::filesystem::path path;  ///< the file the URI names; for other URIs a made-up name in work_dir
  std::string text;
  std::int32_t version = 0;
  std::uint64_t edit_serial = 0;  ///< EditJournal serial of this text
};

enum class AnalysisPhase { Building, Searching };

struct AnalysisJob {
  DocumentSnapshot snapshot;
  ServerSettings settings;
  std::filesystem::path cache_dir;  ///< the build cache (generator_build.h)
  std::filesystem::path work_dir;   ///< this document's folder: unsaved copies, the search memo
  /// The search memo kept between this document's analyses (AutoschedulerOptions::memo_path).
  std::filesystem::path memo_path;
  std::shared_ptr<std::atomic<bool>> cancel;  ///< set: kill the build/worker, return Cancelled
  std::function<void(AnalysisPhase)> on_phase;
};

/// A compiler diagnostic in document terms.
struct SourceDiagnostic {
  bool in_document = false;  ///< false: in another file (a header), see `file`
  std::string file;
  int line = 0;    ///< 1-based; 0 when the compiler gave none
  int column = 0;  ///< 1-based byte column; 0 when none
  std::string severity;  ///< "error", "warning", "note", "fatal error"
  std::string message;
};

struct DocumentAnalysis {
  DocumentSnapshot snapshot;
  ServerSettings settings;
  AnalysisOutcome outcome;
  std::vector<SourceDiagnostic> compile_diagnostics;  ///< CompileError: mapped diagnostics
  std::filesystem::path analyzed_file;  ///< the file actually compiled
  double seconds = 0;                   ///< the whole analysis, wall clock

  bool ok() const { return outcome.ok(); }
  /// outcome.result's "predicted_runtime_ms" (0 when not ok).
  double predicted_runtime_ms() const;
  /// outcome.result["search"]["time_ms"] (0 when not ok).
  double search_ms() const;
};

/// "ok", "compile_error", "crashed", "timed_out", "cancelled", "user_error", "internal_error": the
/// status as the server reports it (hlsched/analysisFinished, hlsched/documentStatus).
const char *status_name(AnalysisOutcome::Status status);

using Analyzer = std::function<DocumentAnalysis(const AnalysisJob &)>;

/// What an analysis under `"trusted": false` reports (status user_error, error_kind "untrusted").
inline constexpr const char *kUntrustedMessage =
    "hlsched builds and runs the generator's code, and this workspace is not trusted "
    "(setting \"trusted\": false): nothing was built or run. Trust the workspace to see costs.";

/// The real analyzer: build + schedule in a worker process. Never throws for user errors.
/// With settings.trusted false it builds and runs nothing (see kUntrustedMessage).
DocumentAnalysis run_document_analysis(const AnalysisJob &job);

/// The AnalysisRequest run_document_analysis() makes for `job` analyzing `file` (for tests and
/// for hlsched/schedule on files that are not open).
AnalysisRequest make_analysis_request(const AnalysisJob &job, const std::filesystem::path &file);

}  // namespace hlsched::server::lsp
