// Memoization must be invisible in the search's result: with the memo, a child state re-costs only
// the kernels its new decision touches and takes every other cost from its parent or the memo; the
// schedule found must be exactly the one found when every state is costed from scratch.
// (Cost: five small searches, a few seconds.)
#include <catch2/catch.hpp>
#include <regex>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// Halide names Funcs uniquely per process: "blur_x$2" in a second instance is "blur_x".
std::string without_instance_suffixes(const std::string &text) {
  return std::regex_replace(text, std::regex("\\$[0-9]+"), "");
}

ScheduleResult search(const std::string &generator, const GeneratorParams &params, bool memo, bool freeze) {
  auto inst = instantiate_generator(generator, default_gpu_target(), params);
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.memo = memo;
  options.freeze = freeze;
  options.seed = 7;
  options.work_budget = 600;  // never cut short: both runs must visit the same states
  options.time_budget_s = 600;
  return schedule_pipeline(inst.pipeline, dag, options);
}

}  // namespace

TEST_CASE("the memo does not change the search's result", "[search][memo]") {
  const std::vector<std::pair<std::string, GeneratorParams>> pipelines = {
      {"stencil_small", {{"radius", "2"}}},
      {"pyramid_small", {{"levels", "3"}}},
      {"reductions_small", {}},
      {"many_stages", {{"stages", "24"}, {"shape", "wide"}}},
  };
  for (const auto &[generator, params] : pipelines) {
    for (bool freeze : {true, false}) {
      if (!freeze && generator == "many_stages") continue;  // minutes without freezing or memo
      INFO(generator << (freeze ? "" : " without freezing"));
      ScheduleResult with_memo = search(generator, params, true, freeze);
      ScheduleResult without = search(generator, params, false, freeze);
      CHECK(with_memo.predicted_runtime_ms == Approx(without.predicted_runtime_ms).epsilon(1e-12));
      REQUIRE(with_memo.stages.size() == without.stages.size());
      for (size_t i = 0; i < with_memo.stages.size(); i++) {
        CHECK(without_instance_suffixes(with_memo.stages[i].placement) ==
              without_instance_suffixes(without.stages[i].placement));
        CHECK(with_memo.stages[i].predicted_ms == Approx(without.stages[i].predicted_ms).epsilon(1e-12));
      }
      CHECK(with_memo.search.memo_hits > 0);
      CHECK(without.search.memo_hits == 0);
      CHECK(with_memo.search.kernels_costed < without.search.kernels_costed);
    }
  }
}
