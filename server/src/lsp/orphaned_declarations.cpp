#include "lsp/orphaned_declarations.h"

#include <algorithm>
#include <map>

namespace hlsched::server::lsp {

namespace {

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// When a comment or a string/char literal starts at `i`: the offset just past it. Else `i`.
std::size_t skip_comment_or_literal(const std::string &text, std::size_t i) {
  if (text.compare(i, 2, "//") == 0) {
    const std::size_t nl = text.find('\n', i);
    return nl == std::string::npos ? text.size() : nl;
  }
  if (text.compare(i, 2, "/*") == 0) {
    const std::size_t close = text.find("*/", i + 2);
    return close == std::string::npos ? text.size() : close + 2;
  }
  if (text[i] == '"' || text[i] == '\'') {
    const char quote = text[i];
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != quote && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
    return std::min(j + 1, text.size());
  }
  return i;
}

// The first offset from `from` outside comments and literals where `stop(offset)` holds, or
// text.size(): the scan both searches below share.
template <typename Stop>
std::size_t find_in_code(const std::string &text, std::size_t from, Stop stop) {
  for (std::size_t i = from; i < text.size();) {
    const std::size_t skipped = skip_comment_or_literal(text, i);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    if (stop(i)) return i;
    i++;
  }
  return text.size();
}

// The offset of the first ',' or ';' (or closing bracket) at bracket depth 0 from `from`: where a
// declarator that starts before `from` ends.
std::size_t declarator_end(const std::string &text, std::size_t from) {
  int depth = 0;
  return find_in_code(text, from, [&](std::size_t i) {
    const char c = text[i];
    if (c == '(' || c == '{' || c == '[') depth++;
    if (c == ')' || c == '}' || c == ']') {
      if (depth == 0) return true;
      depth--;
    }
    return depth == 0 && (c == ',' || c == ';');
  });
}

// The end of the block that encloses `from` (the offset of its '}').
std::size_t enclosing_block_end(const std::string &text, std::size_t from) {
  int depth = 0;
  return find_in_code(text, from, [&](std::size_t i) {
    if (text[i] == '{') depth++;
    return text[i] == '}' && depth-- == 0;
  });
}

// Offsets of `word` as a whole identifier in [region.begin, region.end), outside comments and literals.
std::vector<std::size_t> uses_of(const std::string &text, const std::string &word, ByteRange region) {
  std::vector<std::size_t> out;
  for (std::size_t i = region.begin; i < region.end && i < text.size();) {
    const std::size_t skipped = skip_comment_or_literal(text, i);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    if (!is_identifier_char(text[i])) {
      i++;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_identifier_char(text[end])) end++;
    if (text.compare(i, end - i, word) == 0 && end - i == word.size()) out.push_back(i);
    i = end;
  }
  return out;
}

bool inside(const std::vector<ByteRange> &ranges, std::size_t offset) {
  return std::any_of(ranges.begin(), ranges.end(), [&](ByteRange r) { return r.contains(offset); });
}

std::string trimmed(const std::string &s) {
  const std::size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") + 1 - begin);
}

// A declarator of a declaration statement: `xo{"xo"}` in `Var x{"x"}, xo{"xo"};`.
struct Declarator {
  const DeclaredObject *object;
  ByteRange text;  ///< from the name to before its ',' or ';'
};

// Whether the only uses of `d`'s name in its scope were inside `removed` (and there was one).
bool orphaned(const std::string &text, const Declarator &d, const std::vector<ByteRange> &removed) {
  const DeclaredObject &o = *d.object;
  if (o.kind != DeclaredObject::Kind::Var && o.kind != DeclaredObject::Kind::RVar) return false;
  const ByteRange scope = o.is_member ? ByteRange{0, text.size()} : ByteRange{d.text.end, enclosing_block_end(text, d.text.end)};
  bool used_in_removed = false;
  for (std::size_t use : uses_of(text, o.identifier, scope)) {
    if (d.text.contains(use)) continue;  // its own declarator
    if (!inside(removed, use)) return false;
    used_in_removed = true;
  }
  return used_in_removed;
}

}  // namespace

std::vector<DeclarationEdit> orphaned_declarations(const std::string &text, const GeneratorClass &g,
                                                   const std::vector<ByteRange> &removed) {
  // The declaration statements by their ';', each with its declarators in order. (libclang gives
  // the first declarator of `Var a, b;` the whole statement's start, later ones their own.)
  std::map<std::size_t, std::vector<Declarator>> statements;
  for (const DeclaredObject &o : g.objects) {
    if (o.name.end > text.size() || inside(removed, o.name.begin)) continue;
    const Declarator d{&o, {o.name.begin, declarator_end(text, o.name.end)}};
    std::size_t end = d.text.end;
    while (end < text.size() && text[end] == ',') end = declarator_end(text, end + 1);
    statements[end].push_back(d);
  }
  std::vector<DeclarationEdit> edits;
  for (auto &[semicolon, declarators] : statements) {
    if (semicolon >= text.size() || text[semicolon] != ';') continue;  // not a plain declaration
    std::sort(declarators.begin(), declarators.end(),
              [](const Declarator &a, const Declarator &b) { return a.text.begin < b.text.begin; });
    const std::size_t begin = declarators.front().object->declaration.begin;
    // Every declarator must be one we know, or rewriting the list would drop one.
    bool known = declarators.back().text.end == semicolon && begin <= declarators.front().text.begin;
    for (std::size_t i = 0; known && i + 1 < declarators.size(); i++)
      known = text[declarators[i].text.end] == ',' &&
              trimmed(text.substr(declarators[i].text.end + 1, declarators[i + 1].text.begin - declarators[i].text.end - 1)).empty();
    const std::string type = trimmed(text.substr(begin, declarators.front().text.begin - begin));
    known = known && !type.empty() && type.find(',') == std::string::npos;  // the first declarator is ours
    if (!known) continue;

    std::vector<const Declarator *> kept;
    for (const Declarator &d : declarators)
      if (!orphaned(text, d, removed)) kept.push_back(&d);
    if (kept.size() == declarators.size()) continue;
    if (kept.empty()) {
      edits.push_back({{begin, semicolon + 1}, "", true});
      continue;
    }
    std::string list;
    for (const Declarator *d : kept)
      list += (list.empty() ? "" : ", ") + trimmed(text.substr(d->text.begin, d->text.end - d->text.begin));
    edits.push_back({{declarators.front().text.begin, semicolon}, list, false});
  }
  std::sort(edits.begin(), edits.end(), [](const DeclarationEdit &a, const DeclarationEdit &b) { return a.range.begin < b.range.begin; });
  return edits;
}

}  // namespace hlsched::server::lsp
