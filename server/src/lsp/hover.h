// textDocument/hover: what hlsched predicts for the Func (or generator class) under the cursor.
//
// The word under the cursor is read from the current text; the index says what it declares
// (locals of generate() shadow members), and the newest analysis says what the search made of
// it. Stale analyses are shown, marked as such.
// Threading: a pure function of the document (read on the I/O thread).
#pragma once

#include <optional>

#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"

namespace hlsched::server::lsp {

std::optional<protocol::lsp::Hover> hover_at(const Document &document, protocol::lsp::Position position);

}  // namespace hlsched::server::lsp
