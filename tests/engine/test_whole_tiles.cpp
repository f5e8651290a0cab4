// An output's kernel with GuardWithIf tails gets a second schedule for outputs of whole tiles: a
// specialization whose splits are RoundUp (no guard around each thread's unrolled points), the
// guarded schedule for every other size. Cost: one small pipeline, lowered for CUDA once and run
// on the CPU (the same loops, parallel) at a size of whole tiles and at one of partial tiles.
#include <catch2/catch.hpp>

#include "first_options.h"
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
  const std::optional<FuncDecision> tiled = root_option_where(dag, o, gpu, [](const StageTiling &t) {
    return t.threads.size() == 2 && t.threads[0] >= 32 && t.threads[1] > 1 && 512 % t.tile(0) == 0 && 512 % t.tile(1) == 0;
  });
  REQUIRE(tiled);
  ScheduleState state(dag);
  state.decide(o, *tiled);
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

namespace {

// A 3D output (x, y, c) or a 4D one (x, y, c, n): loops the thread tile leaves (c, n, rows along
// a third loop) become more grid dimensions, one as interpolate's output has it, or fused as in
// conv_layer's.
struct Planes {
  Halide::ImageParam in;
  Halide::Func out{"out"};
  explicit Planes(int dims) : in(Halide::Float(32), dims, "in") {
    Halide::Var x("x"), y("y"), c("c"), n("n");
    std::vector<Halide::Var> at = {x, y, c};
    if (dims == 4) at.push_back(n);
    std::vector<Halide::Expr> right = {x + 1, y, c}, below = {x, y + 1, 2 - c};
    if (dims == 4) {
      right.push_back(n);
      below.push_back(n);
    }
    out(at) = in(at) * 0.5f + in(right) + in(below);
    Halide::Region in_box = {{0, 130}, {0, 66}, {0, 3}}, out_box = {{0, 128}, {0, 64}, {0, 3}};
    if (dims == 4) {
      in_box.push_back({0, 2});
      out_box.push_back({0, 2});
    }
    in.set_estimates(in_box);
    out.set_estimates(out_box);
  }
};

bool contains(const std::string &text, const char *part) { return text.find(part) != std::string::npos; }

// out at the first root option with GuardWithIf tiles that divide the estimates whose schedule
// sends loops to gpu_blocks: fused (`fused`), or one loop and no rows shifted inwards.
ScheduleSpec with_grid_loops(const PipelineDag &dag, const GpuProfile &gpu, bool fused) {
  const int o = func_named(dag, "out");
  REQUIRE(o >= 0);
  for (const FuncDecision &d : standalone_options(dag, o, gpu, OptionLimits{})) {
    if (d.level != ComputeLevel::Root || d.tilings.empty()) continue;
    const StageTiling &t = d.tilings.front();
    if (t.single_thread || t.threads.size() < 2 || 128 % t.tile(0) != 0 || 64 % t.tile(1) != 0) continue;
    ScheduleState state(dag);
    state.decide(o, d);
    for (size_t f = 0; f < dag.funcs.size(); f++)
      if (!state.decided[f]) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
    ScheduleSpec spec = state_to_spec(dag, state, gpu);
    const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
    if (!contains(text, ".gpu_blocks(") || !contains(text, "GuardWithIf")) continue;
    if (fused ? contains(text, ".fuse(") : !contains(text, ".fuse(") && !contains(text, "ShiftInwards")) return spec;
  }
  FAIL("no option of out sends loops to the grid " << (fused ? "fused" : "unfused"));
  return {};
}

Halide::Buffer<float> run_planes_on_cpu(bool scheduled, int width, int height) {
  Planes p(3);
  Halide::Pipeline pipeline(p.out);
  if (scheduled) {
    const PipelineDag dag = build_pipeline_dag(pipeline);
    apply_schedule(with_grid_loops(dag, find_gpu_profile("h200"), false), pipeline, ApplyMode::Cpu);
  }
  Halide::Buffer<float> input = random_buffer<float>({width + 8, height + 8, 3}, 11, -1.0, 1.0);
  p.in.set(input);
  Halide::Buffer<float> output(width, height, 3);
  pipeline.realize(output, cpu_target());
  return output;
}

}  // namespace

TEST_CASE("an output kernel with one grid loop beside its tile is specialized for whole tiles too", "[schedule][constructs]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  Planes p(3);
  const Halide::Pipeline pipeline(p.out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = with_grid_loops(dag, gpu, false);
  const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(text);
  // The specialization's own schedule sends the same loop to the grid as the general one.
  const size_t special = text.find(".output_buffer().dim(0).extent() % ");
  const size_t general = text.find("TailStrategy::GuardWithIf)");
  REQUIRE(special != std::string::npos);
  REQUIRE(general != std::string::npos);
  CHECK(text.find(".gpu_blocks(", special) < general);
  CHECK(text.find(".gpu_blocks(", general) != std::string::npos);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  CHECK(launches_gpu_kernels(compile_for_cuda(pipeline)));
  for (const auto &[width, height] : {std::pair{128, 64}, std::pair{100, 61}}) {  // whole tiles, then not
    INFO(width << "x" << height);
    CHECK(count_differences(run_planes_on_cpu(true, width, height), run_planes_on_cpu(false, width, height)) == 0);
  }
}

TEST_CASE("an output kernel whose grid loops are fused keeps its guarded schedule alone", "[schedule][constructs]") {
  // Specialized, conv_layer's and depthwise_separable_conv's outputs ran slower (session 30).
  const GpuProfile &gpu = find_gpu_profile("h200");
  Planes p(4);
  const PipelineDag dag = build_pipeline_dag(Halide::Pipeline(p.out));
  const std::string text = emit_schedule_source(with_grid_loops(dag, gpu, true), EmitContext::GeneratorSchedule);
  INFO(text);
  CHECK_FALSE(contains(text, ".extent() % "));
  CHECK_FALSE(contains(text, "TailStrategy::RoundUp"));
}
