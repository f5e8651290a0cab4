// How the index is read out of clang's AST (see clang_indexer.h for the why of the PCH):
//
//  1. Top level of the main file (namespaces included): classes whose bases include
//     Halide::Generator<...> become GeneratorClass entries; out-of-line definitions of their
//     generate()/schedule() are attached afterwards.
//  2. In a generator class: fields are classified by their canonical type (Halide::Func,
//     Halide::GeneratorInput<...>, ...), falling back to the spelled type name when the file has
//     errors (clang then types broken declarations as int). The Halide name is the string literal
//     that starts the initializer: Func blur_x{"blur_x"}, Input<...> input{"input"}.
//  3. generate()/schedule(): body range, top-level statements (with their ';'), and local
//     Func/Var/RDom declarations anywhere in the body.
//  4. HALIDE_REGISTER_GENERATOR(Class, name) from the token stream (macros leave no AST of
//     their own), which also works while the rest of the file is broken.
#include "lsp/clang_indexer.h"

#include <clang-c/Index.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "hlsched/engine/generator_build.h"
#include "util/file_text.h"

namespace hlsched::server::lsp {

namespace fs = std::filesystem;

namespace {

// ---- RAII around the C API -----------------------------------------------------------------

std::string take(CXString s) {
  const char *c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

struct IndexDeleter {
  void operator()(void *index) const { clang_disposeIndex(index); }
};
struct UnitDeleter {
  void operator()(CXTranslationUnitImpl *unit) const { clang_disposeTranslationUnit(unit); }
};
using IndexPtr = std::unique_ptr<void, IndexDeleter>;
using UnitPtr = std::unique_ptr<CXTranslationUnitImpl, UnitDeleter>;

std::vector<CXCursor> children_of(CXCursor cursor) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      cursor,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor> *>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

// All descendants of `cursor` of one kind (depth first).
void collect(CXCursor cursor, CXCursorKind kind, std::vector<CXCursor> &out) {
  for (CXCursor child : children_of(cursor)) {
    if (clang_getCursorKind(child) == kind) out.push_back(child);
    collect(child, kind, out);
  }
}

bool in_main_file(CXCursor cursor) { return clang_Location_isFromMainFile(clang_getCursorLocation(cursor)) != 0; }

std::size_t offset_of(CXSourceLocation location) {
  unsigned offset = 0;
  clang_getFileLocation(location, nullptr, nullptr, nullptr, &offset);
  return offset;
}

ByteRange extent_of(CXCursor cursor) {
  CXSourceRange r = clang_getCursorExtent(cursor);
  return {offset_of(clang_getRangeStart(r)), offset_of(clang_getRangeEnd(r))};
}

ByteRange name_of(CXCursor cursor) {
  std::size_t begin = offset_of(clang_getCursorLocation(cursor));
  return {begin, begin + take(clang_getCursorSpelling(cursor)).size()};
}

struct Token {
  CXTokenKind kind;
  std::string text;
  ByteRange range;
};

std::vector<Token> tokens_in(CXTranslationUnit unit, CXSourceRange range) {
  CXToken *tokens = nullptr;
  unsigned count = 0;
  clang_tokenize(unit, range, &tokens, &count);
  std::vector<Token> out;
  out.reserve(count);
  for (unsigned i = 0; i < count; i++) {
    CXSourceRange extent = clang_getTokenExtent(unit, tokens[i]);
    out.push_back({clang_getTokenKind(tokens[i]), take(clang_getTokenSpelling(unit, tokens[i])),
                   {offset_of(clang_getRangeStart(extent)), offset_of(clang_getRangeEnd(extent))}});
  }
  clang_disposeTokens(unit, tokens, count);
  return out;
}

std::vector<Token> tokens_of(CXTranslationUnit unit, CXCursor cursor) {
  return tokens_in(unit, clang_getCursorExtent(cursor));
}

// "\"blur_x\"" -> "blur_x" (simple escapes only: Halide names are identifiers in practice).
std::string unquote(const std::string &literal) {
  if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') return "";
  std::string out;
  for (std::size_t i = 1; i + 1 < literal.size(); i++) {
    if (literal[i] == '\\' && i + 2 < literal.size()) i++;
    out += literal[i];
  }
  return out;
}

// ---- Classifying declarations -------------------------------------------------------------

std::optional<DeclaredObject::Kind> kind_from_type(const std::string &canonical) {
  using K = DeclaredObject::Kind;
  auto starts = [&](const char *prefix) { return canonical.rfind(prefix, 0) == 0; };
  if (canonical == "Halide::Func") return K::Func;
  if (canonical == "Halide::Var") return K::Var;
  if (canonical == "Halide::RVar") return K::RVar;
  if (canonical == "Halide::RDom") return K::RDom;
  if (starts("Halide::GeneratorInput<")) return K::Input;
  if (starts("Halide::GeneratorOutput<")) return K::Output;
  if (starts("Halide::GeneratorParam<")) return K::GeneratorParam;
  return std::nullopt;
}

// When the file has errors clang may type a broken declaration as int; the spelled type still
// says what the user meant.
std::optional<DeclaredObject::Kind> kind_from_tokens(const std::vector<Token> &tokens) {
  using K = DeclaredObject::Kind;
  static const std::map<std::string, K> names = {
      {"Func", K::Func},     {"Var", K::Var},       {"RVar", K::RVar},
      {"RDom", K::RDom},     {"Input", K::Input},   {"GeneratorInput", K::Input},
      {"Output", K::Output}, {"GeneratorOutput", K::Output}, {"GeneratorParam", K::GeneratorParam}};
  for (const Token &t : tokens) {
    if (t.text == "Halide" || t.text == "::" || t.text == "const" || t.text == "static") continue;
    auto it = names.find(t.text);
    if (it != names.end()) return it->second;
    return std::nullopt;
  }
  return std::nullopt;
}

// The string literal that starts the initializer after the declared name:
//   Func f{"f"};  Func f("f");  Func f = Func("f");  Input<...> in{"in", 0};
std::string initializer_name(const std::vector<Token> &tokens, const ByteRange &name) {
  static const std::set<std::string> skippable = {"{", "(", "=", "Func", "Halide", "::", "Var", "RVar"};
  for (const Token &t : tokens) {
    if (t.range.begin < name.end) continue;
    if (t.kind == CXToken_Literal) return unquote(t.text);
    if (!skippable.count(t.text)) return "";
  }
  return "";
}

bool is_generator_class(CXCursor cursor) {
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind != CXCursor_ClassDecl && kind != CXCursor_StructDecl) return false;
  if (!clang_isCursorDefinition(cursor)) return false;
  for (CXCursor child : children_of(cursor)) {
    if (clang_getCursorKind(child) != CXCursor_CXXBaseSpecifier) continue;
    std::string base = take(clang_getTypeSpelling(clang_getCursorType(child)));
    std::string canonical = take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(child))));
    for (const std::string &spelled : {base, canonical}) {
      if (spelled.rfind("Halide::Generator<", 0) == 0 || spelled.rfind("Generator<", 0) == 0) return true;
    }
  }
  return false;
}

