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
//    is offered too (appending).
//  - directives under `if`s (in schedule(), or in generate() when there is no schedule()):
//    "Replace schedule" follows the branches. An `if` on the target or the autoscheduler
//    (`if (auto_schedule) ... else ...`, `if (get_target().has_gpu_feature())`): the branch that
//    runs for a GPU target without the autoscheduler is replaced; estimates and the other branch
//    stay. An `if` on anything else (a GeneratorParam choosing one of the user's schedules): with
//    the cursor in one of its branches, "Replace schedule in this branch" replaces that branch
//    only (preferred); otherwise, in schedule(), "Replace schedule" replaces the whole `if`
//    (unless it sets estimates), and in generate() (where it may hold the algorithm) there is no
//    action. The block goes where the last removed directive was.
//  - generate() has no get_pipeline() yet, so a block there reaches the Funcs from the Outputs.
//  - Every replacement also drops the Var/RVar declarations only the removed directives used
//    (orphaned_declarations.h): a hand-written schedule's `Var xo, xi;` would be left unused.
// Edits are only made against an index of the current text (a stale index could delete what the
// user typed since).
// Threading: pure functions.
#pragma once

#include <cstddef>
#include <optional>
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
/// analysis describe the current text. `cursor`: the byte offset of the editor's cursor (the
/// code action's range), which picks the branch of an `if` on a GeneratorParam.
std::vector<ScheduleAction> schedule_actions(const Document &document, std::optional<std::size_t> cursor = std::nullopt);

/// The generator class an analysis is about: the one its result names, else the settings'
/// choice, else the only one. nullptr when unknown.
const GeneratorClass *analyzed_generator(const SourceIndex &index, const DocumentAnalysis &analysis);

/// The marker lines (exact text after the indentation).
inline constexpr const char *kBeginMarker = "// hlsched: begin suggested schedule";
inline constexpr const char *kEndMarker = "// hlsched: end suggested schedule";

}  // namespace hlsched::server::lsp
