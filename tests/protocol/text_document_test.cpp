#include "hlsched/protocol/text_document.h"

#include <catch2/catch.hpp>

#include <random>

using namespace hlsched::protocol;
using lsp::Position;
using lsp::Range;
using lsp::TextDocumentContentChangeEvent;

namespace {

TextDocumentContentChangeEvent edit(Position start, Position end, std::string text) {
  return TextDocumentContentChangeEvent{Range{start, end}, std::move(text)};
}

// ---- An independent model: the document as code points ----------------------

std::string to_utf8(const std::u32string& text) {
  std::string out;
  for (char32_t c : text) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

bool is_break(char32_t c) { return c == U'\n' || c == U'\r'; }
std::uint32_t units(char32_t c) { return c >= 0x10000 ? 2 : 1; }

// Code point index for an LSP position, with the documented clamping rules.
std::size_t model_index(const std::u32string& s, Position p) {
  std::size_t i = 0;
  for (std::uint32_t line = 0; line < p.line; ++line) {
    while (i < s.size() && !is_break(s[i])) ++i;
    if (i == s.size()) return s.size();
    i += (s[i] == U'\r' && i + 1 < s.size() && s[i + 1] == U'\n') ? 2 : 1;
  }
  std::uint32_t count = 0;
  while (i < s.size() && !is_break(s[i]) && count + units(s[i]) <= p.character) count += units(s[i++]);
  return i;
}

Position model_position(const std::u32string& s, std::size_t index) {
  Position p;
  for (std::size_t i = 0; i < index;) {
    if (s[i] == U'\r' && i + 1 < s.size() && s[i + 1] == U'\n') {
      if (i + 1 == index) break;  // between \r and \n: end of the line
      ++p.line, p.character = 0, i += 2;
    } else if (is_break(s[i])) {
      ++p.line, p.character = 0, ++i;
    } else {
      p.character += units(s[i++]);
    }
  }
  return p;
}

// Byte offset in the UTF-8 encoding where each code point starts (plus the end).
std::vector<std::size_t> byte_starts(const std::u32string& s) {
  std::vector<std::size_t> starts{0};
  for (char32_t c : s) starts.push_back(starts.back() + to_utf8(std::u32string(1, c)).size());
  return starts;
}

}  // namespace

TEST_CASE("utf16_length counts surrogate pairs as two") {
  CHECK(utf16_length("") == 0);
  CHECK(utf16_length("abc") == 3);
  CHECK(utf16_length("é€") == 2);
  CHECK(utf16_length("😀") == 2);
  CHECK(utf16_length("a😀b") == 4);
  CHECK(utf16_length("\xff\xfe") == 2);  // invalid bytes: one unit each
}

TEST_CASE("positions in ASCII, multi-byte and astral text") {
  TextDocument doc("a😀b\né€x");
  CHECK(doc.line_count() == 2);
  CHECK(doc.offset_at({0, 0}) == 0);
  CHECK(doc.offset_at({0, 1}) == 1);
  CHECK(doc.offset_at({0, 2}) == 1);  // inside the surrogate pair: rounds down
  CHECK(doc.offset_at({0, 3}) == 5);
  CHECK(doc.offset_at({0, 4}) == 6);
  CHECK(doc.offset_at({0, 99}) == 6);  // past line end: clamps before the break
  CHECK(doc.offset_at({1, 1}) == 9);   // after é (2 bytes)
  CHECK(doc.offset_at({1, 2}) == 12);  // after € (3 bytes)
  CHECK(doc.offset_at({7, 0}) == doc.text().size());  // past the last line

  CHECK(doc.position_at(5) == Position{0, 3});
  CHECK(doc.position_at(3) == Position{0, 1});  // inside the emoji's bytes: rounds down
  CHECK(doc.position_at(6) == Position{0, 4});
  CHECK(doc.position_at(7) == Position{1, 0});
  CHECK(doc.position_at(1000) == Position{1, 3});
  CHECK(doc.line_text(0) == "a😀b");
  CHECK(doc.line_text(1) == "é€x");
  CHECK(doc.line_text(2).empty());
}

TEST_CASE("CRLF and lone CR are line breaks") {
  TextDocument doc("ab\r\ncd\ref");
  CHECK(doc.line_count() == 3);
  CHECK(doc.offset_at({0, 10}) == 2);  // clamps before "\r\n"
  CHECK(doc.offset_at({1, 1}) == 5);
  CHECK(doc.offset_at({2, 0}) == 7);
  CHECK(doc.position_at(3) == Position{0, 2});  // between \r and \n
  CHECK(doc.position_at(4) == Position{1, 0});
  CHECK(doc.line_text(0) == "ab");
  CHECK(doc.line_text(1) == "cd");

  TextDocument trailing("x\r\n");
  CHECK(trailing.line_count() == 2);
  CHECK(trailing.offset_at({1, 0}) == 3);
}

TEST_CASE("incremental edits with emoji") {
  TextDocument doc("a😀b", 1);
  doc.apply_changes({edit({0, 1}, {0, 3}, "x")}, 2);  // replace the emoji (2 UTF-16 units)
  CHECK(doc.text() == "axb");
  CHECK(doc.version() == 2);
  doc.apply_changes({edit({0, 3}, {0, 3}, "👍🏽"), edit({0, 0}, {0, 0}, "é")}, 3);
  CHECK(doc.text() == "éaxb👍🏽");
  CHECK(doc.position_at(doc.text().size()) == Position{0, 8});
  doc.apply_changes({edit({0, 4}, {0, 6}, "")}, 4);  // delete 👍, keep the skin-tone modifier
  CHECK(doc.text() == "éaxb🏽");
}

TEST_CASE("multi-line edits, insertion at end, deletion across CRLF") {
  TextDocument doc("line1\r\nline2\r\nline3");
  doc.apply_change(edit({0, 4}, {2, 4}, "X"));
  CHECK(doc.text() == "lineX3");
  doc.apply_change(edit({0, 99}, {0, 99}, "\nend"));
  CHECK(doc.text() == "lineX3\nend");
  doc.apply_change(edit({9, 0}, {9, 0}, "!"));  // past the last line: appends
  CHECK(doc.text() == "lineX3\nend!");
}

TEST_CASE("full-text change replaces everything") {
  TextDocument doc("old");
  doc.apply_changes({TextDocumentContentChangeEvent{std::nullopt, "new\ntext"}}, 5);
  CHECK(doc.text() == "new\ntext");
  CHECK(doc.line_count() == 2);
}

TEST_CASE("a reversed range is rejected and nothing is applied") {
  TextDocument doc("hello", 1);
  try {
    doc.apply_changes({edit({0, 0}, {0, 1}, "J"), edit({0, 3}, {0, 2}, "")}, 2);
    FAIL("expected InvalidParamsError");
  } catch (const InvalidParamsError& e) {
    CHECK(e.message() == "invalid params: contentChanges[1].range: start is after end");
  }
  CHECK(doc.text() == "hello");
  CHECK(doc.version() == 1);
}

TEST_CASE("invalid UTF-8 never breaks position logic") {
  TextDocument doc("a\xff\xe2\x82z\xf0\x9f\x98");
  CHECK(doc.offset_at({0, 2}) == 2);
  CHECK(doc.position_at(doc.text().size()) == Position{0, 8});
  doc.apply_change(edit({0, 1}, {0, 3}, "é"));
  CHECK(doc.text() == "aé\x82z\xf0\x9f\x98");
}

TEST_CASE("randomized edit sequences match a code-point model") {
  const std::vector<std::u32string> pieces = {U"a", U"bc", U"\n", U"\r\n", U"\r", U"é", U"€", U"😀", U"𝄞", U" ", U"xyz"};
  std::mt19937 rng(20240601);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  auto random_text = [&] {
    std::u32string text;
    for (std::size_t i = pick(5); i > 0; --i) text += pieces[pick(pieces.size())];
    return text;
  };

  for (int round = 0; round < 300; ++round) {
    std::u32string model = random_text() + random_text();
    TextDocument doc(to_utf8(model));
    for (int step = 0; step < 30; ++step) {
      auto line_limit = static_cast<std::uint32_t>(doc.line_count() + 1);
      auto random_position = [&] {
        return Position{static_cast<std::uint32_t>(pick(line_limit + 1)), static_cast<std::uint32_t>(pick(12))};
      };
      Position a = random_position(), b = random_position();
      if (b < a) std::swap(a, b);
      std::u32string inserted = random_text();

      std::size_t from = model_index(model, a), to = model_index(model, b);
      INFO("round " << round << " step " << step);
      REQUIRE(doc.offset_at(a) == byte_starts(model)[from]);
      model.replace(from, to - from, inserted);
      doc.apply_change(edit(a, b, to_utf8(inserted)));
      REQUIRE(doc.text() == to_utf8(model));

      // Every byte offset maps to the model's position of the enclosing code point.
      std::vector<std::size_t> starts = byte_starts(model);
      std::size_t index = 0;
      for (std::size_t offset = 0; offset <= doc.text().size(); ++offset) {
        while (index + 1 < starts.size() && starts[index + 1] <= offset) ++index;
        REQUIRE(doc.position_at(offset) == model_position(model, index));
      }
    }
  }
}
