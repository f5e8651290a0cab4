#include "hlsched/protocol/text_document.h"

#include <algorithm>
#include <utility>

namespace hlsched::protocol {
namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

struct CodePoint {
  std::size_t bytes;        // length of the UTF-8 sequence (1 for invalid bytes)
  std::size_t utf16_units;  // 1, or 2 for a surrogate pair
};

// Measures the code point starting at text[i]. Malformed sequences count as a
// single one-unit byte so that every byte belongs to exactly one "code point".
CodePoint measure(std::string_view text, std::size_t i) {
  auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return {1, 1};
  for (std::size_t k = 1; k < length; ++k) {
    if (!is_continuation(static_cast<unsigned char>(text[i + k]))) return {1, 1};
  }
  return {length, length == 4 ? 2u : 1u};
}

}  // namespace

std::size_t utf16_length(std::string_view utf8) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < utf8.size();) {
    CodePoint cp = measure(utf8, i);
    units += cp.utf16_units;
    i += cp.bytes;
  }
  return units;
}

TextDocument::TextDocument(std::string text, std::int32_t version) : text_(std::move(text)), version_(version) {
  index_lines();
}

void TextDocument::index_lines() {
  line_starts_.assign(1, 0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\r' && i + 1 < text_.size() && text_[i + 1] == '\n') ++i;  // "\r\n" is one break
    if (text_[i] == '\n' || text_[i] == '\r') line_starts_.push_back(i + 1);
  }
}

std::size_t TextDocument::line_content_end(std::size_t line) const {
  if (line + 1 >= line_starts_.size()) return text_.size();
  std::size_t end = line_starts_[line + 1] - 1;  // the '\n' or lone '\r'
  if (text_[end] == '\n' && end > line_starts_[line] && text_[end - 1] == '\r') --end;
  return end;
}

std::string_view TextDocument::line_text(std::uint32_t line) const {
  if (line >= line_starts_.size()) return {};
  std::size_t start = line_starts_[line];
  return std::string_view(text_).substr(start, line_content_end(line) - start);
}

std::size_t TextDocument::offset_at(lsp::Position position) const {
  if (position.line >= line_starts_.size()) return text_.size();
  std::size_t offset = line_starts_[position.line];
  std::size_t end = line_content_end(position.line);
  std::string_view through_line = std::string_view(text_).substr(0, end);
  std::size_t units = 0;
  while (offset < end) {
    CodePoint cp = measure(through_line, offset);
    if (units + cp.utf16_units > position.character) break;  // reached, or inside a surrogate pair
    units += cp.utf16_units;
    offset += cp.bytes;
  }
  return offset;
}

lsp::Position TextDocument::position_at(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  // The last line starting at or before `offset`.
  auto next_line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t line = static_cast<std::size_t>(next_line - line_starts_.begin()) - 1;
  std::string_view through_line = std::string_view(text_).substr(0, line_content_end(line));
  std::size_t end = std::min(offset, through_line.size());  // inside the break -> line end
  std::uint32_t units = 0;
  for (std::size_t i = line_starts_[line]; i < end;) {
    CodePoint cp = measure(through_line, i);
    if (i + cp.bytes > end) break;  // `offset` is inside this code point
    units += static_cast<std::uint32_t>(cp.utf16_units);
    i += cp.bytes;
  }
  return lsp::Position{static_cast<std::uint32_t>(line), units};
}

void TextDocument::apply_change(const lsp::TextDocumentContentChangeEvent& change) {
  if (!change.range) {
    text_ = change.text;
  } else {
    if (change.range->end < change.range->start) {
      throw InvalidParamsError("range", "start is after end");
    }
    std::size_t start = offset_at(change.range->start);
    std::size_t end = offset_at(change.range->end);
    text_.replace(start, end - start, change.text);
  }
  index_lines();
}

void TextDocument::apply_changes(const std::vector<lsp::TextDocumentContentChangeEvent>& changes,
                                 std::int32_t new_version) {
  TextDocument updated = *this;  // copy so a bad change leaves *this untouched
  for (std::size_t i = 0; i < changes.size(); ++i) {
    try {
      updated.apply_change(changes[i]);
    } catch (InvalidParamsError& e) {
      e.prepend_field("[" + std::to_string(i) + "]");
      e.prepend_field("contentChanges");
      throw;
    }
  }
  updated.version_ = new_version;
  *this = std::move(updated);
}

}  // namespace hlsched::protocol
