// The editor features computed from a document, its index and an analysis: code action edits,
// hover, code lenses, diagnostics, explanations. The analysis is canned (no compiler runs here);
// tests/server/lsp_e2e_test.cpp checks the real thing end to end.
#include <catch2/catch.hpp>

#include "lsp/clang_indexer.h"
#include "lsp/code_lens.h"
#include "lsp/diagnostics.h"
#include "lsp/hover.h"
#include "lsp/orphaned_declarations.h"
#include "lsp/schedule_edit.h"
#include "lsp/schedule_summary.h"
#include "test_support.h"

using namespace hlsched::server::lsp;
using namespace hlsched::server::testing;
using hlsched::server::AnalysisOutcome;
using nlohmann::json;
namespace plsp = hlsched::protocol::lsp;

namespace {

// What the worker reports for blur (shape of result_json.cpp's output; numbers made up).
json blur_result() {
  return json{
      {"generator", "blur"},
      {"gpu_profile", "h200"},
      {"target", "host-cuda"},
      {"predicted_runtime_ms", 0.0125},
      {"schedule_code",
       "// Schedule by hlsched.\nusing namespace Halide;\nVar x(\"x\"), y(\"y\");\n\n// output: own kernel\n"
       "Func output(hlsched_funcs.at(\"output\"));\noutput.compute_root()\n    .gpu_tile(x, y, 32, 8);\n\n"
       "// blur_x: own kernel\nFunc blur_x(hlsched_funcs.at(\"blur_x\"));\nblur_x.compute_root();\n\n"
       "// repeat_edge: inlined into blur_x\n"},
      {"stages",
       {{{"func", "output"}, {"stage", 0}, {"placement", "root kernel"}, {"predicted_ms", 0.005}, {"bound", "launch"},
         {"terms", {{"launch", 0.003}, {"dram", 0.0015}, {"compute", 0.0005}, {"latency", 0.0}}}},
        {{"func", "blur_x"}, {"stage", 0}, {"placement", "root kernel"}, {"predicted_ms", 0.0075}, {"bound", "memory"},
         {"terms", {{"dram", 0.006}, {"launch", 0.0015}}}}}},
      {"funcs",
       {{{"func", "output"}, {"compute", "root"}, {"comment", "output: own kernel"}},
        {{"func", "blur_x"}, {"compute", "root"}, {"comment", "blur_x: own kernel"}},
        {{"func", "repeat_edge"}, {"compute", "inline"}, {"comment", "repeat_edge: inlined into blur_x"}}}},
      {"search", {{"strategy", "beam"}, {"states_evaluated", 120}, {"time_ms", 15.0}, {"budget_exhausted", true}}}};
}

struct Fixture {
  Document doc;

  explicit Fixture(std::string text, std::string relative = "examples/blur/blur_generator.cpp") {
    const auto path = source_path(relative);
    doc.uri = "file://" + path.string();
    doc.path = path;
    doc.text = hlsched::protocol::TextDocument(std::move(text), 1);
    static ClangIndexer indexer(ClangIndexerOptions{test_cache_dir(), {}, true});
    doc.index = std::make_shared<SourceIndex>(indexer.index(path.string(), doc.text.text(), 1, 0, {}));
  }

  void analyze(AnalysisOutcome::Status status, json result = {}, std::string kind = {}, std::string message = {}) {
    auto a = std::make_shared<DocumentAnalysis>();
    a->snapshot = doc.snapshot();
    a->outcome.status = status;
    a->outcome.result = std::move(result);
    a->outcome.error_kind = std::move(kind);
    a->outcome.message = std::move(message);
    doc.analysis = a;
  }

  // Types `inserted` at the start of line `line` (an edit the journal records).
  void type_at_line_start(std::uint32_t line, const std::string &inserted) {
    std::vector<plsp::TextDocumentContentChangeEvent> change(1);
    change[0].range = plsp::Range{{line, 0}, {line, 0}};
    change[0].text = inserted;
    apply_and_record(doc.text, doc.journal, change, doc.text.version() + 1);
  }