// ---- Building the index ---------------------------------------------------------------------

class IndexBuilder {
 public:
  IndexBuilder(CXTranslationUnit unit, SourceIndex &index) : unit_(unit), index_(index) {}

  void build() {
    CXCursor root = clang_getTranslationUnitCursor(unit_);
    visit_scope(root);
    for (CXCursor method : out_of_line_methods_) attach_out_of_line(method);
    read_registrations();
    for (GeneratorClass &g : index_.generators) finish(g);
  }

 private:
  void visit_scope(CXCursor scope) {
    for (CXCursor child : children_of(scope)) {
      if (!in_main_file(child)) continue;
      CXCursorKind kind = clang_getCursorKind(child);
      if (kind == CXCursor_Namespace) {
        visit_scope(child);
      } else if (is_generator_class(child)) {
        add_generator(child);
      } else if (kind == CXCursor_CXXMethod && clang_isCursorDefinition(child)) {
        out_of_line_methods_.push_back(child);
      }
    }
  }

  void add_generator(CXCursor cls) {
    GeneratorClass g;
    g.class_name = take(clang_getCursorSpelling(cls));
    g.name = name_of(cls);
    g.definition = extent_of(cls);
    for (CXCursor member : children_of(cls)) {
      CXCursorKind kind = clang_getCursorKind(member);
      if (kind == CXCursor_FieldDecl) {
        add_object(g, member, /*is_member=*/true, g.definition);
      } else if (kind == CXCursor_CXXMethod) {
        std::string method = take(clang_getCursorSpelling(member));
        if (method == "generate") g.generate = method_info(member, g);
        if (method == "schedule") g.schedule = method_info(member, g);
      }
      if (first_member_offset_.count(g.class_name) == 0 && kind != CXCursor_CXXBaseSpecifier &&
          kind != CXCursor_CXXAccessSpecifier)
        first_member_offset_[g.class_name] = extent_of(member).begin;
    }
    usr_to_generator_[take(clang_getCursorUSR(cls))] = index_.generators.size();
    index_.generators.push_back(std::move(g));
  }

