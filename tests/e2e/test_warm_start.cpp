// The memo file keeps the previous schedule too: a search of an edited pipeline keeps the
// decisions of the Funcs whose definitions did not change and searches only around the edit,
// as the language server does between edits. (Cost: two generator builds, six small searches.)
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

nlohmann::json schedule(const std::filesystem::path &source, const std::vector<std::string> &extra) {
  std::vector<std::string> args = {"schedule", "--json", "--time-budget", "60", source.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  auto run = run_hlsched(args);
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  return stdout_json(run);
}

int warm_funcs(const nlohmann::json &result) { return result["search"]["warm_start_funcs"].get<int>(); }
double predicted(const nlohmann::json &result) { return result["predicted_runtime_ms"].get<double>(); }
int64_t states(const nlohmann::json &result) { return result["search"]["states_evaluated"].get<int64_t>(); }

}  // namespace

TEST_CASE("cli: a memo file warm-starts the search of an edited pipeline", "[e2e][schedule][memo]") {
  const auto dir = scratch_dir("warm_start");
  const std::string original = read_file(source_path("examples/stencil_chain/stencil_chain_generator.cpp"));
  const auto source = dir / "stencil_chain_generator.cpp";
  std::ofstream(source) << original;
  const std::string memo = (dir / "search.memo").string();

  const auto cold = schedule(source, {"--memo-file", memo});
  CHECK(warm_funcs(cold) == 0);
  const int funcs = int(cold["stages"].size());  // one kernel per stage here; a lower bound otherwise
  REQUIRE(funcs > 10);

  SECTION("unchanged: every decision is kept") {
    const auto again = schedule(source, {"--memo-file", memo});
    CHECK(warm_funcs(again) >= funcs);
    CHECK(predicted(again) == Approx(predicted(cold)).epsilon(1e-9));
    CHECK(again["schedule_code"] == cold["schedule_code"]);
  }

  SECTION("one stage edited: only its neighbourhood is searched again") {
    const std::string before = "output(x, y) = stencil(stages.back(), x, y);";
    const auto at = original.find(before);
    REQUIRE(at != std::string::npos);
    std::string edited = original;
    edited.replace(at, before.size(), "output(x, y) = stencil(stages.back(), x, y) + cast<uint16_t>(1);");
    std::ofstream(source) << edited;

    const auto warm = schedule(source, {"--memo-file", memo, "--verify"});
    const auto fresh = schedule(source, {});
    CHECK(warm["verified"]["gpu_kernels"].get<int>() > 0);
    CHECK(warm_funcs(warm) > 0);
    CHECK(warm_funcs(warm) < warm_funcs(schedule(source, {"--memo-file", memo})));  // the next run keeps all
    CHECK(states(warm) * 5 < states(fresh));
    CHECK(predicted(warm) <= predicted(fresh) * 1.05);
  }

  SECTION("other search options: no warm start") {
    const auto other = schedule(source, {"--memo-file", memo, "--seed", "3"});
    CHECK(warm_funcs(other) == 0);
  }
}
