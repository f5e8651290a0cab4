// An output's kernel with GuardWithIf tails gets a second schedule for outputs of whole tiles: a
// specialization whose splits are RoundUp (no guard around each thread's unrolled points), the
// guarded schedule for every other size. Cost: one small pipeline, lowered for CUDA once and run
// on the CPU (the same loops, parallel) at a size of whole tiles and at one of partial tiles.
#include <catch2/catch.hpp>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "schedule/state_to_spec.h"
#include "search/decision_options.h"
#include "search/schedule_state.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

struct Blur {
  Halide::ImageParam in{Halide::Float(32), 2, "in"};
  Halide::Func out{"out"};
  Blur() {
    Halide::Var x("x"), y("y");
    out(x, y) = (in(x, y) + in(x + 1, y) + in(x, y + 1) + in(x + 2, y + 2)) * 0.25f;
    in.set_estimates({{0, 520}, {0, 520}});
    out.set_estimates({{0, 512}, {0, 512}});
  }
};

// out at its first root option of 2D tiles dividing 512 (the search's own, GuardWithIf tiles).
ScheduleSpec tiled_with_rows(const PipelineDag &dag, const GpuProfile &gpu) {
  const int o = func_named(dag, "out");
  REQUIRE(o >= 0);
  ScheduleState state(dag);
  for (const FuncDecision &d : standalone_options(dag, o, gpu, OptionLimits{})) {
    if (d.level != ComputeLevel::Root || d.tilings.empty()) continue;
    const StageTiling &t = d.tilings.front();
    if (t.threads.size() == 2 && t.threads[0] >= 32 && t.threads[1] > 1 && 512 % t.tile(0) == 0 && 512 % t.tile(1) == 0) {
      state.decide(o, d);
      break;
    }
  }
  REQUIRE(state.decided[size_t(o)]);
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (!state.decided[f]) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  return state_to_spec(dag, state, gpu);
}

// A fresh copy of the pipeline (Halide renames its Funcs per copy), scheduled by its own search
// state when `scheduled`, run on the CPU.
Halide::Buffer<float> run_on_cpu(bool scheduled, int width, int height) {
  Blur b;
  Halide::Pipeline pipeline(b.out);
  if (scheduled) {
    const PipelineDag dag = build_pipeline_dag(pipeline);
    apply_schedule(tiled_with_rows(dag, find_gpu_profile("h200")), pipeline, ApplyMode::Cpu);
  }
  Halide::Buffer<float> input = random_buffer<float>({width + 8, height + 8}, 7, -1.0, 1.0);
  b.in.set(input);
  Halide::Buffer<float> output(width, height);
  pipeline.realize(output, cpu_target());
  return output;
}

}  // namespace

TEST_CASE("an output kernel is specialized for outputs of whole tiles, RoundUp inside", "[schedule][constructs]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  Blur b;
  const Halide::Pipeline pipeline(b.out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = tiled_with_rows(dag, gpu);
  const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(text);
  // The specialization first (a condition on each tiled dimension, RoundUp tiles), then the
  // general case (GuardWithIf).
  const size_t special = text.find(".output_buffer().dim(1).extent() % ");
  const size_t round_up = text.find(".gpu_tile(x, y, xo, yo, xi, yi, ");
  const size_t general = text.find("TailStrategy::GuardWithIf)");
  CHECK(text.find("TailStrategy::RoundUp)") < general);
  CHECK(text.find(".specialize(out") != std::string::npos);
  CHECK(text.find(".output_buffer().dim(0).extent() % ") != std::string::npos);
  REQUIRE(special != std::string::npos);
  REQUIRE(round_up != std::string::npos);
  REQUIRE(general != std::string::npos);
  CHECK(special < round_up);
  CHECK(round_up < general);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string stmt = compile_for_cuda(pipeline);
  CHECK(launches_gpu_kernels(stmt));

  // Both branches compute what the unscheduled pipeline does: whole tiles, and partial ones.
  for (const auto &[width, height] : {std::pair{512, 512}, std::pair{500, 470}}) {  // whole tiles, then not
    INFO(width << "x" << height);
    CHECK(count_differences(run_on_cpu(true, width, height), run_on_cpu(false, width, height)) == 0);
  }
}
