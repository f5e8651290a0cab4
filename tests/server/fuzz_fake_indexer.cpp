#include "fuzz_fake_indexer.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

namespace hlsched::server::testing {
namespace {

using lsp::ByteRange;
using lsp::DeclaredObject;
using lsp::GeneratorClass;
using lsp::MethodInfo;
using lsp::SourceIndex;

constexpr std::size_t kNone = std::string::npos;

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::size_t identifier_end(const std::string &text, std::size_t begin) {
  std::size_t end = begin;
  while (end < text.size() && is_identifier_char(text[end])) end++;
  return end;
}

// The brace that closes the one at `open`, or the end of the text.
std::size_t matching_brace(const std::string &text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); i++) {
    if (text[i] == '{') depth++;
    if (text[i] == '}' && --depth == 0) return i;
  }
  return text.size();
}

// `void <name>()` inside [scope.begin, scope.end): declaration, name, body and its statements.
std::optional<MethodInfo> find_method(const std::string &text, ByteRange scope, const std::string &name) {
  const std::size_t at = text.find("void " + name + "()", scope.begin);
  if (at == kNone || at >= scope.end) return std::nullopt;
  MethodInfo m;
  m.name = {at + 5, at + 5 + name.size()};
  const std::size_t open = text.find('{', m.name.end);
  if (open == kNone || open >= scope.end) {
    m.declaration = {at, m.name.end + 2};
    return m;
  }
  const std::size_t close = matching_brace(text, open);
  m.body = ByteRange{open, std::min(close + 1, text.size())};
  m.declaration = {at, m.body->end};
  // Top-level statements: ';'-terminated pieces of the body, leading blanks skipped.
  std::size_t begin = open + 1;
  for (std::size_t i = begin; i < m.body->end && i < text.size(); i++) {
    if (text[i] == ';') {
      while (begin < i && (text[begin] == ' ' || text[begin] == '\n' || text[begin] == '\r' || text[begin] == '\t'))
        begin++;
      m.statements.push_back({begin, i + 1});
      m.statement_sets_estimates.push_back(text.compare(begin, 12, "set_estimate") == 0);
      begin = i + 1;
    }
  }
  return m;
}

// Funcs, Inputs, Outputs and Vars of the fuzzer's Blur snippet, where they first appear.
void find_objects(const std::string &text, GeneratorClass &g) {
  struct Known {
    const char *identifier;
    DeclaredObject::Kind kind;
  };
  static const Known known[] = {{"blur_x", DeclaredObject::Kind::Func},  {"output", DeclaredObject::Kind::Output},
                                {"input", DeclaredObject::Kind::Input},  {"x", DeclaredObject::Kind::Var},
                                {"y", DeclaredObject::Kind::Var}};
  for (const Known &k : known) {
    const std::string id = k.identifier;
    for (std::size_t at = text.find(id, g.definition.begin); at != kNone && at < g.definition.end;
         at = text.find(id, at + 1)) {
      if ((at > 0 && is_identifier_char(text[at - 1])) || is_identifier_char(text[identifier_end(text, at)]))
        continue;  // part of a longer identifier
      DeclaredObject o;
      o.kind = k.kind;
      o.identifier = id;
      o.halide_name = id;
      o.is_member = true;
      o.name = {at, at + id.size()};
      const std::size_t line_begin = text.rfind('\n', at) == kNone ? 0 : text.rfind('\n', at) + 1;
      const std::size_t line_end = text.find('\n', at);
      o.declaration = {line_begin, line_end == kNone ? text.size() : line_end};
      o.scope = g.definition;
      g.objects.push_back(std::move(o));
      break;
    }
  }
}

SourceIndex header(const lsp::DocumentSnapshot &snapshot) {
  SourceIndex index;
  index.path = snapshot.path.string();
  index.version = snapshot.version;
  index.edit_serial = snapshot.edit_serial;
  index.text = snapshot.text;
  return index;
}

}  // namespace

SourceIndex FakeIndexer::index(const lsp::IndexJob &job) {
  std::vector<lsp::DocumentSnapshot> &earlier = history_[job.snapshot.uri];
  const int shape = bytes_.ConsumeIntegralInRange<int>(0, 15);
  SourceIndex index;
  if (shape <= 6) {
    index = plausible(job.snapshot);
  } else if (shape <= 9) {
    index = plausible(job.snapshot);
    bend_ranges(index);
  } else if (shape == 10 && !earlier.empty()) {
    // Stale: an older text of this document (never newer than the job's: the scheduler never sees
    // an index from the future).
    const lsp::DocumentSnapshot &old = earlier[bytes_.ConsumeIntegralInRange<std::size_t>(0, earlier.size() - 1)];
    index = plausible(old.edit_serial <= job.snapshot.edit_serial ? old : job.snapshot);
  } else if (shape == 11) {
    index = huge(job.snapshot);
  } else if (shape == 12) {
    index = header(job.snapshot);
    index.has_errors = true;
    index.errors = {"error: expected ';' after class"};
  } else if (shape == 13) {
    throw std::runtime_error("fake indexer: libclang failed");
  } else {
    index = header(job.snapshot);  // no generator found
  }
  earlier.push_back(job.snapshot);
  if (earlier.size() > 4) earlier.erase(earlier.begin());
  return index;
}

