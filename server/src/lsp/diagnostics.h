// textDocument/publishDiagnostics content for one analysis of the current text:
//  - compile errors/warnings at their lines (notes folded into the diagnostic they explain;
//    problems in included headers shown on the #include line);
//  - a crash, time-out, Halide error or missing estimates as an error on the generator class
//    (missing estimates: on each Input/Output that lacks them);
//  - schedule warnings when the analysis succeeded: no schedule of the user's own, a stage that
//    dominates the pipeline, a search cut short by its time budget.
// Threading: a pure function (called on the I/O thread).
#pragma once

#include <vector>

#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"

namespace hlsched::server::lsp {

/// Diagnostics for `analysis`, which must be of the document's current text.
std::vector<protocol::lsp::Diagnostic> diagnostics_for(const Document &document, const DocumentAnalysis &analysis);

/// The source name diagnostics carry ("hlsched") and the cap on how many are published.
inline constexpr const char *kDiagnosticSource = "hlsched";
inline constexpr std::size_t kMaxDiagnostics = 100;

}  // namespace hlsched::server::lsp