  void add_object(GeneratorClass &g, CXCursor decl, bool is_member, ByteRange scope) {
    std::vector<Token> tokens = tokens_of(unit_, decl);
    std::string canonical = take(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(decl))));
    std::optional<DeclaredObject::Kind> kind = kind_from_type(canonical);
    if (!kind) kind = kind_from_tokens(tokens);
    if (!kind) return;
    DeclaredObject object;
    object.kind = *kind;
    object.identifier = take(clang_getCursorSpelling(decl));
    object.name = name_of(decl);
    object.declaration = extent_of(decl);
    object.is_member = is_member;
    object.scope = scope;
    object.halide_name = initializer_name(tokens, object.name);
    g.objects.push_back(std::move(object));
  }

  MethodInfo method_info(CXCursor method, GeneratorClass &g) {
    MethodInfo info;
    info.declaration = extent_of(method);
    info.name = name_of(method);
    for (CXCursor child : children_of(method)) {
      if (clang_getCursorKind(child) != CXCursor_CompoundStmt) continue;
      info.body = extent_of(child);
      for (CXCursor statement : children_of(child)) {
        info.statements.push_back(with_semicolon(extent_of(statement)));
        info.statement_sets_estimates.push_back(sets_estimates(statement));
        info.body_statements.push_back(body_statement(statement));
      }
      std::vector<CXCursor> locals;
      collect(child, CXCursor_VarDecl, locals);
      for (CXCursor local : locals) add_object(g, local, /*is_member=*/false, *info.body);
    }
    return info;
  }

  void attach_out_of_line(CXCursor method) {
    std::string usr = take(clang_getCursorUSR(clang_getCursorSemanticParent(method)));
    auto it = usr_to_generator_.find(usr);
    if (it == usr_to_generator_.end()) return;
    GeneratorClass &g = index_.generators[it->second];
    std::string name = take(clang_getCursorSpelling(method));
    std::optional<MethodInfo> *slot = name == "generate" ? &g.generate : name == "schedule" ? &g.schedule : nullptr;
    if (!slot) return;
    // The in-class declaration stays the place for new methods; the definition gives the body.
    std::optional<ByteRange> in_class = *slot ? std::optional<ByteRange>((*slot)->declaration) : std::nullopt;
    *slot = method_info(method, g);
    if (in_class && name == "generate") generate_declaration_in_class_[g.class_name] = *in_class;
  }

  // Expression statements end before their ';' in clang's extents.
  ByteRange with_semicolon(ByteRange range) const {
    std::size_t end = range.end;
    while (end < index_.text.size() && (index_.text[end] == ' ' || index_.text[end] == '\t')) end++;
    if (end < index_.text.size() && index_.text[end] == ';') range.end = end + 1;
    return range;
  }

  bool sets_estimates(CXCursor statement) const {
    static const std::set<std::string> setters = {"set_estimate", "set_estimates", "estimate",
                                                  "set_bounds_estimate", "set_estimate_min",
                                                  "set_extent_constraint_estimate", "set_min_constraint_estimate"};
    for (const Token &t : tokens_of(unit_, statement))
      if (t.kind == CXToken_Identifier && setters.count(t.text)) return true;
    return false;
  }

  // A statement classified for schedule edits; an `if`'s branches recursively.
  BodyStatement body_statement(CXCursor statement) const {
    BodyStatement out;
    out.range = with_semicolon(extent_of(statement));
    const CXCursorKind kind = clang_getCursorKind(statement);
    if (kind == CXCursor_IfStmt) {
      // Children: the condition, the then-branch, the else-branch when there is one.
      std::vector<CXCursor> parts = children_of(statement);
      if (parts.size() < 2 || parts.size() > 3) return out;
      out.kind = BodyStatement::Kind::If;
      for (const Token &t : tokens_of(unit_, parts[0])) out.condition += t.text;
      out.then_branch = branch_statements(parts[1]);
      out.then_range = with_semicolon(extent_of(parts[1]));
      if (parts.size() == 3) {
        out.else_branch = branch_statements(parts[2]);
        out.else_range = with_semicolon(extent_of(parts[2]));
      }
      return out;
    }
    if (sets_estimates(statement)) out.kind = BodyStatement::Kind::Estimates;
    else if (only_schedules(statement, kind == CXCursor_DeclStmt)) out.kind = BodyStatement::Kind::Directive;
    return out;
  }

  std::vector<BodyStatement> branch_statements(CXCursor branch) const {
    std::vector<BodyStatement> out;
    if (clang_getCursorKind(branch) != CXCursor_CompoundStmt) {
      out.push_back(body_statement(branch));  // a branch without braces: one statement
      return out;
    }
    for (CXCursor statement : children_of(branch)) out.push_back(body_statement(statement));
    return out;
  }

  // A call of a scheduling method (`.compute_root(`, `.gpu_tile(`...) and no assignment, except in
  // a declaration (`Func intm = f.update().rfactor(r, u);`).
  bool only_schedules(CXCursor statement, bool is_declaration) const {
    static const std::set<std::string> directives = {
        "compute_root", "compute_at", "compute_inline", "compute_with", "store_root", "store_at", "store_in",
        "gpu_tile", "gpu_blocks", "gpu_threads", "gpu_single_thread", "gpu_lanes", "gpu", "tile", "split",
        "fuse", "reorder", "reorder_storage", "vectorize", "unroll", "parallel", "serial", "rename", "rfactor",
        "atomic", "in", "clone_in", "align_storage", "fold_storage", "prefetch", "memoize", "async",
        "bound_extent", "align_bounds", "allow_race_conditions", "specialize", "specialize_fail"};
    bool schedules = false;
    const std::vector<Token> tokens = tokens_of(unit_, statement);
    for (std::size_t i = 0; i < tokens.size(); i++) {
      if (tokens[i].text == "=" && !is_declaration) return false;
      if (i > 0 && tokens[i - 1].text == "." && tokens[i].kind == CXToken_Identifier && directives.count(tokens[i].text))
        schedules = true;
    }
    return schedules;
  }

  void read_registrations() {
    CXFile file = clang_getFile(unit_, clang_getCString(clang_getTranslationUnitSpelling(unit_)));
    if (!file) return;
    CXSourceRange whole = clang_getRange(clang_getLocationForOffset(unit_, file, 0),
                                         clang_getLocationForOffset(unit_, file, unsigned(index_.text.size())));
    std::vector<Token> tokens = tokens_in(unit_, whole);
    for (std::size_t i = 0; i + 1 < tokens.size(); i++) {
      if (tokens[i].text != "HALIDE_REGISTER_GENERATOR" || tokens[i + 1].text != "(") continue;
      // HALIDE_REGISTER_GENERATOR ( [ns ::]* Class , name [, ...] )
      std::string class_name;
      std::size_t j = i + 2;
      for (; j < tokens.size() && tokens[j].text != "," && tokens[j].text != ")"; j++)
        if (tokens[j].kind == CXToken_Identifier) class_name = tokens[j].text;
      if (j + 1 >= tokens.size() || tokens[j].text != ",") continue;
      for (GeneratorClass &g : index_.generators)
        if (g.class_name == class_name && g.registered_name.empty()) g.registered_name = tokens[j + 1].text;
    }
  }

  void finish(GeneratorClass &g) {
    const std::string &text = index_.text;
    // Indentation of the members: the whitespace before the first member on its line.
    auto first = first_member_offset_.find(g.class_name);
    if (first != first_member_offset_.end()) {
      std::size_t line_start = text.rfind('\n', first->second == 0 ? 0 : first->second - 1);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      std::size_t end = line_start;
      while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) end++;
      g.member_indent = text.substr(line_start, end - line_start);
    }
    auto in_class = generate_declaration_in_class_.find(g.class_name);
    if (in_class != generate_declaration_in_class_.end()) {
      g.new_method_offset = with_semicolon(in_class->second).end;
    } else if (g.generate && g.definition.contains(g.generate->declaration.begin)) {
      g.new_method_offset = with_semicolon(g.generate->declaration).end;
    } else {
      g.new_method_offset = 0;  // no generate() in the class: the code action adds "public:"
    }
    // Members first (stable), then locals in source order.
    std::stable_sort(g.objects.begin(), g.objects.end(), [](const DeclaredObject &a, const DeclaredObject &b) {
      if (a.is_member != b.is_member) return a.is_member;
      return a.name.begin < b.name.begin;
    });
  }

  CXTranslationUnit unit_;
  SourceIndex &index_;
  std::vector<CXCursor> out_of_line_methods_;
  std::map<std::string, std::size_t> usr_to_generator_;
  std::map<std::string, std::size_t> first_member_offset_;
  std::map<std::string, ByteRange> generate_declaration_in_class_;
};

