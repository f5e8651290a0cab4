// Generators whose schedule lives in generate() (no schedule() method), as many are written, or
// under an `if` in schedule(): the code action a Halide user applies ("Replace schedule", or a new
// schedule() method when there is no schedule at all) must give a file that compiles and lowers to exactly the program the
// suggested schedule applied by hlsched lowers to. The action is the language server's own
// (schedule_actions) on a real analysis result; the compiles are the real `hlsched` runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <tuple>

#include "cli_runner.h"
#include "lsp/clang_indexer.h"
#include "lsp/schedule_edit.h"

using namespace hlsched::testing;
using namespace hlsched::server::lsp;

namespace {

// The editor's side: the document as the server sees it after analyzing `path` with `result`.
Document analyzed_document(const std::filesystem::path &path, const std::string &text, const nlohmann::json &result) {
  Document d;
  d.uri = "file://" + path.string();
  d.path = path;
  d.text = hlsched::protocol::TextDocument(text, 1);
  static ClangIndexer indexer(ClangIndexerOptions{HLSCHED_TEST_CACHE_DIR, {}, true});
  d.index = std::make_shared<SourceIndex>(indexer.index(path.string(), text, 1, 0, {}));
  auto analysis = std::make_shared<DocumentAnalysis>();
  analysis->snapshot = d.snapshot();
  analysis->outcome.status = hlsched::server::AnalysisOutcome::Status::Ok;
  analysis->outcome.result = result;
  d.analysis = analysis;
  return d;
}

std::string apply_text_edits(const hlsched::protocol::TextDocument &doc, const std::vector<ScheduleAction> &actions,
                             const std::string &title) {
  for (const ScheduleAction &a : actions) {
    if (a.title != title) continue;
    hlsched::protocol::TextDocument edited = doc;
    // Later edits first, so that earlier ranges stay valid (what editors do with a WorkspaceEdit).
    std::vector<hlsched::protocol::lsp::TextEdit> edits = a.edits;
    std::sort(edits.begin(), edits.end(), [](const auto &x, const auto &y) {
      return std::tie(x.range.start.line, x.range.start.character) > std::tie(y.range.start.line, y.range.start.character);
    });
    for (const auto &e : edits) {
      hlsched::protocol::lsp::TextDocumentContentChangeEvent change;
      change.range = e.range;
      change.text = e.newText;
      edited.apply_change(change);
    }
    return edited.text();
  }
  FAIL("no code action '" << title << "'");
  return {};
}

struct Shape {
  std::string file;
  std::string action;
  std::vector<std::string> kept;     ///< text the edit must leave (algorithm, estimates, the CPU branch)
  std::vector<std::string> removed;  ///< the user's GPU directives and the Vars only they used
  std::string cursor;                ///< where the editor's cursor is (the start of this text); "" none
};

}  // namespace

