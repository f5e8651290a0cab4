// What the language server knows about the text of a generator source: its generator classes,
// their Funcs, Vars, Inputs/Outputs and the generate()/schedule() methods, each with its place in
// the text. Built by index_generator_source() (clang_indexer.h) from one version of a document;
// hover, code lenses, code actions and diagnostics use it to land on the right text.
//
// Every place is a byte range into the text that was indexed (`SourceIndex::text`). The text may
// have changed since; EditJournal (edit_journal.h) maps these ranges onto the current text.
//
// Threading: plain value types. An index is immutable once built and shared as
// shared_ptr<const SourceIndex>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hlsched::server::lsp {

/// A half-open byte range [begin, end) of the indexed text.
struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool contains(std::size_t offset) const { return begin <= offset && offset < end; }
  bool empty() const { return begin >= end; }
  friend bool operator==(const ByteRange &a, const ByteRange &b) { return a.begin == b.begin && a.end == b.end; }
};

/// A declared Halide object the user can hover: a Func, Var, RDom, Input<> or Output<>.
struct DeclaredObject {
  enum class Kind { Func, Var, RVar, RDom, Input, Output, GeneratorParam };
  Kind kind = Kind::Func;
  std::string identifier;    ///< the C++ name ("blur_x")
  std::string halide_name;   ///< the name given in its initializer ("blur_x"); empty if unnamed
  bool is_member = false;    ///< a member of the generator class (else a local of a method)
  ByteRange name;            ///< the identifier at its declaration
  ByteRange declaration;     ///< the whole declaration
  ByteRange scope;           ///< where the name is visible: the class, or the method body

  /// The name Halide knows it by: the initializer's string, else the C++ identifier (our best
  /// guess: unnamed Funcs get names like "f3" that no source text can predict).
  const std::string &pipeline_name() const { return halide_name.empty() ? identifier : halide_name; }
};

const char *to_string(DeclaredObject::Kind kind);

/// A statement of a method body as scheduling sees it. Many generators write their schedule at
/// the end of generate(), often under `if (auto_schedule)` or `if (get_target().has_gpu_feature())`:
/// the branches of an `if` are kept so that a suggestion can replace the directives of the branch
/// that runs.
struct BodyStatement {
  enum class Kind {
    Directive,  ///< only schedules: `f.compute_root().gpu_tile(...);`, `Func i = f.update().rfactor(...);`
    Estimates,  ///< sets estimates (kept when a schedule is replaced)
    If,         ///< an `if`, with its branches below
    Other,      ///< anything else: the algorithm, declarations, loops...
  };
  Kind kind = Kind::Other;
  ByteRange range;        ///< the statement, with its ';'
  std::string condition;  ///< Kind::If: the condition's tokens without spaces ("get_target().has_gpu_feature()")
  std::vector<BodyStatement> then_branch, else_branch;  ///< Kind::If: each branch's statements
  ByteRange then_range, else_range;  ///< Kind::If: each branch as written (braces included); else_range empty without `else`
};

/// Whether any of the statements (in any branch) only schedules.
bool holds_directives(const std::vector<BodyStatement> &statements);

/// A method of the generator (generate() or schedule()) with its body.
struct MethodInfo {
  ByteRange declaration;  ///< from the return type to the closing brace (or ';')
  ByteRange name;
  std::optional<ByteRange> body;  ///< "{ ... }" including the braces; nullopt: declared, not defined here
  /// The body's top-level statements, in order (each without a trailing comment).
  std::vector<ByteRange> statements;
  /// Per statement: true when it sets estimates (set_estimate(s), set_bounds_estimate, ...),
  /// which replacing a schedule must keep.
  std::vector<bool> statement_sets_estimates;
  /// The top-level statements again, classified, with the branches of `if`s (parallel to `statements`).
  std::vector<BodyStatement> body_statements;
};

/// One class deriving from Halide::Generator<T>.
struct GeneratorClass {
  std::string class_name;       ///< "Blur"
  std::string registered_name;  ///< from HALIDE_REGISTER_GENERATOR(Blur, blur): "blur"; may be empty
  ByteRange name;               ///< the class name in its definition
  ByteRange definition;         ///< "class Blur ... };" up to the closing brace
  std::optional<MethodInfo> generate;
  std::optional<MethodInfo> schedule;
  /// Where a new public method can go when schedule() is missing: right after generate()'s
  /// definition (generate() is public for Halide to find it, so what follows it is too).
  std::size_t new_method_offset = 0;
  std::string member_indent = "    ";  ///< indentation of the class's members
  std::vector<DeclaredObject> objects;  ///< members first, then locals of generate()/schedule()

  /// The declared Func/Input/Output whose pipeline name or identifier is `name`.
  const DeclaredObject *find_func(const std::string &pipeline_name) const;
  /// The object whose identifier is `identifier`, preferring one whose scope contains `offset`.
  const DeclaredObject *find_identifier(const std::string &identifier, std::size_t offset) const;
};

/// Everything found in one version of a document.
struct SourceIndex {
  std::string path;           ///< the document's file path
  std::int32_t version = 0;   ///< the document version that was indexed
  std::uint64_t edit_serial = 0;  ///< EditJournal serial of that version
  std::string text;           ///< the text that was indexed (ranges point into it)
  std::vector<GeneratorClass> generators;
  /// libclang found errors (the file does not compile as is). The index is still usable; when it
  /// found no generator at all the caller keeps serving the previous one, marked stale.
  bool has_errors = false;
  std::vector<std::string> errors;  ///< first few error messages, for logs
  double parse_ms = 0;

  /// The generator class whose definition contains `offset`; else the only/first generator;
  /// nullptr when there is none.
  const GeneratorClass *generator_at(std::size_t offset) const;
  /// The generator registered as `name` (or with that class name); the only one when `name` is
  /// empty; nullptr when ambiguous or absent.
  const GeneratorClass *find_generator(const std::string &name) const;
};

/// The C++ identifier that covers byte `offset` in `text` (letters, digits, '_'), or "".
std::string identifier_at(const std::string &text, std::size_t offset, ByteRange *where = nullptr);

}  // namespace hlsched::server::lsp