  const ScheduleAction *action(const std::vector<ScheduleAction> &actions, const std::string &title) {
    for (const auto &a : actions)
      if (a.title == title) return &a;
    return nullptr;
  }
};

std::string blur_text() { return read_file(source_path("examples/blur/blur_generator.cpp")); }

plsp::Position position_of(const Document &d, const std::string &needle, std::size_t nth = 0) {
  std::size_t at = d.text.text().find(needle);
  for (std::size_t i = 0; i < nth; i++) at = d.text.text().find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  return d.text.position_at(at + 1);
}

}  // namespace

TEST_CASE("Replace schedule keeps estimates and replaces the user's directives", "[features][code_action]") {
  Fixture f(blur_text());
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  std::vector<ScheduleAction> actions = schedule_actions(f.doc);
  REQUIRE(actions.size() == 2);
  const ScheduleAction *replace = f.action(actions, "Replace schedule");
  REQUIRE(replace);
  CHECK(replace->preferred);
  const std::string edited = apply_edits(f.doc.text.text(), replace->edits);
  CHECK(edited.find("input.set_estimates({{0, 1920}, {0, 1080}});") != std::string::npos);
  CHECK(edited.find("output.set_estimates({{0, 1920}, {0, 1080}});") != std::string::npos);
  CHECK(edited.find("schedule_kind.value() == \"manual\"") == std::string::npos);
  CHECK(edited.find(std::string(kBeginMarker) + " (predicted 0.0125 ms on h200)") != std::string::npos);
  CHECK(edited.find("            Func blur_x(hlsched_funcs.at(\"blur_x\"));\n") != std::string::npos);
  CHECK(edited.find(kEndMarker) < edited.find("    }\n\nprivate:"));
  // Everything before schedule() is untouched; of the members, the Vars only the manual schedule
  // named are gone, those of the algorithm stay.
  CHECK(edited.substr(0, edited.find("void schedule()")) ==
        f.doc.text.text().substr(0, f.doc.text.text().find("void schedule()")));
  CHECK(edited.find("\n    Var x{\"x\"}, y{\"y\"};\n    Func blur_x{\"blur_x\"};\n") != std::string::npos);

  const ScheduleAction *insert = f.action(actions, "Insert suggested schedule");
  REQUIRE(insert);
  const std::string appended = apply_edits(f.doc.text.text(), insert->edits);
  CHECK(appended.find("schedule_kind.value() == \"manual\"") != std::string::npos);
  CHECK(appended.find("        " + std::string(kBeginMarker)) != std::string::npos);
  CHECK(appended.find("yii{\"yii\"}") != std::string::npos);
}

TEST_CASE("with the cursor in a GeneratorParam's branch, Replace schedule can replace that branch only",
          "[features][code_action]") {
  Fixture f(blur_text());
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  const std::string &text = f.doc.text.text();
  // Outside the `if`: as without a cursor.
  CHECK_FALSE(f.action(schedule_actions(f.doc, text.find("blur_x(x, y) =")), "Replace schedule in this branch"));

  std::vector<ScheduleAction> actions = schedule_actions(f.doc, text.find(".unroll(yii)"));
  REQUIRE(actions.size() == 3);
  const ScheduleAction *in_branch = f.action(actions, "Replace schedule in this branch");
  const ScheduleAction *whole = f.action(actions, "Replace schedule");
  REQUIRE(in_branch);
  REQUIRE(whole);
  CHECK(in_branch->preferred);
  CHECK_FALSE(whole->preferred);
  const std::string edited = apply_edits(text, in_branch->edits);
  INFO(edited);
  const std::size_t branch = edited.find("        if (schedule_kind.value() == \"manual\") {\n");
  REQUIRE(branch != std::string::npos);
  CHECK(edited.find("            " + std::string(kBeginMarker)) > branch);
  CHECK(edited.find("gpu_tile(x, y, xo") == std::string::npos);
  CHECK(edited.find("\n    Var x{\"x\"}, y{\"y\"};\n") != std::string::npos);
  CHECK(edited.find("output.set_estimates({{0, 1920}, {0, 1080}});") != std::string::npos);
}

