// Places in a document's index, carried onto its current text as LSP ranges.
// Threading: pure functions over a Document (read on the I/O thread).
#pragma once

#include <optional>

#include "hlsched/protocol/lsp_types.h"
#include "lsp/document_scheduler.h"

namespace hlsched::server::lsp {

enum class Mapping {
  Strict,  ///< nullopt when the text inside changed since the index (use for edits)
  Loose,   ///< only the ends move (use for "where is it" questions: lenses, hovers)
};

/// `range` of document.index, in the current text; nullopt without an index or when it cannot be
/// mapped.
std::optional<ByteRange> current_bytes(const Document &document, ByteRange range, Mapping mapping);
std::optional<protocol::lsp::Range> current_range(const Document &document, ByteRange range, Mapping mapping);

/// Byte range of the current text -> LSP range.
protocol::lsp::Range to_lsp_range(const protocol::TextDocument &text, ByteRange range);

}  // namespace hlsched::server::lsp
