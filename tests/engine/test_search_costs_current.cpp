// The costs the search ranks states by are the costs of the schedules it returns: a state's
// kernels costed as decisions were added (evaluate_child, through the memo) equal the same state
// costed from scratch. Two ways this broke: an atomic scatter left at the cost of adds after a
// later decision made Halide lower it to a compare-and-swap loop (random pipeline 710019: picked
// at 0.69 ms, 556 ms once repriced), and a kernel costed differently as a Func it does not contain
// was inlined elsewhere or not, under one memo key (random pipeline 710034's down_5).
// (Cost: one search per generator and model, about a second each.)
#include <catch2/catch.hpp>

#include <cmath>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/generator_instance.h"
#include "search/beam_search.h"
#include "search/cost_memo.h"

using namespace hlsched;
using namespace hlsched::testing;

TEST_CASE("the search's finalists cost what they cost afresh", "[search][memo]") {
  const std::string generator =
      GENERATE(std::string("pyramid_small"), std::string("siblings_small"), std::string("splat_small"),
               std::string("reductions_small"), std::string("fused_reductions_small"), std::string("bayer_small"),
               std::string("channel_clamped_small"), std::string("scans_shared"), std::string("random_710019"),
               std::string("random_710034"));
  const std::string model = GENERATE(std::string("hand"), std::string("learned"));
  INFO(generator << ", model " << model);
  auto inst = instantiate_generator(generator, default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.model = model;
  options.seed = 5;
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  CostMemo memo;
  BeamSearch search(dag, gpu, options, memo);
  const SearchOutcome outcome = search.run();
  REQUIRE(!outcome.ranked.empty());
  CostMemo fresh_memo;  // nothing carried over from the search
  BeamSearch fresh(dag, gpu, options, fresh_memo);
  for (size_t i = 0; i < outcome.ranked.size() && i < 8; i++) {
    INFO("finalist " << i);
    ScheduleState again = outcome.ranked[i];
    again.kernel_ms.clear();
    const double cost = fresh.evaluate(again);
    REQUIRE(std::isfinite(cost));
    CHECK(outcome.ranked[i].cost_ms == Approx(cost).epsilon(1e-9));
  }
}