TEST_CASE("a second suggestion replaces the block the first one left", "[features][code_action]") {
  Fixture first(blur_text());
  first.analyze(AnalysisOutcome::Status::Ok, blur_result());
  const std::string once = apply_edits(first.doc.text.text(), first.action(schedule_actions(first.doc), "Replace schedule")->edits);

  Fixture second(once);
  json result = blur_result();
  result["predicted_runtime_ms"] = 0.01;
  second.analyze(AnalysisOutcome::Status::Ok, result);
  std::vector<ScheduleAction> actions = schedule_actions(second.doc);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].title == "Replace suggested schedule");
  const std::string twice = apply_edits(once, actions[0].edits);
  CHECK(twice.find("(predicted 0.01 ms on h200)") != std::string::npos);
  CHECK(twice.find("(predicted 0.0125 ms") == std::string::npos);
  CHECK(std::count(twice.begin(), twice.end(), '{') == std::count(once.begin(), once.end(), '{'));
}

TEST_CASE("without schedule() the action creates one after generate()", "[features][code_action]") {
  std::string text = blur_text();
  const std::size_t begin = text.find("    void schedule() {");
  const std::size_t end = text.find("\nprivate:");
  text.erase(begin, end - begin);
  Fixture f(text);
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  std::vector<ScheduleAction> actions = schedule_actions(f.doc);
  REQUIRE(actions.size() == 1);
  const std::string edited = apply_edits(text, actions[0].edits);
  const std::size_t method = edited.find("\n    void schedule() {\n        " + std::string(kBeginMarker));
  REQUIRE(method != std::string::npos);
  CHECK(method > edited.find("void generate()"));
  CHECK(method < edited.find("private:"));
}

// tests/data/schedule_in_generate/: generators without schedule() that schedule in generate().
// (tests/e2e/test_schedule_in_generate.cpp compiles the results and compares the lowered programs.)
std::string shape_path(const std::string &file) { return "tests/data/schedule_in_generate/" + file; }

json shape_result() {
  json r = blur_result();
  r["generator"] = "shape";
  r["schedule_code"] = "using namespace Halide;\nstd::map<std::string, Internal::Function> hlsched_funcs;\n"
                       "for (const Func &out : get_pipeline().outputs()) {\n    hlsched_funcs.emplace(out.name(), out.function());\n}\n"
                       "Func output(hlsched_funcs.at(\"output\"));\noutput.compute_root();\n";
  return r;
}

TEST_CASE("a schedule in generate()'s GPU branch is replaced there, the CPU branch stays", "[features][code_action]") {
  const std::string text = read_file(source_path(shape_path("gpu_if.cpp")));
  Fixture f(text, shape_path("gpu_if.cpp"));
  f.analyze(AnalysisOutcome::Status::Ok, shape_result());
  std::vector<ScheduleAction> actions = schedule_actions(f.doc);
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].title == "Replace schedule");
  const std::string edited = apply_edits(text, actions[0].edits);
  INFO(edited);
  const std::size_t block = edited.find("            " + std::string(kBeginMarker));
  REQUIRE(block != std::string::npos);
  CHECK(block > edited.find("if (get_target().has_gpu_feature()) {"));
  CHECK(edited.find(kEndMarker) < edited.find("} else {"));
  CHECK(edited.find("output.gpu_tile(") == std::string::npos);
  CHECK(edited.find("blur_x.compute_at(output, xo)") == std::string::npos);
  CHECK(edited.find("output.parallel(y).vectorize(x, 8);") != std::string::npos);
  CHECK(edited.find("blur_x.compute_at(output, y).vectorize(x, 8);") != std::string::npos);
  // Inside generate(), get_pipeline() is not available yet: the Outputs are named instead.
  CHECK(edited.find("for (const Func &out : std::vector<Func>{output}) {") != std::string::npos);
  CHECK(edited.find("void schedule()") == std::string::npos);
}

TEST_CASE("a schedule at the end of generate() or in its manual branch is replaced in place", "[features][code_action]") {
  for (const std::string file : {"unconditional.cpp", "auto_if.cpp"}) {
    INFO(file);
    const std::string text = read_file(source_path(shape_path(file)));
    Fixture f(text, shape_path(file));
    f.analyze(AnalysisOutcome::Status::Ok, shape_result());
    std::vector<ScheduleAction> actions = schedule_actions(f.doc);
    REQUIRE(actions.size() == 1);
    CHECK(actions[0].title == "Replace schedule");
    const std::string edited = apply_edits(text, actions[0].edits);
    INFO(edited);
    CHECK(edited.find("gpu_tile(x, y, xo, yo") == std::string::npos);
    CHECK(edited.find("Var xo") == std::string::npos);  // only the directives used them
    CHECK(edited.find("output.set_estimates({{0, 1024}, {0, 768}});") != std::string::npos);
    CHECK(edited.find("output(x, y) = (blur_x(x, y - 1)") != std::string::npos);
    CHECK(edited.find(kBeginMarker) > edited.find("output.set_estimates"));
    CHECK(edited.find(kEndMarker) < edited.find("\nprivate:"));
    if (file == "auto_if.cpp") CHECK(edited.find(kBeginMarker) > edited.find("} else {"));
  }
}

