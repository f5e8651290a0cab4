// How a Func fused per block is spread over the block's threads: its loops go to gpu_threads as
// they are where Halide's region follows the block's tile (every read on its way to the kernel's
// root affine), and are split to constant extents where a clamped read can make Halide's region
// the whole image; a narrow box in passes folds rows beside its columns, and rows read down
// their columns are padded. Cost: four small pipelines, each lowered once for CUDA, one also run
// on the CPU.
#include <catch2/catch.hpp>

#include "first_options.h"
#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "cost/kernel_model.h"
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

// `spec` applied to `pipeline` and lowered for CUDA: at least two kernels (the root's and another),
// each launched with a constant number of threads per block, at most 1024.
void require_constant_block_threads(const ScheduleSpec &spec, const Halide::Pipeline &pipeline) {
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
  require_constant_block_threads(spec, pipeline);
}

TEST_CASE("a Func per block under a root read at scaled coordinates through an inlined Func keeps constant thread extents",
          "[schedule][fusion]") {
  // The scaled read reaches mid through flip, inlined: mid's only direct reader reads it at
  // (99 - x, y), yet its realized region is out's (x * 4, y / 2) through the flip. Random
  // pipeline 720008 launched 4320 threads per block so (CUDA_ERROR_INVALID_VALUE, session 41).
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), mid("mid"), flip("flip"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  mid(x, y) = clamp(prod(x, y), -1.0f, 1.0f);
  flip(x, y) = mid(399 - x, y);
  out(x, y) = flip(x * 4, y / 2) + flip(x * 4 + 1, y / 2 + 1);
  out.set_estimates({{0, 100}, {0, 990}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleSpec spec = prod_per_block(pipeline, dag, gpu, "mid");
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  CHECK(schedule_of(spec, "flip").level == ComputeLevel::Inline);
  CHECK(schedule_of(spec, "prod").level == ComputeLevel::Block);
  CHECK(has(schedule_of(spec, "prod"), Directive::Kind::Split));
  require_constant_block_threads(spec, pipeline);
}

TEST_CASE("a Func per block read down its columns fills the block and pads its rows", "[schedule][fusion]") {
  // out transposes a 3x3 box sum computed per block: under a wide root tile (128 or more threads
  // along x, at most 4 along y) the box is a few columns by a hundred or more rows. Its rows run
  // in passes over the block's y threads alone (random pipeline 640062's rotated 7x7 box: 32x4
  // of 256x4 threads busy, 0.465 ms on the H100) unless rows are folded beside the columns on
  // thread dimension 0; and out's lanes read down box's columns, 32 ways to one bank per warp
  // where a row is 32 words, unless the row is padded.
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in(Int(32), 2, "in");
  in.dim(0).set_estimate(0, 512).dim(1).set_estimate(0, 512);
  Var x("x"), y("y");
  RDom r(-1, 3, -1, 3, "r");
  // The pipeline (fresh Funcs each call: one is scheduled for CUDA, one for its CPU twin) and
  // its reference, every Func at root.
  auto transposed_box = [&](bool reference) {
    Func box("box"), out("out");
    Func clamped = BoundaryConditions::repeat_edge(in);
    box(x, y) = 0;
    box(x, y) += clamped(x + r.x, y + r.y);
    out(x, y) = box(y, x) * 3;
    out.set_estimates({{0, 512}, {0, 512}});
    if (reference) box.compute_root();
    return Pipeline(out);
  };
  auto wide_tile = [](const StageTiling &t) {
    return t.threads.size() == 2 && t.threads[0] >= 128 && t.threads[1] <= 4 && t.serial[0] == 1 &&
           t.threads[1] * t.serial[1] >= 8;
  };
  // box per block of out, out tiled wide, the boundary condition inlined.
  auto scheduled = [&](const PipelineDag &dag) {
    const int o = func_named(dag, "out"), b = func_named(dag, "box");
    const std::optional<FuncDecision> wide = root_option_where(dag, o, gpu, wide_tile);
    REQUIRE(wide);
    ScheduleState state(dag);
    state.decide(o, *wide);
    state.decide(b, FuncDecision{ComputeLevel::Block, o, {}});
    for (size_t f = 0; f < dag.funcs.size(); f++)
      if (!state.decided[f]) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
    REQUIRE(state.complete());
    return state;
  };
  const Pipeline pipeline = transposed_box(false);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const ScheduleState state = scheduled(dag);
  const int o = func_named(dag, "out"), b = func_named(dag, "box");

  const KernelModel km = build_kernel_model(dag, state, o, 0, gpu);
  REQUIRE(km.valid);
  const FusedFunc *fused = nullptr;
  for (const FusedFunc &f : km.fused)
    if (f.func == b) fused = &f;
  REQUIRE(fused != nullptr);
  // The row padded to an odd length: lanes reading down a column hit 32 different banks.
  CHECK(fused->storage_row % 2 == 1);
  CHECK(fused->bank_conflict_ways == 1);
  std::vector<double> root_shape, root_threads;
  root_block(state.decisions[o].tilings.front(), root_shape, root_threads);
  const BlockFusedLayout layout =
      block_fused_layout(fused->box, root_shape, root_threads, gpu.max_threads_per_block, rows_round_up(dag.funcs[b]));
  INFO("box " << fused->box[0] << "x" << fused->box[1] << ", block " << root_shape[0] << "x" << root_shape[1]);
  CHECK(layout.folds >= 2);
  // Folded, a pass keeps at least half of the block's threads busy.
  CHECK(double(layout.threads[0] * layout.folds * layout.threads[1]) >= root_shape[0] * root_shape[1] / 2);

  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(text);
  const FuncSchedule &per_block = schedule_of(spec, "box");
  CHECK(has(per_block, Directive::Kind::Fuse));
  CHECK(has(per_block, Directive::Kind::AlignStorage));
  CHECK(text.find(".align_storage(x, " + std::to_string(fused->storage_row) + ")") != std::string::npos);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  // (out's whole tiles may be specialized: a launch for each case)
  for (int64_t threads : launch_block_threads(compile_for_cuda(pipeline)))
    CHECK(threads == int64_t(root_shape[0] * root_shape[1]));  // the fold does not grow the block

  // The CPU twin computes what compute_root computes.
  in.set(random_buffer<int32_t>({512, 512}, 7, -1000, 1000));
  Pipeline reference = transposed_box(true);
  const Buffer<int32_t> expected = reference.realize({300, 200}, cpu_target());
  Pipeline twin = transposed_box(false);
  const PipelineDag twin_dag = build_pipeline_dag(twin);
  apply_schedule(state_to_spec(twin_dag, scheduled(twin_dag), gpu), twin, ApplyMode::Cpu);
  const Buffer<int32_t> actual = twin.realize({300, 200}, cpu_target());
  CHECK(count_differences(expected, actual) == 0);
}

TEST_CASE("a Func per block read through a boundary condition leaves its rows a loop", "[schedule][fusion]") {
  // Rows split from a thread loop (yt, yr) inside the pass loop over the box: where the Func reads
  // through a boundary condition at scaled coordinates Halide 14 partitions the pass loop with
  // bounds that depend on the thread, and with the rows unrolled thread row 31 of the last block
  // row ran its last pass one iteration late (random pipeline 730026: shared stores out of bounds,
  // the H100 faulted). Such rows stay a loop; without the boundary condition, or through one read
  // at unit steps (unsharp's gray: left a loop, its output ran 2x slower on the H100), they are
  // unrolled.
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  auto rows_per_thread = [](const StageTiling &t) {
    return t.threads.size() == 2 && t.threads[0] == 32 && t.threads[1] == 8 && t.serial[0] == 1 && t.serial[1] == 4;
  };
  enum class Read { ScaledThroughClamp, Scaled, ThroughClamp };
  for (const Read read : {Read::ScaledThroughClamp, Read::Scaled, Read::ThroughClamp}) {
    const bool bounded = read == Read::ScaledThroughClamp;
    CAPTURE(int(read));
    Func edge = BoundaryConditions::repeat_edge(in);
    Func prod("prod"), out("out");
    // Upsampled: Halide's region of prod per block is not the model's box, so it runs in passes.
    const Expr value = read == Read::ScaledThroughClamp ? edge(x / 2, y / 2)
                       : read == Read::Scaled          ? in(x / 2, y / 2)
                                                       : edge(x - 1, y + 1);
    prod(x, y) = value * 2.0f + 1.0f;
    out(x, y) = prod(x, y) + prod(x + 1, y + 1);
    out.set_estimates({{0, 1000}, {0, 1000}});
    const Pipeline pipeline(out);
    const PipelineDag dag = build_pipeline_dag(pipeline);
    const int o = func_named(dag, "out"), p = func_named(dag, "prod");
    const std::optional<FuncDecision> tiled = root_option_where(dag, o, gpu, rows_per_thread);
    REQUIRE(tiled);
    ScheduleState state(dag);
    state.decide(o, *tiled);
    state.decide(p, FuncDecision{ComputeLevel::Block, o, {}});
    for (size_t f = 0; f < dag.funcs.size(); f++)
      if (!state.decided[f]) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
    REQUIRE(state.complete());
    const ScheduleSpec spec = state_to_spec(dag, state, gpu);
    INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
    const FuncSchedule &fused = schedule_of(spec, "prod");
    REQUIRE(fused.level == ComputeLevel::Block);
    REQUIRE(has(fused, Directive::Kind::Split));  // rows of its own per thread
    CHECK(has(fused, Directive::Kind::Unroll) == !bounded);
    CHECK(unrolls_block_fused_rows(dag, state, p) == !bounded);
    apply_schedule(spec, pipeline, ApplyMode::Gpu);
    CHECK(launches_gpu_kernels(compile_for_cuda(pipeline)));
  }
}
