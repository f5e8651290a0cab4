// The schedule command's contract, and the emitted schedule pasted into the generator: it
// compiles as is, launches GPU kernels, and lowers to exactly what applying the schedule gives.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

struct Case {
  std::string source;
  std::vector<std::string> params;
};

}  // namespace

TEST_CASE("cli: schedule --json has the documented fields", "[e2e][schedule]") {
  auto run = run_hlsched({"schedule", "--json", source_path("tests/data/generators/stencil_chain_small.cpp").string()});
  REQUIRE(run.exit_code == 0);
  auto result = stdout_json(run);
  CHECK(result["schedule_code"].is_string());
  CHECK(result["predicted_runtime_ms"].get<double>() > 0);
  REQUIRE(result["stages"].is_array());
  REQUIRE_FALSE(result["stages"].empty());
  for (const auto &stage : result["stages"]) {
    CHECK(stage["func"].is_string());
    CHECK(stage["predicted_ms"].get<double>() > 0);
    CHECK(stage["terms"].is_object());
  }
  CHECK(result["target"] == "host-cuda-cuda_capability_86");
  CHECK(result["search"]["time_ms"].is_number());
  // The default ranks by both models and shows the learned model's costs; --model hand stays selectable.
  CHECK(result["cost_model"].get<std::string>().find("hand and learned models together") != std::string::npos);
  CHECK(result["cost_model"].get<std::string>().find("learned hybrid model") != std::string::npos);
  auto by_hand = run_hlsched({"schedule", "--json", "--model", "hand", source_path("tests/data/generators/stencil_chain_small.cpp").string()});
  REQUIRE(by_hand.exit_code == 0);
  CHECK(stdout_json(by_hand)["cost_model"].get<std::string>().find("hand-set coefficients (--model hand)") != std::string::npos);

  auto text = run_hlsched({"schedule", source_path("tests/data/generators/stencil_chain_small.cpp").string()});
  CHECK(text.exit_code == 0);
  CHECK(text.stdout_text.find("Predicted:") != std::string::npos);
  CHECK(text.stdout_text.find("predicted ms") != std::string::npos);
}

TEST_CASE("cli: pasted schedules compile, launch kernels and equal the applied schedule", "[e2e][schedule]") {
  const std::vector<Case> cases = {
      {"tests/data/generators/stencil_chain_small.cpp", {"--param", "radius=2"}},
      {"tests/data/generators/reductions_small.cpp", {}},                    // Funcs are locals of generate()
      {"tests/data/generators/pyramid_small.cpp", {"--param", "levels=4"}},  // Funcs from helper functions
      {"examples/blur/blur_generator.cpp", {}},
  };
  auto dir = scratch_dir("pasted");
  for (const Case &c : cases) {
    INFO(c.source);
    const auto applied_stmt = dir / (std::filesystem::path(c.source).stem().string() + ".applied.stmt");
    std::vector<std::string> args = {"schedule", "--json", "--stmt-out", applied_stmt.string(), source_path(c.source).string()};
    args.insert(args.end(), c.params.begin(), c.params.end());
    auto scheduled = run_hlsched(args);
    REQUIRE(scheduled.exit_code == 0);
    auto result = stdout_json(scheduled);
    CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);

    const auto pasted = dir / std::filesystem::path(c.source).filename();
    std::ofstream(pasted) << paste_schedule(read_file(source_path(c.source)), result["schedule_code"]);
    const auto pasted_stmt = dir / (std::filesystem::path(c.source).stem().string() + ".pasted.stmt");
    std::vector<std::string> lower_args = {"lower", "--json", "--stmt-out", pasted_stmt.string(), pasted.string()};
    lower_args.insert(lower_args.end(), c.params.begin(), c.params.end());
    auto lowered = run_hlsched(lower_args);
    INFO(lowered.stderr_text);
    REQUIRE(lowered.exit_code == 0);
    CHECK(stdout_json(lowered)["gpu_kernels"] == result["verified"]["gpu_kernels"]);
    CHECK(canonical_lowered_program(read_file(pasted_stmt)) == canonical_lowered_program(read_file(applied_stmt)));
  }
}