TEST_CASE("a schedule in generate() under a condition we cannot judge: the branch the cursor is in", "[features][code_action]") {
  // `if (tiled)` (a GeneratorParam): whether the suggestion should replace that branch is the user's call.
  const std::string text = read_file(source_path(shape_path("param_if.cpp")));
  Fixture f(text, shape_path("param_if.cpp"));
  f.analyze(AnalysisOutcome::Status::Ok, shape_result());
  CHECK(schedule_actions(f.doc).empty());
  CHECK(schedule_actions(f.doc, text.find("blur_x(x, y) =")).empty());

  // In the else branch: the CPU directives go; the then branch keeps its Vars (it uses them).
  std::vector<ScheduleAction> actions = schedule_actions(f.doc, text.find("output.parallel(y)"));
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].title == "Replace schedule in this branch");
  std::string edited = apply_edits(text, actions[0].edits);
  INFO(edited);
  CHECK(edited.find("output.parallel(y)") == std::string::npos);
  CHECK(edited.find("Var xo, yo, xi, yi;\n            output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);") != std::string::npos);
  CHECK(edited.find(kBeginMarker) > edited.find("} else {"));

  // In the then branch: its directives and the Vars only they used go; the else branch stays.
  actions = schedule_actions(f.doc, text.find("Var xo, yo"));
  REQUIRE(actions.size() == 1);
  edited = apply_edits(text, actions[0].edits);
  CHECK(edited.find("Var xo, yo, xi, yi;") == std::string::npos);
  CHECK(edited.find("output.gpu_tile(") == std::string::npos);
  CHECK(edited.find("output.parallel(y).vectorize(x, 8);") != std::string::npos);
  CHECK(edited.find(kBeginMarker) > edited.find("if (tiled) {"));
  CHECK(edited.find(kEndMarker) < edited.find("} else {"));
}

TEST_CASE("in schedule(), an `if (auto_schedule)` keeps its estimates, the manual branch and its Vars are replaced",
          "[features][code_action]") {
  const std::string text = read_file(source_path(shape_path("auto_if_in_schedule.cpp")));
  Fixture f(text, shape_path("auto_if_in_schedule.cpp"));
  json result = shape_result();
  result["schedule_code"] = blur_result()["schedule_code"];
  f.analyze(AnalysisOutcome::Status::Ok, result);
  std::vector<ScheduleAction> actions = schedule_actions(f.doc);
  REQUIRE(actions.size() == 2);
  const ScheduleAction *replace = f.action(actions, "Replace schedule");
  REQUIRE(replace);
  CHECK(replace->preferred);
  const std::string edited = apply_edits(text, replace->edits);
  INFO(edited);
  CHECK(edited.find("        if (auto_schedule) {\n            input.set_estimates") != std::string::npos);
  CHECK(edited.find("            " + std::string(kBeginMarker)) > edited.find("} else {"));
  CHECK(edited.find("gpu_tile(x, y, xo") == std::string::npos);
  CHECK(edited.find("\n    Var x{\"x\"}, y{\"y\"};\n") != std::string::npos);
}