std::string hash_hex(const std::string &data) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(XXH3_64bits(data.data(), data.size())));
  return text;
}

std::string read_whole(const fs::path &path) { return read_file_text(path).value_or(""); }

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

ClangIndexer::ClangIndexer(ClangIndexerOptions options) : options_(std::move(options)) {
  if (options_.halide_include_dir.empty()) options_.halide_include_dir = default_halide_include_dir();
  if (options_.cache_dir.empty()) options_.cache_dir = default_cache_dir();
}

std::vector<std::string> ClangIndexer::base_arguments() const {
  return {"-x", "c++", "-std=c++17", "-I" + options_.halide_include_dir.string(), "-Wno-everything"};
}

fs::path ClangIndexer::prepare() const {
  std::lock_guard<std::mutex> lock(pch_mutex_);
  if (pch_tried_ || !options_.use_pch) return pch_path_;
  pch_tried_ = true;
  const fs::path halide_h = options_.halide_include_dir / "Halide.h";
  std::vector<std::string> args = base_arguments();
  args[1] = "c++-header";
  std::string key_text = take(clang_getClangVersion()) + "\n" + read_whole(halide_h);
  for (const std::string &a : args) key_text += "\n" + a;
  const fs::path dir = options_.cache_dir / "index" / hash_hex(key_text);
  const fs::path pch = dir / "Halide.pch";
  std::error_code ec;
  if (fs::exists(pch, ec)) return pch_path_ = pch;

  auto start = std::chrono::steady_clock::now();
  fs::create_directories(dir, ec);
  // The PCH records its root file's size and time; each process writes its own root so that a
  // concurrent build of the same PCH cannot invalidate another's by rewriting a shared one.
  const fs::path root = dir / ("pch_root." + std::to_string(getpid()) + ".h");
  std::ofstream(root) << "#include \"Halide.h\"\n";
  std::vector<const char *> argv;
  for (const std::string &a : args) argv.push_back(a.c_str());
  IndexPtr index(clang_createIndex(0, 0));
  CXTranslationUnit raw = nullptr;
  CXErrorCode error = clang_parseTranslationUnit2(
      index.get(), root.c_str(), argv.data(), int(argv.size()), nullptr, 0,
      CXTranslationUnit_ForSerialization | CXTranslationUnit_SkipFunctionBodies, &raw);
  UnitPtr unit(raw);
  if (error != CXError_Success || !unit) {
    spdlog::warn("index: could not parse Halide.h for the index PCH (error {}); indexing without it", int(error));
    return pch_path_;
  }
  const fs::path temporary = dir / ("Halide.pch.tmp" + std::to_string(getpid()));
  if (clang_saveTranslationUnit(unit.get(), temporary.c_str(), clang_defaultSaveOptions(unit.get())) != 0) {
    spdlog::warn("index: could not write {}; indexing without a PCH", temporary.string());
    fs::remove(temporary, ec);
    return pch_path_;
  }
  fs::rename(temporary, pch, ec);  // atomic: concurrent daemons never read a partial file
  if (ec) return pch_path_;
  spdlog::info("index: precompiled Halide.h for the index in {:.0f} ms ({})", ms_since(start), pch.string());
  return pch_path_ = pch;
}

