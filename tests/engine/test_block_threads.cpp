// How a Func fused per block is spread over the block's threads: its loops go to gpu_threads as
// they are where Halide's region follows the block's tile (every read on its way to the kernel's
// root affine), and are split to constant extents where a clamped read can make Halide's region
// the whole image. Cost: two small pipelines, each lowered once for CUDA.
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

// `fused` (default `prod`) fused per block of `root` (default `out`), tiled 32x8 with one point per
// thread; every other Func inlined, or a kernel of its own so tiled if it is an output.
ScheduleSpec prod_per_block(const Halide::Pipeline &pipeline, const PipelineDag &dag, const GpuProfile &gpu,
                            const std::string &root = "out", const std::string &fused = "prod") {
  const int o = func_named(dag, root), p = func_named(dag, fused);
  REQUIRE(o >= 0);
  REQUIRE(p >= 0);
  const std::optional<FuncDecision> tiled = root_option_where(dag, o, gpu, one_point_per_thread_32x8);
  REQUIRE(tiled);
  ScheduleState state(dag);
  state.decide(o, *tiled);
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    if (int(f) == o || int(f) == p) continue;
    if (!dag.funcs[f].is_output) {
      state.decide(int(f), FuncDecision{ComputeLevel::Inline});
      continue;
    }
    const std::optional<FuncDecision> own = root_option_where(dag, int(f), gpu, one_point_per_thread_32x8);
    REQUIRE(own);
    state.decide(int(f), *own);
  }
  state.decide(p, FuncDecision{ComputeLevel::Block, o, {}});
  REQUIRE(state.complete());
  return state_to_spec(dag, state, gpu);
}

const FuncSchedule &schedule_of(const ScheduleSpec &spec, const std::string &prefix) {
  for (const FuncSchedule &fs : spec.funcs)
    if (fs.func.rfind(prefix, 0) == 0) return fs;
  FAIL("no schedule for " << prefix);
  return spec.funcs.front();
}

bool has(const FuncSchedule &fs, Directive::Kind kind) {
  for (const StageSchedule &s : fs.stages)
    for (const Directive &d : s.directives)
      if (d.kind == kind) return true;
  return false;
}

}  // namespace

TEST_CASE("a Func per block read at affine offsets goes to the threads unsplit", "[schedule][fusion]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  out(x, y) = prod(x, y) + prod(x + 2, y + 1) + prod(x + 1, y + 2);
  out.set_estimates({{0, 500}, {0, 500}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = prod_per_block(pipeline, dag, gpu);
  const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(text);
  const FuncSchedule &p = schedule_of(spec, "prod");
  CHECK(p.level == ComputeLevel::Block);
  CHECK_FALSE(has(p, Directive::Kind::Split));
  CHECK_FALSE(has(p, Directive::Kind::Reorder));  // x, y are already in order
  CHECK(text.find(".gpu_threads(x, y)") != std::string::npos);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string stmt = compile_for_cuda(pipeline);
  CHECK(launches_gpu_kernels(stmt));
}

TEST_CASE("a Func per block read through a clamp keeps constant thread extents", "[schedule][fusion]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), mid("mid"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  mid(x, y) = prod(x, y) + prod(x + 1, y);  // read affinely, inlined into out
  // A boundary condition on the way to the root: Halide bounds prod's region by the clamp.
  out(x, y) = mid(x, y) + mid(clamp(x + 2, 0, 510), y) + mid(x, clamp(y + 1, 0, 511));
  out.set_estimates({{0, 512}, {0, 512}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = prod_per_block(pipeline, dag, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  const FuncSchedule &p = schedule_of(spec, "prod");
  CHECK(p.level == ComputeLevel::Block);
  CHECK(has(p, Directive::Kind::Split));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  CHECK(launches_gpu_kernels(compile_for_cuda(pipeline)));
}

TEST_CASE("a Func per block under a root read at scaled coordinates keeps constant thread extents", "[schedule][fusion]") {
  // mid's tiles end where its realized region does, an expression of out's reads at (x * 4, y / 2)
  // through which Halide's bound of prod's thread loops lost the tile: random pipeline 640037
  // launched 261x8 threads per block (CUDA_ERROR_INVALID_VALUE).
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), mid("mid"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  mid(x, y) = clamp(prod(x, y), -1.0f, 1.0f);
  out(x, y) = mid(x * 4, y / 2) + mid(x * 4 + 1, y / 2 + 1);
  out.set_estimates({{0, 100}, {0, 990}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = prod_per_block(pipeline, dag, gpu, "mid");
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  CHECK(schedule_of(spec, "prod").level == ComputeLevel::Block);
  CHECK(has(schedule_of(spec, "prod"), Directive::Kind::Split));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string stmt = compile_for_cuda(pipeline);
  INFO("thread extents: " << Catch::StringMaker<std::vector<std::string>>::convert(launch_thread_extents(stmt)));
  const std::vector<int64_t> blocks = launch_block_threads(stmt);
  REQUIRE(blocks.size() >= 2);  // two kernels
  for (int64_t threads : blocks) {
    REQUIRE(threads > 0);  // every extent a constant
    CHECK(threads <= 1024);
  }
}