TEST_CASE("orphaned declarations: a Var still named elsewhere stays, a partly used list is rewritten",
          "[features][code_action]") {
  GeneratorClass g;
  const std::string text =
      "void f() {\n    Var xo{\"xo\"}, used, yo;  // xo\n    a.split(x, xo, xi, 8);\n    b(used) = 1;\n    "
      "c.tile(yo);\n    Var lone;\n    c.split(lone);\n    Var never;\n}\n";
  auto declare = [&](const std::string &name, std::size_t statement) {
    DeclaredObject o;
    o.kind = DeclaredObject::Kind::Var;
    o.identifier = name;
    const std::size_t at = text.find(name, statement);
    o.name = {at, at + name.size()};
    // As libclang has it: the first declarator of a statement starts at its type, later ones at their name.
    o.declaration = {text.compare(statement, 4, "Var ") == 0 && at == statement + 4 ? statement : at, at + name.size()};
    o.scope = {0, text.size()};
    g.objects.push_back(o);
  };
  const std::size_t list = text.find("Var xo"), lone = text.find("Var lone"), never = text.find("Var never");
  for (const char *name : {"xo", "used", "yo"}) declare(name, list);
  declare("lone", lone);
  declare("never", never);
  const std::size_t split = text.find("a.split"), tile = text.find("c.tile"), lone_split = text.find("c.split");
  // a.split and c.split removed: xo and lone were only used there; yo is still used by c.tile.
  std::vector<DeclarationEdit> edits = orphaned_declarations(
      text, g, {{split, text.find(';', split) + 1}, {lone_split, text.find(';', lone_split) + 1}});
  REQUIRE(edits.size() == 2);
  CHECK_FALSE(edits[0].whole_statement);
  CHECK(text.substr(edits[0].range.begin, edits[0].range.end - edits[0].range.begin) == "xo{\"xo\"}, used, yo");
  CHECK(edits[0].text == "used, yo");
  CHECK(edits[1].whole_statement);
  CHECK(text.substr(edits[1].range.begin, edits[1].range.end - edits[1].range.begin) == "Var lone;");
  // c.tile removed too: yo goes as well; `never` (unused before) is not ours to remove.
  edits = orphaned_declarations(text, g, {{split, text.find(';', split) + 1}, {tile, text.find(';', tile) + 1}});
  REQUIRE(edits.size() == 1);
  CHECK(edits[0].text == "used");
  // A list whose first declarator is not indexed is left alone (rewriting it could drop that one).
  g.objects.erase(g.objects.begin());
  CHECK(orphaned_declarations(text, g, {{split, text.find(';', split) + 1}, {tile, text.find(';', tile) + 1}}).empty());
}


TEST_CASE("no edits against a stale index or a stale or failed analysis", "[features][code_action]") {
  Fixture f(blur_text());
  f.analyze(AnalysisOutcome::Status::CompileError, json(), "compile_error", "does not compile");
  CHECK(schedule_actions(f.doc).empty());
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  CHECK_FALSE(schedule_actions(f.doc).empty());
  f.type_at_line_start(0, "// typing\n");
  CHECK(schedule_actions(f.doc).empty());  // both describe the text before the edit
}

TEST_CASE("hover on a Func, on the class, and after edits", "[features][hover]") {
  Fixture f(blur_text());
  CHECK(hover_at(f.doc, position_of(f.doc, "blur_x(x, y) ="))->contents.value.find("analyzing") != std::string::npos);
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());

  auto on_func = hover_at(f.doc, position_of(f.doc, "blur_x(x, y) ="));
  REQUIRE(on_func);
  const std::string &md = on_func->contents.value;
  CHECK(md.find("**blur_x** — predicted **0.0075 ms** of 0.0125 ms on h200") != std::string::npos);
  CHECK(md.find("DRAM traffic 0.006 ms") != std::string::npos);
  CHECK(md.find("memory") != std::string::npos);
  CHECK(md.find("blur_x.compute_root();") != std::string::npos);
  CHECK(md.find("output.compute_root") == std::string::npos);
  REQUIRE(on_func->range);
  CHECK(on_func->range->end.character - on_func->range->start.character == 6);

  auto on_output = hover_at(f.doc, position_of(f.doc, "output(x, y) ="));
  REQUIRE(on_output);
  CHECK(on_output->contents.value.find("exposed memory latency") == std::string::npos);  // zero terms are left out

  auto on_class = hover_at(f.doc, position_of(f.doc, "Blur :"));
  REQUIRE(on_class);
  CHECK(on_class->contents.value.find("(`blur`) — predicted **0.0125 ms** on h200") != std::string::npos);

  CHECK_FALSE(hover_at(f.doc, position_of(f.doc, "uint16_t")));  // not ours
  CHECK_FALSE(hover_at(f.doc, position_of(f.doc, "input.set_estimates")));  // inputs are not scheduled

  // After typing, hovers still work (names are read from the current text) and say they are stale.
  f.type_at_line_start(1, "// a comment\n");
  auto stale = hover_at(f.doc, position_of(f.doc, "blur_x(x, y) ="));
  REQUIRE(stale);
  CHECK(stale->contents.value.find("from version 1 of this file") != std::string::npos);
}

