// Polish (the search's final coordinate descent) also tries inlining a Func whose inlining the
// options leave out: read at several points per consumer point with too much work to offer the
// beam, which decides it before its producers and cannot price it. local_laplacian's remap lookup
// per pixel and level, which its manual schedule inlines into the next pyramid level, is the case;
// the pipeline below is its first level in miniature.
// Cost: two searches of a five-Func pipeline with the hand model, a few seconds.
#include <catch2/catch.hpp>

#include <algorithm>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "search/decision_options.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// A remap table read through each pixel's gray level, for 8 intensity levels (`remapped`), then
// downsampled by 2 along x and y ([1 3 3 1] / 8): remapped is read at 4 points per point of
// down_x. `extra_work` more operations per remapped point make inlining it too costly to try.
Halide::Pipeline lookup_then_downsample(int extra_work) {
  using namespace Halide;
  ImageParam in = float_input_512x512();
  in.dim(0).set_estimate(0, 2048).dim(1).set_estimate(0, 2048);
  Var x("x"), y("y"), k("k"), i("i");
  Func gray("gray"), remap("remap"), remapped("remapped"), down_x("down_x"), out("out");
  gray(x, y) = 0.3f * in(x, y) + 0.7f * in(x, y) * in(x, y);
  Expr d = cast<float>(i - 1792) / 256.0f;
  remap(i) = d * exp(-d * d / 2.0f);
  Expr level = cast<float>(k) / 7.0f;
  Expr index = clamp(cast<int>(gray(x, y) * 1792.0f), 0, 1792);
  Expr value = 0.7f * (gray(x, y) - level) + level + remap(index - 256 * k + 1792);
  for (int e = 0; e < extra_work; e++) value = value * 1.001f + 0.5f;
  remapped(x, y, k) = value;
  down_x(x, y, k) = (remapped(2 * x - 1, y, k) + 3.0f * (remapped(2 * x, y, k) + remapped(2 * x + 1, y, k)) +
                     remapped(2 * x + 2, y, k)) * 0.125f;
  out(x, y, k) = (down_x(x, 2 * y - 1, k) + 3.0f * (down_x(x, 2 * y, k) + down_x(x, 2 * y + 1, k)) +
                  down_x(x, 2 * y + 2, k)) * 0.125f;
  out.set_estimates({{0, 1024}, {0, 1024}, {0, 8}});
  return Pipeline(out);
}

AutoschedulerOptions hand_search(bool polish) {
  AutoschedulerOptions options;
  options.model = "hand";
  options.seed = 3;
  options.work_budget = 600;  // never cut short: both searches visit the same states
  options.time_budget_s = 600;
  options.polish = polish;
  return options;
}

// Where the schedule computes `func`; fails the test when the schedule does not name it.
ComputeLevel level_of(const ScheduleResult &r, const std::string &func) {
  const FuncSchedule *f = r.schedule.find(func);
  REQUIRE(f != nullptr);
  return f->level;
}

}  // namespace

TEST_CASE("inlining a Func read at several points is left to polish within a bound on its work",
          "[search][polish]") {
  const PipelineDag cheap = build_pipeline_dag(lookup_then_downsample(0));
  const int remapped = func_named(cheap, "remapped");
  REQUIRE(remapped >= 0);
  // Not offered to the beam...
  const GpuProfile &gpu = find_gpu_profile("h200");
  const std::vector<FuncDecision> options = standalone_options(cheap, remapped, gpu, OptionLimits{});
  CHECK(std::none_of(options.begin(), options.end(),
                     [](const FuncDecision &d) { return d.level == ComputeLevel::Inline; }));
  // ...but to polish, unless the work it recomputes is too much.
  CHECK(inline_left_to_polish(cheap, remapped));
  const PipelineDag costly = build_pipeline_dag(lookup_then_downsample(40));
  CHECK_FALSE(inline_left_to_polish(costly, func_named(costly, "remapped")));
  // A Func the options offer inlining anyway is not polish's to add.
  CHECK_FALSE(inline_left_to_polish(cheap, func_named(cheap, "gray")));
}

TEST_CASE("polish inlines a lookup read at four points per point of the next level", "[search][polish]") {
  Halide::Pipeline pipeline = lookup_then_downsample(0);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int remapped = func_named(dag, "remapped");
  REQUIRE(remapped >= 0);
  const std::string name = dag.funcs[size_t(remapped)].name;

  const ScheduleResult polished = schedule_pipeline(pipeline, dag, hand_search(true));
  const ScheduleResult plain = schedule_pipeline(pipeline, dag, hand_search(false));
  INFO(plain.schedule_code);
  INFO(polished.schedule_code);
  CHECK(level_of(plain, name) != ComputeLevel::Inline);
  CHECK(level_of(polished, name) == ComputeLevel::Inline);
  CHECK(polished.predicted_runtime_ms < plain.predicted_runtime_ms);
  // What polish returns is a schedule that compiles.
  apply_schedule(polished.schedule, pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(pipeline, default_gpu_target()).gpu_kernels() > 0);
}