SourceIndex FakeIndexer::plausible(const lsp::DocumentSnapshot &snapshot) {
  SourceIndex index = header(snapshot);
  const std::string &text = index.text;
  for (std::size_t at = text.find("class "); at != kNone && index.generators.size() < 4;
       at = text.find("class ", at + 1)) {
    GeneratorClass g;
    g.name = {at + 6, identifier_end(text, at + 6)};
    if (g.name.empty()) continue;
    g.class_name = text.substr(g.name.begin, g.name.end - g.name.begin);
    const std::size_t open = text.find('{', g.name.end);
    const std::size_t close = open == kNone ? text.size() : matching_brace(text, open);
    g.definition = {at, std::min(close + 2, text.size())};
    const std::string registration = "HALIDE_REGISTER_GENERATOR(" + g.class_name + ", ";
    if (std::size_t r = text.find(registration); r != kNone) {
      const std::size_t begin = r + registration.size();
      g.registered_name = text.substr(begin, identifier_end(text, begin) - begin);
    }
    g.generate = find_method(text, g.definition, "generate");
    g.schedule = find_method(text, g.definition, "schedule");
    g.new_method_offset = g.generate ? g.generate->declaration.end : g.definition.end;
    find_objects(text, g);
    index.generators.push_back(std::move(g));
  }
  return index;
}

SourceIndex FakeIndexer::huge(const lsp::DocumentSnapshot &snapshot) {
  SourceIndex index = plausible(snapshot);
  const std::size_t n = index.text.size() + 1;
  for (int i = 0; i < 200; i++) {
    GeneratorClass g;
    g.class_name = "G" + std::to_string(i);
    g.registered_name = i % 2 ? "blur" : "";
    g.definition = {i % n, (i * 7) % n};
    g.name = g.definition;
    MethodInfo m;
    m.declaration = g.definition;
    m.body = g.definition;
    for (int s = 0; s < 50; s++) {
      m.statements.push_back({(i + s) % n, (i + 2 * s) % n});
      m.statement_sets_estimates.push_back(s % 3 == 0);
    }
    g.schedule = m;
    g.generate = m;
    for (int o = 0; o < 50; o++) {
      DeclaredObject object;
      object.kind = DeclaredObject::Kind(o % 7);
      object.identifier = o % 2 ? "blur_x" : "output";
      object.name = object.declaration = object.scope = {(i + o) % n, (i + o + 3) % n};
      g.objects.push_back(std::move(object));
    }
    index.generators.push_back(std::move(g));
  }
  return index;
}

lsp::ByteRange FakeIndexer::bent(ByteRange range, std::size_t text_size) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  switch (bytes_.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return {text_size + 1, text_size + 40};            // past the end
    case 1: return {range.begin, text_size + 1000};            // running past the end
    case 2: return {range.end, range.begin};                   // reversed
    case 3: return {kMax - 1, kMax};                           // far away
    case 4: return {0, kMax};                                  // everything and more
    case 5: return {range.begin, range.begin};                 // empty
    case 6: return {text_size, text_size};                     // at the very end
    default: return range;
  }
}

void FakeIndexer::bend_ranges(SourceIndex &index) {
  const std::size_t size = index.text.size();
  auto maybe_bend = [&](ByteRange &r) {
    if (bytes_.ConsumeIntegralInRange<int>(0, 3) == 0) r = bent(r, size);
  };
  auto bend_method = [&](std::optional<MethodInfo> &m) {
    if (!m) return;
    maybe_bend(m->declaration);
    maybe_bend(m->name);
    if (m->body) maybe_bend(*m->body);
    for (ByteRange &s : m->statements) maybe_bend(s);
  };
  for (GeneratorClass &g : index.generators) {
    maybe_bend(g.name);
    maybe_bend(g.definition);
    bend_method(g.generate);
    bend_method(g.schedule);
    if (bytes_.ConsumeIntegralInRange<int>(0, 3) == 0) g.new_method_offset = bent({g.new_method_offset, 0}, size).begin;
    for (DeclaredObject &o : g.objects) {
      maybe_bend(o.name);
      maybe_bend(o.declaration);
      maybe_bend(o.scope);
    }
  }
}

}  // namespace hlsched::server::testing