TEST_CASE("code lenses above the class and the scheduled Funcs, moved by edits", "[features][code_lens]") {
  Fixture f(blur_text());
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  auto lenses = code_lenses(f.doc);
  REQUIRE(lenses.size() == 4);  // total, apply, blur_x, output
  const std::uint32_t class_line = position_of(f.doc, "class Blur").line;
  CHECK(lenses[0].range.start.line == class_line);
  CHECK(lenses[0].command->title == "hlsched: 0.0125 ms predicted on h200");
  CHECK(lenses[1].command->command == kApplyScheduleCommand);
  bool found_blur_x = false;
  for (const auto &l : lenses)
    if (l.command->title == "blur_x: 0.0075 ms (60% of the pipeline, memory-bound)") {
      found_blur_x = true;
      CHECK(l.range.start.line == position_of(f.doc, "Func blur_x").line);
    }
  CHECK(found_blur_x);

  f.type_at_line_start(0, "// one\n// two\n");
  auto moved = code_lenses(f.doc);
  REQUIRE(moved.size() == 3);  // no "apply" on a stale analysis
  CHECK(moved[0].range.start.line == class_line + 2);
  CHECK(moved[0].command->title.find("(stale)") != std::string::npos);
}

TEST_CASE("diagnostics: compile errors at their lines, failures on the class, warnings", "[features][diagnostics]") {
  Fixture f(blur_text());
  f.analyze(AnalysisOutcome::Status::Ok, blur_result());
  std::vector<plsp::Diagnostic> ok = diagnostics_for(f.doc, *f.doc.analysis);
  // blur_x takes 60% of the time; the search ran out of budget. The user has a schedule of their own.
  REQUIRE(ok.size() == 2);
  CHECK(ok[0].code == json("dominant_stage"));
  CHECK(ok[0].range.start.line == position_of(f.doc, "Func blur_x").line);
  CHECK(ok[1].code == json("search_budget"));
  CHECK(ok[1].severity == plsp::DiagnosticSeverity::Warning);
  CHECK(ok[1].message.find("work budget") != std::string::npos);
  // Stopped by the wall clock instead: the user learns the pick may depend on the load.
  auto timed_out = std::make_shared<DocumentAnalysis>(*f.doc.analysis);
  timed_out->outcome.result["search"]["time_limit_reached"] = true;
  f.doc.analysis = timed_out;
  std::vector<plsp::Diagnostic> timed = diagnostics_for(f.doc, *f.doc.analysis);
  REQUIRE(timed.size() == 2);
  CHECK(timed[1].message.find("time limit") != std::string::npos);
  CHECK(timed[1].message.find("busy machine") != std::string::npos);

  auto crashed = std::make_shared<DocumentAnalysis>(*f.doc.analysis);
  crashed->outcome.status = AnalysisOutcome::Status::Crashed;
  crashed->outcome.error_kind = "crash";
  crashed->outcome.message = "the generator crashed with SIGSEGV";
  auto d = diagnostics_for(f.doc, *crashed);
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == plsp::DiagnosticSeverity::Error);
  CHECK(d[0].code == json("crash"));
  CHECK(d[0].range.start.line == position_of(f.doc, "class Blur").line);

  auto halide_error = std::make_shared<DocumentAnalysis>(*crashed);
  halide_error->outcome.status = AnalysisOutcome::Status::UserError;
  halide_error->outcome.error_kind = "halide_error";
  halide_error->outcome.message = "Error: Func \"blur_x\" cannot be scheduled to be computed inline, because it has an update";
  d = diagnostics_for(f.doc, *halide_error);
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == json("halide_error"));
  CHECK(d[0].range.start.line == position_of(f.doc, "Func blur_x").line);

  auto estimates = std::make_shared<DocumentAnalysis>(*crashed);
  estimates->outcome.status = AnalysisOutcome::Status::UserError;
  estimates->outcome.error_kind = "missing_estimates";
  estimates->outcome.message = "missing estimates on input 'input', output 'output'. Add them in schedule().";
  d = diagnostics_for(f.doc, *estimates);
  REQUIRE(d.size() == 2);
  CHECK(d[0].range.start.line == position_of(f.doc, "Input<Buffer").line);
  CHECK(d[1].range.start.line == position_of(f.doc, "Output<Buffer").line);
  CHECK(d[0].message.find("Add them in schedule()") != std::string::npos);

  auto compile = std::make_shared<DocumentAnalysis>(*crashed);
  compile->outcome.status = AnalysisOutcome::Status::CompileError;
  compile->compile_diagnostics = {
      {true, "x.cpp", 17, 9, "error", "'blur_x' was not declared in this scope"},
      {true, "x.cpp", 3, 1, "note", "declared here"},
      {false, "/usr/include/halide14/Halide.h", 100, 1, "error", "something in Halide.h"}};
  d = diagnostics_for(f.doc, *compile);
  REQUIRE(d.size() == 2);
  CHECK(d[0].range.start == plsp::Position{16, 8});
  CHECK(d[0].range.end == plsp::Position{16, 14});  // the identifier
  CHECK(d[0].message == "'blur_x' was not declared in this scope\nnote: line 3: declared here");
  CHECK(d[1].range.start.line == 1);  // #include "Halide.h"
  CHECK(d[1].message.rfind("Halide.h:100:1: ", 0) == 0);
}

