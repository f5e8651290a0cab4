// `hlsched random-pipeline`: the same seed writes the same bytes, and what it writes is a valid
// generator that the simple scheduler schedules and that compiles for CUDA. The fast CI subset of
// scripts/bench/random_pipelines.sh (which runs hundreds of seeds).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

std::string generate(uint64_t seed, int stages, int writer_version = 0) {
  std::vector<std::string> args = {"random-pipeline", "--seed", std::to_string(seed), "--stages", std::to_string(stages)};
  if (writer_version > 0) args.insert(args.end(), {"--writer-version", std::to_string(writer_version)});
  auto run = run_hlsched(args);
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  return run.stdout_text;
}

// FNV-1a, to pin the bytes of one generated file.
uint64_t fnv1a(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace

TEST_CASE("random-pipeline: the same seed writes the same bytes, other seeds other files", "[e2e][random]") {
  const std::string first = generate(7, 20);
  CHECK(generate(7, 20) == first);
  CHECK(generate(8, 20) != first);
  CHECK(generate(7, 21) != first);

  // --output writes exactly what stdout gets.
  auto file = scratch_dir("random_output") / "seed7.cpp";
  auto run = run_hlsched({"random-pipeline", "--seed", "7", "--stages", "20", "--output", file.string()});
  REQUIRE(run.exit_code == 0);
  CHECK(run.stdout_text.empty());
  CHECK(read_file(file) == first);

  // Many seeds, all different.
  std::vector<uint64_t> hashes;
  for (uint64_t seed = 100; seed < 120; seed++) hashes.push_back(fnv1a(generate(seed, 6)));
  std::sort(hashes.begin(), hashes.end());
  CHECK(std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end());
}

TEST_CASE("random-pipeline: the bytes do not depend on the platform", "[e2e][random]") {
  // std::mt19937_64 is specified bit for bit and the writer maps its numbers itself, so this
  // file is the same with every compiler and standard library. A change to the writer changes
  // it too: then add a writer version (random_pipeline.h) with its own hash, since the datasets
  // rebuild their pipelines from seeds and each earlier version must keep writing its bytes.
  const std::string first = generate(1, 12, 1);
  INFO(first);
  CHECK(fnv1a(first) == 0x6a968f26ca86398aull);
  const std::string second = generate(1, 12, 2);
  INFO(second);
  CHECK(fnv1a(second) == 0xc3a4f33417686abeull);
  CHECK(generate(1, 12) == second);  // the newest by default
}

TEST_CASE("random-pipeline: bad arguments are usage errors", "[e2e][random]") {
  CHECK(run_hlsched({"random-pipeline", "--seed", "1", "--stages", "0"}).exit_code == 2);
  CHECK(run_hlsched({"random-pipeline", "--stages", "3"}).exit_code == 2);  // --seed is required
  CHECK(run_hlsched({"random-pipeline", "--seed", "x"}).exit_code == 2);
}

TEST_CASE("simple scheduler: chains of cheap stencils are not inlined without bound", "[e2e][random]") {
  // Found by random pipelines: each 2-tap stage is cheap enough to inline, and inlined into one
  // another they put 2^n loads into one kernel (n = 12 took Halide over a minute to lower).
  auto dir = scratch_dir("cheap_chain");
  std::ofstream(dir / "chain.cpp") << R"(#include "Halide.h"
namespace {
using namespace Halide;
class Chain : public Generator<Chain> {
public:
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};
    void generate() {
        Func previous = BoundaryConditions::repeat_edge(input);
        for (int k = 0; k < 16; k++) {
            Func difference("difference_" + std::to_string(k));
            difference(x, y) = previous(x + 1, y) - previous(x - 1, y);
            previous = difference;
        }
        output(x, y) = previous(x, y);
    }
    void schedule() {
        input.set_estimates({{0, 1024}, {0, 1024}});
        output.set_estimates({{0, 1024}, {0, 1024}});
    }
private:
    Var x{"x"}, y{"y"};
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Chain, chain)
)";
  auto run = run_hlsched({"schedule", "--json", "--verify", "--strategy", "simple", "--timeout", "30",
                          (dir / "chain.cpp").string()});
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  auto result = stdout_json(run);
  CHECK(result["verified"]["gpu_kernels"].get<int>() >= 2);  // some differences computed at root
}

TEST_CASE("random-pipeline: generated pipelines schedule and compile for CUDA", "[e2e][random]") {
  // Twelve seeds from 2 to 40 stages (sizes from 8x8 to 8K come with the seeds).
  const std::vector<std::pair<uint64_t, int>> cases = {{11, 2},  {12, 3},  {13, 5},  {14, 8},  {15, 10}, {16, 13},
                                                       {17, 16}, {18, 20}, {19, 24}, {20, 30}, {21, 35}, {22, 40}};
  auto dir = scratch_dir("random_pipelines");
  for (const auto &[seed, stages] : cases) {
    const std::string name = "seed" + std::to_string(seed) + "_stages" + std::to_string(stages) + ".cpp";
    INFO(name);
    const auto source = dir / name;
    auto written = run_hlsched({"random-pipeline", "--seed", std::to_string(seed), "--stages", std::to_string(stages),
                                "--output", source.string()});
    REQUIRE(written.exit_code == 0);

    auto scheduled = run_hlsched({"schedule", "--json", "--verify", "--strategy", "simple", source.string()});
    INFO(scheduled.stderr_text);
    REQUIRE(scheduled.exit_code == 0);
    auto result = stdout_json(scheduled);
    CHECK(result["verified"]["compiled"] == true);
    CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);
    CHECK_FALSE(result["stages"].empty());
    CHECK(result["schedule_code"].get<std::string>().find("compute_root") != std::string::npos);

    if (stages <= 8) {
      // The emitted schedule pasted at the generator's "// HLSCHED_SCHEDULE" marker compiles as
      // is (it names Funcs that BoundaryConditions made, "repeat_edge$2", and locals).
      const std::string text = read_file(source);
      REQUIRE(text.find("// HLSCHED_SCHEDULE") != std::string::npos);
      const auto pasted = dir / ("pasted_" + name);
      std::ofstream(pasted) << paste_schedule(text, result["schedule_code"]);
      auto lowered = run_hlsched({"lower", "--json", pasted.string()});
      INFO(lowered.stderr_text);
      REQUIRE(lowered.exit_code == 0);
      CHECK(stdout_json(lowered)["gpu_kernels"] == result["verified"]["gpu_kernels"]);
    }
  }
}