TEST_CASE("cli: dag --json describes the pipeline", "[e2e][schedule]") {
  auto run = run_hlsched({"dag", "--json", source_path("tests/data/generators/reductions_small.cpp").string()});
  REQUIRE(run.exit_code == 0);
  auto dag = stdout_json(run);
  CHECK(dag["outputs"].size() == 2);
  bool saw_hist = false;
  for (const auto &f : dag["funcs"])
    if (f["name"] == "hist") {
      saw_hist = true;
      CHECK(f["stages"].size() == 2);
      CHECK(f["stages"][1]["loops"][0]["rvar"] == true);
    }
  CHECK(saw_hist);
  CHECK_FALSE(dag["edges"].empty());
}

// The daemon analyzes a file again after "Insert suggested schedule": the pasted schedule must not
// change what is planned, even where it rewrites the algorithm (a privatized histogram's
// rfactor() adds an intermediate Func and makes the reduction read it).
TEST_CASE("cli: a pasted suggestion with rfactor is predicted as when it was suggested", "[e2e][schedule][pasted]") {
  // A deterministic search (no deadline) and no memo: the two runs must plan alike.
  const std::vector<std::string> search = {"--beam-size", "4", "--passes", "1", "--time-budget", "100000", "--no-memo"};
  auto dir = scratch_dir("pasted-rfactor");
  for (const std::string source : {"tests/data/generators/reductions_small.cpp", "examples/hist/hist_generator.cpp"}) {
    INFO(source);
    std::vector<std::string> args = {"schedule", "--json", source_path(source).string()};
    args.insert(args.end(), search.begin(), search.end());
    auto suggested = run_hlsched(args);
    INFO(suggested.stderr_text);
    REQUIRE(suggested.exit_code == 0);
    const auto suggestion = stdout_json(suggested);
    REQUIRE(suggestion["schedule_code"].get<std::string>().find(".rfactor(") != std::string::npos);

    const auto pasted = dir / std::filesystem::path(source).filename();
    std::ofstream(pasted) << paste_schedule(read_file(source_path(source)), suggestion["schedule_code"]);
    args[2] = pasted.string();
    auto again = run_hlsched(args);
    INFO(again.stderr_text);
    REQUIRE(again.exit_code == 0);
    const auto result = stdout_json(again);
    CHECK(result["predicted_runtime_ms"].get<double>() ==
          Approx(suggestion["predicted_runtime_ms"].get<double>()).epsilon(0.01));
    CHECK(result["schedule_code"] == suggestion["schedule_code"]);
  }
}

TEST_CASE("cli: a Func per block of an update two kernels before a scaled read launches a bounded block",
          "[e2e][schedule][regression]") {
  // Random pipeline 770018's walk s43_1 (its decisions, saved): mix_5 per block of
  // channel_mix_7_sum's update, whose region is an expression of a read at (x, y * 2) two kernels
  // on. Its thread loops went to gpu_threads unsplit and Halide sized the block only at run time,
  // 256x236 threads (CUDA_ERROR_INVALID_VALUE on the H100, session 43).
  const auto dir = scratch_dir("regression_770018");
  const auto source = dir / "random_770018.cpp";
  auto written = run_hlsched({"random-pipeline", "--seed", "770018", "--stages", "12", "--writer-version", "2",
                              "--output", source.string()});
  REQUIRE(written.exit_code == 0);
  auto run = run_hlsched({"schedule", "--json", source.string(), "--decisions",
                          source_path("tests/data/regressions/random_770018_walk.decisions").string(), "--stmt-out",
                          (dir / "walk.stmt").string()});
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  const auto result = stdout_json(run);
  CHECK(result["schedule_code"].get<std::string>().find("mix_5.compute_at(channel_mix_7_sum, xo)") != std::string::npos);
  REQUIRE(result.contains("verified"));
  CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);
  CHECK_FALSE(result["verified"].contains("unbounded_launches"));
}
