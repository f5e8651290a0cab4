// The edits behind the code actions "Insert suggested schedule" and "Replace schedule": the
// suggested schedule_code, as a block in the generator's schedule() method.
//
//     void schedule() {
//         input.set_estimates(...);            // estimates are always kept
//         // hlsched: begin suggested schedule (predicted 0.0102 ms on h200)
//         {
//             ...schedule_code...
//         }
//         // hlsched: end suggested schedule
//     }
//
// The block is its own scope, so its Func/Var declarations cannot clash with the user's. The
// markers let a later suggestion replace the block it left before.
//  - schedule() missing: a new public schedule() right after generate().
//  - schedule() with only estimates (or nothing): "Insert suggested schedule" appends the block.
//  - schedule() with an hlsched block: "Replace suggested schedule" replaces that block.
//  - schedule() with the user's own directives: "Replace schedule" removes every top-level
//    statement that does not set estimates and appends the block; "Insert suggested schedule"
//    is offered too (appending; right when the user's schedule only runs under a
//    GeneratorParam).
//  - no schedule() but generate() writes the schedule (many generators do, at its end or under
//    `if (auto_schedule) ... else ...` / `if (get_target().has_gpu_feature())`): "Replace schedule"
//    removes the directives that run for a GPU target without the autoscheduler (estimates, other
//    branches and the algorithm stay) and puts the block where the last of them was. There
//    get_pipeline() is not available yet, so the block reaches the Funcs from the Outputs. An `if`
//    we cannot judge (a GeneratorParam) that holds directives: no action.
// Edits are only made against an index of the current text (a stale index could delete what the
// user typed since).
// Threading: pure functions.
#pragma once

#include <string>
#include <vector>

#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"

namespace hlsched::server::lsp {

struct ScheduleAction {
  std::string title;
  bool preferred = false;
  std::vector<protocol::lsp::TextEdit> edits;  ///< against the current text
};

/// The actions for the analysis's generator. Empty unless both the index and a successful
/// analysis describe the current text.
std::vector<ScheduleAction> schedule_actions(const Document &document);

/// The generator class an analysis is about: the one its result names, else the settings'
/// choice, else the only one. nullptr when unknown.
const GeneratorClass *analyzed_generator(const SourceIndex &index, const DocumentAnalysis &analysis);

/// The marker lines (exact text after the indentation).
inline constexpr const char *kBeginMarker = "// hlsched: begin suggested schedule";
inline constexpr const char *kEndMarker = "// hlsched: end suggested schedule";

}  // namespace hlsched::server::lsp