TEST_CASE("schedules written in generate(): the code action's result compiles and lowers to the applied schedule",
          "[e2e][schedule][generate]") {
  const std::string algorithm = "output(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3.0f;";
  const std::string estimates = "output.set_estimates({{0, 1024}, {0, 768}});";
  const std::string gpu_directive = "output.gpu_tile(x, y, xo, yo, xi, yi, 16, 16);";
  const std::string gpu_vars = "Var xo, yo, xi, yi;";
  const std::string cpu_directive = "output.parallel(y).vectorize(x, 8);";
  const std::vector<Shape> shapes = {
      {"none.cpp", "Insert suggested schedule (new schedule() method)", {algorithm, estimates}, {}},
      {"unconditional.cpp", "Replace schedule", {algorithm, estimates}, {gpu_directive, gpu_vars}},
      {"gpu_if.cpp", "Replace schedule", {algorithm, estimates, cpu_directive}, {gpu_directive, gpu_vars}},
      {"auto_if.cpp", "Replace schedule", {algorithm, estimates, "if (auto_schedule) {"}, {gpu_directive, gpu_vars}},
      // `tiled` is a GeneratorParam (true by default, as analyzed): the cursor picks its branch.
      {"param_if.cpp", "Replace schedule in this branch", {algorithm, estimates, "if (tiled) {", cpu_directive},
       {gpu_directive, gpu_vars}, gpu_directive},
      // In schedule(): the manual branch goes, and the member Vars only it used.
      {"auto_if_in_schedule.cpp", "Replace schedule", {algorithm, estimates, "if (auto_schedule) {", "Var x{\"x\"}, y{\"y\"};"},
       {gpu_directive, "xo{\"xo\"}"}},
  };
  // A deterministic search (no deadline): the schedule applied is the one suggested.
  const std::vector<std::string> search = {"--beam-size", "4", "--passes", "1", "--time-budget", "100000", "--no-memo"};
  auto dir = scratch_dir("schedule-in-generate");
  std::string first_plan;
  for (const Shape &shape : shapes) {
    INFO(shape.file);
    const auto source = source_path("tests/data/schedule_in_generate/" + shape.file);
    const std::string stem = std::filesystem::path(shape.file).stem().string();
    const auto applied_stmt = dir / (stem + ".applied.stmt");
    std::vector<std::string> args = {"schedule", "--json", "--stmt-out", applied_stmt.string(), source.string()};
    args.insert(args.end(), search.begin(), search.end());
    auto scheduled = run_hlsched(args);
    INFO(scheduled.stderr_text);
    REQUIRE(scheduled.exit_code == 0);
    const nlohmann::json result = stdout_json(scheduled);
    // The files hold one algorithm: the schedule generate() writes does not change the plan.
    if (first_plan.empty()) first_plan = result["schedule_code"].get<std::string>();
    CHECK(result["schedule_code"].get<std::string>() == first_plan);

    const std::string text = read_file(source);
    const Document doc = analyzed_document(source, text, result);
    std::optional<std::size_t> cursor;
    if (!shape.cursor.empty()) cursor = text.find(shape.cursor);
    const std::vector<ScheduleAction> actions = schedule_actions(doc, cursor);
    auto preferred = std::find_if(actions.begin(), actions.end(), [](const ScheduleAction &a) { return a.preferred; });
    REQUIRE(preferred != actions.end());
    CHECK(preferred->title == shape.action);
    const std::string edited = apply_text_edits(doc.text, actions, shape.action);
    INFO(edited);
    for (const std::string &k : shape.kept) CHECK(edited.find(k) != std::string::npos);
    for (const std::string &r : shape.removed) CHECK(edited.find(r) == std::string::npos);

    const auto pasted = dir / shape.file;
    std::ofstream(pasted) << edited;
    const auto pasted_stmt = dir / (stem + ".pasted.stmt");
    auto lowered = run_hlsched({"lower", "--json", "--stmt-out", pasted_stmt.string(), pasted.string()});
    INFO(lowered.stderr_text);
    REQUIRE(lowered.exit_code == 0);
    CHECK(stdout_json(lowered)["gpu_kernels"] == result["verified"]["gpu_kernels"]);
    CHECK(canonical_lowered_program(read_file(pasted_stmt)) == canonical_lowered_program(read_file(applied_stmt)));

    // Analyzed again, the edited file is planned as the original was, and a second suggestion
    // replaces the block the first one left.
    args[4] = pasted.string();
    auto again = run_hlsched(args);
    INFO(again.stderr_text);
    REQUIRE(again.exit_code == 0);
    const nlohmann::json result_again = stdout_json(again);
    CHECK(result_again["schedule_code"] == result["schedule_code"]);
    const Document edited_doc = analyzed_document(pasted, edited, result_again);
    const std::vector<ScheduleAction> next = schedule_actions(edited_doc);
    REQUIRE(next.size() == 1);
    CHECK(next.front().title == "Replace suggested schedule");
  }
}
