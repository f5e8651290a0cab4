#include "lsp/source_index.h"

#include <cctype>

namespace hlsched::server::lsp {

const char *to_string(DeclaredObject::Kind kind) {
  switch (kind) {
    case DeclaredObject::Kind::Func: return "Func";
    case DeclaredObject::Kind::Var: return "Var";
    case DeclaredObject::Kind::RVar: return "RVar";
    case DeclaredObject::Kind::RDom: return "RDom";
    case DeclaredObject::Kind::Input: return "Input";
    case DeclaredObject::Kind::Output: return "Output";
    case DeclaredObject::Kind::GeneratorParam: return "GeneratorParam";
  }
  return "?";
}

const DeclaredObject *GeneratorClass::find_func(const std::string &pipeline_name) const {
  using K = DeclaredObject::Kind;
  auto is_funcish = [](const DeclaredObject &o) { return o.kind == K::Func || o.kind == K::Output || o.kind == K::Input; };
  for (const DeclaredObject &o : objects)
    if (is_funcish(o) && o.pipeline_name() == pipeline_name) return &o;
  for (const DeclaredObject &o : objects)
    if (is_funcish(o) && o.identifier == pipeline_name) return &o;
  return nullptr;
}

const DeclaredObject *GeneratorClass::find_identifier(const std::string &identifier, std::size_t offset) const {
  const DeclaredObject *member = nullptr;
  for (const DeclaredObject &o : objects) {
    if (o.identifier != identifier) continue;
    if (!o.is_member && o.scope.contains(offset)) return &o;  // a local in scope shadows members
    if (o.is_member && !member) member = &o;
  }
  return member;
}

const GeneratorClass *SourceIndex::generator_at(std::size_t offset) const {
  for (const GeneratorClass &g : generators)
    if (g.definition.contains(offset)) return &g;
  // Out-of-line method bodies live outside the class.
  for (const GeneratorClass &g : generators)
    for (const auto *m : {&g.generate, &g.schedule})
      if (*m && (*m)->declaration.contains(offset)) return &g;
  return generators.size() == 1 ? &generators.front() : nullptr;
}

const GeneratorClass *SourceIndex::find_generator(const std::string &name) const {
  if (name.empty()) return generators.size() == 1 ? &generators.front() : nullptr;
  for (const GeneratorClass &g : generators)
    if (g.registered_name == name) return &g;
  for (const GeneratorClass &g : generators)
    if (g.class_name == name) return &g;
  return nullptr;
}

std::string identifier_at(const std::string &text, std::size_t offset, ByteRange *where) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (offset > text.size()) return "";
  std::size_t begin = offset, end = offset;
  while (begin > 0 && is_word(text[begin - 1])) begin--;
  while (end < text.size() && is_word(text[end])) end++;
  if (begin == end || std::isdigit(static_cast<unsigned char>(text[begin]))) return "";
  if (where) *where = {begin, end};
  return text.substr(begin, end - begin);
}

bool holds_directives(const std::vector<BodyStatement> &statements) {
  for (const BodyStatement &s : statements) {
    if (s.kind == BodyStatement::Kind::Directive) return true;
    if (s.kind == BodyStatement::Kind::If && (holds_directives(s.then_branch) || holds_directives(s.else_branch)))
      return true;
  }
  return false;
}

}  // namespace hlsched::server::lsp
