// The three ways user code fails (compile error, crash, hang), each with its own clear error and
// exit status 1; plus generator selection and missing estimates.
#include <catch2/catch.hpp>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("cli: a compile error reports the compiler's file:line:col", "[e2e][errors]") {
  auto run = run_hlsched({"schedule", source_path("tests/data/bad_generators/compile_error.cpp").string()});
  INFO(run.stderr_text);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.stderr_text, "does not compile"));
  CHECK(contains(run.stderr_text, "compile_error.cpp:12:"));
  CHECK(contains(run.stderr_text, "undefined_name"));

  auto json_run = run_hlsched({"schedule", "--json", source_path("tests/data/bad_generators/compile_error.cpp").string()});
  auto error = stdout_json(json_run)["error"];
  CHECK(error["kind"] == "compile_error");
  REQUIRE(error["diagnostics"].size() >= 1);
  CHECK(error["diagnostics"][0]["line"] == 12);
  CHECK(error["diagnostics"][0]["column"].get<int>() > 0);
}

TEST_CASE("cli: a crashing generator is reported with its signal", "[e2e][errors]") {
  auto run = run_hlsched({"schedule", source_path("tests/data/bad_generators/crashes.cpp").string()});
  INFO(run.stderr_text);
  CHECK(run.kind == hlsched::WorkerOutcome::Kind::Exited);  // hlsched itself survives
  CHECK(run.exit_code == 1);
  CHECK(contains(run.stderr_text, "crashed with SIGSEGV"));
}

TEST_CASE("cli: a hanging generator hits the time limit", "[e2e][errors]") {
  auto run = run_hlsched({"schedule", "--timeout", "2", source_path("tests/data/bad_generators/hangs.cpp").string()});
  INFO(run.stderr_text);
  CHECK(run.kind == hlsched::WorkerOutcome::Kind::Exited);
  CHECK(run.exit_code == 1);
  CHECK(contains(run.stderr_text, "did not finish within 2"));
  CHECK(run.seconds < 60);
}

TEST_CASE("cli: --generator picks one of several registered generators", "[e2e][errors]") {
  const std::string source = source_path("tests/data/bad_generators/two_generators.cpp").string();
  auto ambiguous = run_hlsched({"schedule", source});
  CHECK(ambiguous.exit_code == 1);
  CHECK(contains(ambiguous.stderr_text, "brighten"));
  CHECK(contains(ambiguous.stderr_text, "darken"));
  CHECK(contains(ambiguous.stderr_text, "--generator"));

  auto picked = run_hlsched({"schedule", "--json", "--generator", "darken", source});
  CHECK(picked.exit_code == 0);
  CHECK(stdout_json(picked)["generator"] == "darken");

  auto unknown = run_hlsched({"schedule", "--generator", "nope", source});
  CHECK(unknown.exit_code == 1);
  CHECK(contains(unknown.stderr_text, "no generator named 'nope'"));
}

TEST_CASE("cli: missing estimates are named", "[e2e][errors]") {
  auto run = run_hlsched({"schedule", source_path("tests/data/generators/no_estimates.cpp").string()});
  CHECK(run.exit_code == 1);
  CHECK(contains(run.stderr_text, "missing estimates on input 'image', output 'result'"));
}

TEST_CASE("cli: usage errors exit with status 2", "[e2e][errors]") {
  CHECK(run_hlsched({"schedule"}).exit_code == 2);
  auto bad_profile = run_hlsched({"schedule", "--gpu", "voodoo2", source_path("examples/blur/blur_generator.cpp").string()});
  CHECK(bad_profile.exit_code == 2);
  CHECK(contains(bad_profile.stderr_text, "unknown GPU profile 'voodoo2'"));
  auto bad_param = run_hlsched({"schedule", "--param", "oops", source_path("examples/blur/blur_generator.cpp").string()});
  CHECK(bad_param.exit_code == 2);
  auto missing = run_hlsched({"schedule", "/nonexistent/gen.cpp"});
  CHECK(missing.exit_code == 1);
  CHECK(contains(missing.stderr_text, "no such file"));
}
