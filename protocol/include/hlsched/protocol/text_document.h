#pragma once
// An open document's text, kept in sync with the editor through LSP edits.
//
// Text is stored as UTF-8; LSP positions count UTF-16 code units, so
// conversions walk the line's UTF-8 and count 1 unit per code point below
// U+10000 and 2 above (a surrogate pair). Rules, following the spec and clangd:
//  - line breaks are "\n", "\r\n" and "\r"; a position's character never
//    indexes into the break itself;
//  - a character past the end of its line clamps to the line end, and a line
//    past the last line clamps to the end of the document;
//  - a character inside a surrogate pair (or a byte offset inside a multi-byte
//    sequence) rounds down to the start of that code point;
//  - invalid UTF-8 bytes count as one code unit each (never crash on odd input).

#include "hlsched/protocol/lsp_types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hlsched::protocol {

// Number of UTF-16 code units needed to encode `utf8`.
std::size_t utf16_length(std::string_view utf8);

// Threading: a value type; not synchronised (one owner, or external locking).
class TextDocument {
 public:
  TextDocument() : TextDocument("") {}
  explicit TextDocument(std::string text, std::int32_t version = 0);

  const std::string& text() const { return text_; }
  std::int32_t version() const { return version_; }
  std::size_t line_count() const { return line_starts_.size(); }

  // Line `line` without its line break (empty view when out of range).
  std::string_view line_text(std::uint32_t line) const;

  // Byte offset into text() for an LSP position, clamped as described above.
  std::size_t offset_at(lsp::Position position) const;
  // LSP position of a byte offset (clamped to the text size).
  lsp::Position position_at(std::size_t offset) const;

  // Applies the changes of one didChange in order and sets the new version.
  // All or nothing: on error (a range whose start is after its end) the
  // document is unchanged and InvalidParamsError names the change index.
  void apply_changes(const std::vector<lsp::TextDocumentContentChangeEvent>& changes,
                     std::int32_t new_version);
  void apply_change(const lsp::TextDocumentContentChangeEvent& change);

 private:
  void index_lines();
  std::size_t line_content_end(std::size_t line) const;  // offset of its break or EOF

  std::string text_;
  std::int32_t version_ = 0;
  std::vector<std::size_t> line_starts_;  // byte offset where each line begins
};

}  // namespace hlsched::protocol
