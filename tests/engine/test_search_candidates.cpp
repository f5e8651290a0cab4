// The search's K best candidates (`hlsched schedule --measure K`): distinct schedules, the first
// the search's own result, ranked by prediction, each one what `candidate = i` returns alone.
// (Cost: six small searches, a few seconds.)
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// Halide names Funcs uniquely per process: "blur_x$2" in a second instance is "blur_x".
std::string without_instance_suffixes(const std::string &text) {
  return std::regex_replace(text, std::regex("\\$[0-9]+"), "");
}

// One model's search (its ranking, polish and widening); model=both ranks two searches' results by
// their agreement (tests/engine/test_cost_model.cpp).
AutoschedulerOptions options_for_candidates(const std::string &model = "hand") {
  AutoschedulerOptions options;
  options.model = model;
  options.seed = 3;
  options.work_budget = 600;  // never cut short: every search must visit the same states
  options.time_budget_s = 600;
  return options;
}

}  // namespace

TEST_CASE("the search's best candidates are distinct, ranked, and led by its own result", "[search][candidates]") {
  const GeneratorParams params = {{"radius", "2"}};
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), params);
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const AutoschedulerOptions options = options_for_candidates();

  const std::vector<ScheduleResult> candidates = schedule_candidates(inst.pipeline, dag, options, 4);
  REQUIRE(candidates.size() >= 2);
  CHECK(candidates.size() <= 4);
  std::set<std::string> codes;
  for (size_t i = 0; i < candidates.size(); i++) {
    INFO("candidate " << i);
    CHECK(codes.insert(without_instance_suffixes(candidates[i].schedule_code)).second);
    if (i > 0) CHECK(candidates[i].predicted_runtime_ms >= candidates[0].predicted_runtime_ms * (1 - 1e-9));
  }

  const ScheduleResult best = schedule_pipeline(inst.pipeline, dag, options);
  CHECK(without_instance_suffixes(best.schedule_code) == without_instance_suffixes(candidates[0].schedule_code));

  AutoschedulerOptions second = options;
  second.candidate = 1;
  const ScheduleResult runner_up = schedule_pipeline(inst.pipeline, dag, second);
  CHECK(without_instance_suffixes(runner_up.schedule_code) == without_instance_suffixes(candidates[1].schedule_code));

  AutoschedulerOptions too_far = options;
  too_far.candidate = 100000;
  CHECK_THROWS_WITH(schedule_pipeline(inst.pipeline, dag, too_far), Catch::Contains("no candidate 100000"));
}

// What `--measure` gives the plugin inside GenGen: a candidate rebuilt from its saved decisions is
// that candidate, even when a search under a short budget would choose another schedule.
TEST_CASE("a candidate rebuilt from its decisions is that candidate, with no search", "[search][candidates]") {
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {{"radius", "2"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const std::string model = GENERATE(std::string("hand"), std::string("both"));  // both: the default
  INFO("model " << model);
  const std::vector<ScheduleResult> candidates = schedule_candidates(inst.pipeline, dag, options_for_candidates(model), 3);
  REQUIRE(candidates.size() >= 2);

  AutoschedulerOptions hurried = options_for_candidates(model);
  hurried.time_budget_s = 1e-6;  // a search would stop at once; rebuilding searches nothing
  for (size_t i = 0; i < candidates.size(); i++) {
    INFO("candidate " << i);
    REQUIRE_FALSE(candidates[i].decisions.empty());
    const ScheduleResult rebuilt = schedule_from_decisions(inst.pipeline, dag, hurried, candidates[i].decisions);
    CHECK(rebuilt.schedule_code == candidates[i].schedule_code);
    CHECK(rebuilt.predicted_runtime_ms == Approx(candidates[i].predicted_runtime_ms).epsilon(1e-9));
  }

  std::string damaged = candidates[0].decisions;
  damaged[damaged.size() / 2] ^= 0x5a;
  CHECK_THROWS_AS(schedule_from_decisions(inst.pipeline, dag, hurried, damaged), std::invalid_argument);
  CHECK_THROWS_AS(schedule_from_decisions(inst.pipeline, dag, hurried, ""), std::invalid_argument);
}

// Hierarchical sampling can drop the tiling a later fusion makes best, and freezing can fix a
// Func before the choice that would pay off; a small pipeline is also searched without each
// (schedule_candidates), and the cheapest prediction of the three is the result.
TEST_CASE("a small pipeline's result is at least as cheap as its search without sampling or freezing",
          "[search][candidates]") {
  const GeneratorParams params = {{"radius", "2"}};
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), params);
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  REQUIRE(dag.funcs.size() <= 24);
  const AutoschedulerOptions options = options_for_candidates();
  AutoschedulerOptions unsampled_options = options, unfrozen_options = options;
  unsampled_options.sampling = false;
  unfrozen_options.freeze = false;

  const ScheduleResult all = schedule_pipeline(inst.pipeline, dag, options);
  const ScheduleResult unsampled = schedule_pipeline(inst.pipeline, dag, unsampled_options);
  const ScheduleResult unfrozen = schedule_pipeline(inst.pipeline, dag, unfrozen_options);
  CHECK(all.predicted_runtime_ms <= unsampled.predicted_runtime_ms * (1 + 1e-9));
  CHECK(all.predicted_runtime_ms <= unfrozen.predicted_runtime_ms * (1 + 1e-9));
  // All three searches ran: more states than either alone.
  CHECK(all.search.states_evaluated > unsampled.search.states_evaluated + unfrozen.search.states_evaluated);
}