SourceIndex ClangIndexer::index(const std::string &path, const std::string &text, std::int32_t version,
                                std::uint64_t edit_serial, const std::vector<std::string> &include_dirs) const {
  SourceIndex result;
  result.path = path;
  result.version = version;
  result.edit_serial = edit_serial;
  result.text = text;
  const fs::path pch = prepare();

  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> args = base_arguments();
  args.push_back("-I" + fs::path(path).parent_path().string());
  for (const std::string &dir : include_dirs) args.push_back("-I" + dir);
  if (!pch.empty()) args.insert(args.end(), {"-include-pch", pch.string()});
  std::vector<const char *> argv;
  for (const std::string &a : args) argv.push_back(a.c_str());

  CXUnsavedFile unsaved{path.c_str(), text.data(), static_cast<unsigned long>(text.size())};
  IndexPtr index(clang_createIndex(/*excludeDeclarationsFromPCH=*/1, /*displayDiagnostics=*/0));
  CXTranslationUnit raw = nullptr;
  CXErrorCode error = clang_parseTranslationUnit2(index.get(), path.c_str(), argv.data(), int(argv.size()), &unsaved,
                                                  1, CXTranslationUnit_KeepGoing, &raw);
  if (error == CXError_ASTReadError && !pch.empty()) {
    // An unusable PCH (written by another libclang, or its root changed): parse without it.
    spdlog::warn("index: the precompiled Halide.h {} is unusable; parsing without it", pch.string());
    argv.erase(argv.end() - 2, argv.end());
    raw = nullptr;
    error = clang_parseTranslationUnit2(index.get(), path.c_str(), argv.data(), int(argv.size()), &unsaved, 1,
                                        CXTranslationUnit_KeepGoing, &raw);
  }
  UnitPtr unit(raw);
  if (error != CXError_Success || !unit) {
    result.has_errors = true;
    result.errors.push_back("libclang could not parse the file (error " + std::to_string(int(error)) + ")");
    result.parse_ms = ms_since(start);
    return result;
  }
  for (unsigned i = 0, n = clang_getNumDiagnostics(unit.get()); i < n; i++) {
    CXDiagnostic diagnostic = clang_getDiagnostic(unit.get(), i);
    if (clang_getDiagnosticSeverity(diagnostic) >= CXDiagnostic_Error) {
      result.has_errors = true;
      if (result.errors.size() < 5)
        result.errors.push_back(take(clang_formatDiagnostic(diagnostic, clang_defaultDiagnosticDisplayOptions())));
    }
    clang_disposeDiagnostic(diagnostic);
  }
  IndexBuilder(unit.get(), result).build();
  result.parse_ms = ms_since(start);
  return result;
}

}  // namespace hlsched::server::lsp
