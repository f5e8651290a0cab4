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

// `prod` fused per block of `out`, tiled 32x8 with one point per thread; every other Func inlined.
ScheduleSpec prod_per_block(const Halide::Pipeline &pipeline, const PipelineDag &dag, const GpuProfile &gpu) {
  const int o = func_named(dag, "out"), p = func_named(dag, "prod");
  REQUIRE(o >= 0);
  REQUIRE(p >= 0);
  const std::optional<FuncDecision> tiled = root_option_where(dag, o, gpu, one_point_per_thread_32x8);
  REQUIRE(tiled);
  ScheduleState state(dag);
  state.decide(o, *tiled);
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (int(f) != o && int(f) != p) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
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
