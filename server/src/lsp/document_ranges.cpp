#include "lsp/document_ranges.h"

namespace hlsched::server::lsp {

std::optional<ByteRange> current_bytes(const Document &document, ByteRange range, Mapping mapping) {
  if (!document.index) return std::nullopt;
  const std::uint64_t since = document.index->edit_serial;
  auto mapped = mapping == Mapping::Strict ? document.journal.map_strict(range, since)
                                           : document.journal.map_loose(range, since);
  if (!mapped || mapped->end > document.text.text().size()) return std::nullopt;
  return mapped;
}

std::optional<protocol::lsp::Range> current_range(const Document &document, ByteRange range, Mapping mapping) {
  auto bytes = current_bytes(document, range, mapping);
  if (!bytes) return std::nullopt;
  return to_lsp_range(document.text, *bytes);
}

protocol::lsp::Range to_lsp_range(const protocol::TextDocument &text, ByteRange range) {
  return {text.position_at(range.begin), text.position_at(range.end)};
}

}  // namespace hlsched::server::lsp
