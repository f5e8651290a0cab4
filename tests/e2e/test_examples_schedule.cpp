// Every example gets a schedule from the default search within its time budget, and that
// schedule, pasted into the generator's schedule(), compiles for CUDA to the same program as the
// applied schedule.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

// Inserts the code at the end of schedule(), after the estimates and the manual-schedule branch.
std::string paste_into_schedule(const std::string &source, const std::string &code) {
  auto at = source.find("void schedule()");
  REQUIRE(at != std::string::npos);
  at = source.find('{', at) + 1;
  // Insert as the first statements: estimates are set in the generator's own schedule() code
  // after, which is fine (estimates do not affect lowering), and the manual branch is off.
  return source.substr(0, at) + "\n{\n" + code + "}\n" + source.substr(at);
}

void check_example(const std::string &app) {
  const std::string source = "examples/" + app + "/" + app + "_generator.cpp";
  auto dir = scratch_dir("examples-" + app);
  const auto applied_stmt = dir / "applied.stmt";
  auto run = run_hlsched({"schedule", "--json", "--stmt-out", applied_stmt.string(), source_path(source).string()});
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  auto result = stdout_json(run);
  CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);
  // Within the default 8 s budget plus a slack for a loaded machine (the search stops within
  // a step of its deadline; the step's wall time grows with the load, a runaway search does not stop).
  CHECK(result["search"]["time_ms"].get<double>() < 8000 + 20000);
  CHECK(result["predicted_runtime_ms"].get<double>() > 0);
  CHECK(result["search"]["fallback"] == "");  // the search found it, not the simple baseline

  const auto pasted = dir / (app + "_generator.cpp");
  std::ofstream(pasted) << paste_into_schedule(read_file(source_path(source)), result["schedule_code"]);
  const auto pasted_stmt = dir / "pasted.stmt";
  auto lowered = run_hlsched({"lower", "--json", "--stmt-out", pasted_stmt.string(), "--compile-flag",
                              "-I" + source_path("examples/" + app).string(), pasted.string()});
  INFO(lowered.stderr_text);
  REQUIRE(lowered.exit_code == 0);
  CHECK(canonical_lowered_program(read_file(pasted_stmt)) == canonical_lowered_program(read_file(applied_stmt)));
}

}  // namespace

TEST_CASE("examples: bgu schedules and pastes", "[e2e][examples]") { check_example("bgu"); }
TEST_CASE("examples: bilateral_grid schedules and pastes", "[e2e][examples]") { check_example("bilateral_grid"); }
TEST_CASE("examples: blur schedules and pastes", "[e2e][examples]") { check_example("blur"); }
TEST_CASE("examples: camera_pipe schedules and pastes", "[e2e][examples]") { check_example("camera_pipe"); }
TEST_CASE("examples: conv_layer schedules and pastes", "[e2e][examples]") { check_example("conv_layer"); }
TEST_CASE("examples: depthwise_separable_conv schedules and pastes", "[e2e][examples]") { check_example("depthwise_separable_conv"); }
TEST_CASE("examples: harris schedules and pastes", "[e2e][examples]") { check_example("harris"); }
TEST_CASE("examples: hist schedules and pastes", "[e2e][examples]") { check_example("hist"); }
TEST_CASE("examples: iir_blur schedules and pastes", "[e2e][examples]") { check_example("iir_blur"); }
TEST_CASE("examples: interpolate schedules and pastes", "[e2e][examples]") { check_example("interpolate"); }
TEST_CASE("examples: lens_blur schedules and pastes", "[e2e][examples]") { check_example("lens_blur"); }
TEST_CASE("examples: local_laplacian schedules and pastes", "[e2e][examples]") { check_example("local_laplacian"); }
TEST_CASE("examples: mat_mul schedules and pastes", "[e2e][examples]") { check_example("mat_mul"); }
TEST_CASE("examples: max_filter schedules and pastes", "[e2e][examples]") { check_example("max_filter"); }
TEST_CASE("examples: nl_means schedules and pastes", "[e2e][examples]") { check_example("nl_means"); }
TEST_CASE("examples: stencil_chain schedules and pastes", "[e2e][examples]") { check_example("stencil_chain"); }
TEST_CASE("examples: unsharp schedules and pastes", "[e2e][examples]") { check_example("unsharp"); }