TEST_CASE("no-schedule information when schedule() only sets estimates", "[features][diagnostics]") {
  Fixture f(read_file(source_path("tests/data/generators/stencil_chain_small.cpp")),
            "tests/data/generators/stencil_chain_small.cpp");
  json result = blur_result();
  result["generator"] = "stencil_small";
  result["search"]["budget_exhausted"] = false;
  result["stages"] = json::array();
  f.analyze(AnalysisOutcome::Status::Ok, result);
  auto d = diagnostics_for(f.doc, *f.doc.analysis);
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == json("no_schedule"));
  CHECK(d[0].severity == plsp::DiagnosticSeverity::Information);
}

TEST_CASE("a schedule in generate() is the user's own: no no-schedule information, hover and lenses work",
          "[features][diagnostics]") {
  for (const std::string file : {"none.cpp", "unconditional.cpp", "gpu_if.cpp", "auto_if.cpp"}) {
    INFO(file);
    Fixture f(read_file(source_path(shape_path(file))), shape_path(file));
    json result = shape_result();
    result["search"]["budget_exhausted"] = false;
    f.analyze(AnalysisOutcome::Status::Ok, result);
    bool no_schedule = false;
    for (const auto &d : diagnostics_for(f.doc, *f.doc.analysis)) no_schedule = no_schedule || d.code == json("no_schedule");
    CHECK(no_schedule == (file == "none.cpp"));
    auto hover = hover_at(f.doc, position_of(f.doc, "output(x, y) ="));
    REQUIRE(hover);
    CHECK(hover->contents.value.find("**output**") != std::string::npos);
    CHECK_FALSE(code_lenses(f.doc).empty());
  }
}

TEST_CASE("explanations name the dominant terms in words", "[features][explain]") {
  ScheduleSummary s = summarize(blur_result());
  REQUIRE(s.stages.size() == 2);
  CHECK(s.stages[0].terms.front().first == "launch");  // sorted, largest first
  CHECK(explain_stage(s.stages[1], s.predicted_runtime_ms) ==
        "blur_x (root kernel): 0.0075 ms, 60% of the pipeline, memory-bound: DRAM traffic 0.006 ms (80%), "
        "kernel launch overhead 0.0015 ms (20%).");
  json e = explain(s);
  CHECK(e["stages"][0]["func"] == "blur_x");  // costliest first
  CHECK(e["stages"][0]["dominant_terms"].size() == 2);
  CHECK(e["summary"].get<std::string>().find("the costliest is blur_x") != std::string::npos);
  CHECK(schedule_lines_for(s.schedule_code, "blur_x") ==
        "// blur_x: own kernel\nFunc blur_x(hlsched_funcs.at(\"blur_x\"));\nblur_x.compute_root();\n");
  CHECK(schedule_lines_for(s.schedule_code, "repeat_edge").empty());
  CHECK(format_ms(0.000012) == "1.2e-05 ms");
  CHECK(format_ms(123.4) == "123 ms");
}
