// textDocument/codeLens: the predicted runtime above the generator class, and above each Func the
// suggested schedule computes somewhere (not inlined), with its share of the time.
//
// Lenses carry commands the server executes (workspace/executeCommand):
//   hlsched.explain [uri, func?]          shows the explanation (window/showMessage) and returns it
//   hlsched.applySuggestedSchedule [uri]  applies the preferred schedule code action
//                                         (workspace/applyEdit)
// Threading: a pure function (called on the I/O thread).
#pragma once

#include <vector>

#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"

namespace hlsched::server::lsp {

inline constexpr const char *kExplainCommand = "hlsched.explain";
inline constexpr const char *kApplyScheduleCommand = "hlsched.applySuggestedSchedule";

/// Lenses from the newest successful analysis (a stale one says so in its titles); none before
/// the first analysis or without an index.
std::vector<protocol::lsp::CodeLens> code_lenses(const Document &document);

}  // namespace hlsched::server::lsp