// The beam costs a decision before the Funcs after it are decided; the final coordinate descent
// (BeamSearch::polish) tries each Func's other options with the rest kept. On reductions_small it
// finds a cheaper schedule than the passes did, and what it returns is a schedule that compiles.
// (pyramid_small served until the passes found its best schedule themselves, 2026-12-02.)
TEST_CASE("the final coordinate descent only ever lowers the prediction", "[search][candidates]") {
  auto inst = instantiate_generator("reductions_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const AutoschedulerOptions polished_options = options_for_candidates();
  AutoschedulerOptions plain_options = polished_options;
  plain_options.polish = false;

  const ScheduleResult polished = schedule_pipeline(inst.pipeline, dag, polished_options);
  const ScheduleResult plain = schedule_pipeline(inst.pipeline, dag, plain_options);
  CHECK(plain.search.polished_moves == 0);
  CHECK(polished.search.polished_moves > 0);
  CHECK(polished.predicted_runtime_ms < plain.predicted_runtime_ms);
  // The prediction is that of the schedule returned, costed from scratch.
  const ScheduleResult rebuilt = schedule_from_decisions(inst.pipeline, dag, polished_options, polished.decisions);
  CHECK(rebuilt.predicted_runtime_ms == Approx(polished.predicted_runtime_ms).epsilon(1e-9));
  apply_schedule(polished.schedule, inst.pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(inst.pipeline, default_gpu_target()).gpu_kernels() > 0);
}

// Blocks narrower than a warp along the coalescing loop ran slower on the H200 in every pair
// measured, which the model calls a tie; after the search, such a kernel takes a warp's width
// from its second thread loop where the prediction stays within 0.5% (BeamSearch::widen).
// channel_models_small's search ends on 16x16 threads without it.
TEST_CASE("the search's result is a warp wide along a long coalescing loop", "[search][candidates]") {
  auto inst = instantiate_generator("channel_models_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions widened_options = options_for_candidates();
  widened_options.seed = 0;  // the default seed's search ends narrow
  AutoschedulerOptions plain_options = widened_options;
  plain_options.polish = false;
  // Threads along x of `out`'s tiling in the decisions text ("out" or, when earlier tests of the
  // process made Funcs named out, "out$N"); -1 when not found.
  auto x_threads = [](const ScheduleResult &r) {
    std::smatch found;
    if (!std::regex_search(r.decisions, found, std::regex(R"(\nout(\$\d+)? \d+ 1 - 1  0 0 3 x \d+ (\d+) )"))) return -1;
    return std::stoi(found[2]);
  };
  const ScheduleResult widened = schedule_pipeline(inst.pipeline, dag, widened_options);
  const ScheduleResult plain = schedule_pipeline(inst.pipeline, dag, plain_options);
  INFO(plain.decisions);
  INFO(widened.decisions);
  const int plain_x = x_threads(plain), widened_x = x_threads(widened);
  REQUIRE(plain_x > 0);
  REQUIRE(widened_x > 0);
  CHECK(plain_x < 32);
  CHECK(widened_x >= 32);
  CHECK(widened.search.widened_kernels > 0);
  CHECK(widened.predicted_runtime_ms <= plain.predicted_runtime_ms * 1.005);
}
