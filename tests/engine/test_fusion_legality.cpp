// Fusions that compiled but could not run, or could not compile, found by the H200 collections:
// - a Func read along two paths that drift apart from block to block (random pipeline 400144:
//   matmul_2 read directly and through an inlined transpose) is sized by Halide for the farthest
//   block; fused per block, its shared memory took most of the Func and the launch failed;
// - a Func fused per thread stays legal only while every consumer is the kernel's own stage
//   (random pipeline 400247: a polish move fused its consumer per block, and Halide refused
//   box_3.compute_at(blur_7, xi));
// - a loop estimated at one iteration runs as a block loop (random pipeline 600101), never
//   inside the threads, where a Func per thread would span it;
// - a Func per thread must stay in registers (random pipeline 600171: wrong values otherwise);
// - a kernel re-tiled into partial results takes no fused Funcs (an unseen matrix-vector product),
//   nor one re-tiled into an atomic scatter (random pipeline 3001: the pasted text did not compile);
// - a Func per block read through an index divided by 3, 5, 9... (random pipeline 640032's
//   resampling by 7/9): Halide 14 bounds its threads by the whole image, and CUDA refused the launch.
// Cost: small DAGs built in memory, one CUDA compile, a few seconds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "cost/coordinate_paths.h"
#include "cost/kernel_model.h"
#include "schedule/state_to_spec.h"
#include "search/decision_options.h"
#include "search/schedule_state.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// `out` reads `prod` at its own point and, through `other` (inlined), at `(y, x)` when
// `transposed`, else at a neighbour `(x + 1, y)`.
Halide::Pipeline two_paths(bool transposed) {
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), other("other"), out("out");
  prod(x, y) = sqrt(in(x, y) * in(x, y) + 1.0f);
  other(x, y) = transposed ? prod(y, x) : prod(x + 1, y);
  out(x, y) = prod(x, y) + other(x, y);
  out.set_estimates({{0, 511}, {0, 511}});
  return Pipeline(out);
}

// `out`'s default tiling, `other` inlined: the state in which `prod` is decided.
ScheduleState out_tiled_other_inlined(const PipelineDag &dag, const GpuProfile &gpu) {
  ScheduleState state(dag);
  const int out = func_named(dag, "out"), other = func_named(dag, "other");
  REQUIRE(out >= 0);
  REQUIRE(other >= 0);
  state.decide(out, standalone_options(dag, out, gpu, OptionLimits{}).front());
  state.decide(other, FuncDecision{ComputeLevel::Inline});
  return state;
}

bool offers_fusion(const std::vector<FuncDecision> &options) {
  return std::any_of(options.begin(), options.end(), [](const FuncDecision &d) {
    return d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread;
  });
}

// `out` by its first (default) tiling, `fused` computed at `level` in out's kernel, every other
// Func inlined.
ScheduleState fused_into_default_tiling(const PipelineDag &dag, int out, int fused, ComputeLevel level,
                                        const GpuProfile &gpu) {
  ScheduleState state(dag);
  state.decide(out, standalone_options(dag, out, gpu, OptionLimits{}).front());
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (!state.decided[f] && int(f) != fused) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  state.decide(fused, FuncDecision{level, out, {}});
  return state;
}

// Funcs fused into `kernel` and then the kernel re-tiled by the first of its standalone tilings
// that `retiled` accepts: some tiling of the kernel offers `func` fused into it, that fusion is
// legal until the re-tiling, and neither legal nor offered after it.
void check_fusion_dropped_by_retiling(const PipelineDag &dag, int kernel, int func,
                                      const std::function<bool(const StageTiling &)> &retiled, const GpuProfile &gpu) {
  const std::vector<FuncDecision> tilings = standalone_options(dag, kernel, gpu, OptionLimits{});
  const auto retiling = std::find_if(tilings.begin(), tilings.end(), [&](const FuncDecision &t) {
    return t.level == ComputeLevel::Root && retiled(t.tilings.back());
  });
  REQUIRE(retiling != tilings.end());
  ScheduleState state(dag);
  std::vector<FuncDecision> fusions;
  for (const FuncDecision &t : tilings) {
    state.decide(kernel, t);
    fusions = consumer_fusion_options(dag, state, func, gpu, OptionLimits{});
    if (offers_fusion(fusions)) break;
  }
  REQUIRE(offers_fusion(fusions));
  const FuncDecision &fused = fusions.front();
  CHECK(fusion_still_legal(dag, state, func, fused));
  state.decide(kernel, *retiling);
  CHECK_FALSE(fusion_still_legal(dag, state, func, fused));
  CHECK_FALSE(offers_fusion(consumer_fusion_options(dag, state, func, gpu, OptionLimits{})));
}

}  // namespace

TEST_CASE("coordinate paths: translations agree, a transpose drifts", "[cost_model][kernel][fusion]") {
  const std::vector<DimPaths> root = identity_paths({"x", "y"});
  FuncNode consumer;
  consumer.name = "out";
  consumer.args = {"x", "y"};
  auto access = [](std::map<std::string, double> d0, double c0, std::map<std::string, double> d1, double c1) {
    ProducerAccess a;
    a.is_affine = true;
    a.region_min = {AffineExpr{true, c0, d0, ""}, AffineExpr{true, c1, d1, ""}};
    a.region_max = a.region_min;
    return a;
  };
  std::vector<DimPaths> prod(2);
  for (const ProducerAccess &a : {access({{"x", 1}}, 0, {{"y", 1}}, 0), access({{"x", 1}}, 1, {{"y", 1}}, -2)}) {
    const std::vector<DimPaths> via = compose_paths(consumer, true, root, a);
    for (size_t d = 0; d < 2; d++) prod[d].merge(via[d]);
  }
  CHECK_FALSE(prod[0].drifts());  // a stencil's taps: the same box in every block
  CHECK_FALSE(prod[1].drifts());

  const std::vector<DimPaths> transposed = compose_paths(consumer, true, root, access({{"y", 1}}, 0, {{"x", 1}}, 0));
  for (size_t d = 0; d < 2; d++) prod[d].merge(transposed[d]);
  CHECK(prod[0].drifts());
  CHECK(prod[1].drifts());

  // Through a Func read at (x / 2): its own x follows the kernel's x at 0.5, a different path.
  const std::vector<DimPaths> half = compose_paths(consumer, true, root, access({{"x", 0.5}}, 0, {{"y", 1}}, 0));
  const std::vector<DimPaths> through = compose_paths(consumer, false, half, access({{"x", 1}}, 0, {{"y", 1}}, 0));
  DimPaths x = root[0];
  x.merge(through[0]);
  CHECK(x.drifts());

  // A data-dependent index: not followed. A boundary condition's clamp around x (a window of
  // constant size): followed as x, so a clamped transpose drifts as the plain one does.
  ProducerAccess gathered = access({{"x", 1}}, 0, {{"y", 1}}, 0);
  gathered.region_min[0] = gathered.region_max[0] = AffineExpr{false, 0, {}, "lut[x + y]"};
  gathered.points_per_consumer_point = {-1, 1};
  CHECK(compose_paths(consumer, true, root, gathered)[0].unknown);
  ProducerAccess clamped = access({{"y", 1}}, 0, {{"x", 1}}, 0);
  clamped.region_min[0] = AffineExpr{false, 0, {}, "max(min(y, 511), 0)"};
  clamped.region_max[0] = AffineExpr{false, 0, {}, "max(min(y + 1, 511), 0)"};
  clamped.points_per_consumer_point = {2, 1};
  const std::vector<DimPaths> via_clamp = compose_paths(consumer, true, root, clamped);
  REQUIRE_FALSE(via_clamp[0].unknown);
  DimPaths x0 = root[0];
  x0.merge(via_clamp[0]);
  CHECK(x0.drifts());
}

TEST_CASE("a Func read along paths that drift apart per block is not fused into the block",
          "[cost_model][kernel][fusion]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  for (const bool transposed : {false, true}) {
    INFO((transposed ? "prod(x, y) and prod(y, x)" : "prod(x, y) and prod(x + 1, y)"));
    const PipelineDag dag = build_pipeline_dag(two_paths(transposed));
    const int out = func_named(dag, "out"), prod = func_named(dag, "prod");
    REQUIRE(prod >= 0);
    ScheduleState state = out_tiled_other_inlined(dag, gpu);
    // The neighbour is one more column per block; the transpose's farthest block reads a box of
    // most of prod (512 x 512 floats), far past a block's shared memory.
    CHECK(offers_fusion(decision_options(dag, state, prod, gpu, OptionLimits{})) == !transposed);
    state.decide(prod, FuncDecision{ComputeLevel::Block, out, {}});
    const KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
    CHECK(km.valid == !transposed);
  }
}

TEST_CASE("a Func fused per thread is legal only while the kernel's own stage is its only reader",
          "[schedule][fusion]") {
  // Random pipeline 400247's shape: blur reads mix at three rows, mix reads box at its point.
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func box("box"), mix("mix"), blur("blur");
  box(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
  mix(x, y) = box(x, y) * 0.5f + 1.0f;
  blur(x, y) = mix(x, y - 1) + 2.0f * mix(x, y) + mix(x, y + 1);
  blur.set_estimates({{0, 512}, {0, 512}});
  const Pipeline pipeline(blur);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int b = func_named(dag, "blur"), m = func_named(dag, "mix"), bx = func_named(dag, "box");
  REQUIRE(b >= 0);
  REQUIRE(m >= 0);
  REQUIRE(bx >= 0);

  ScheduleState state(dag);
  state.decide(b, standalone_options(dag, b, gpu, OptionLimits{}).front());
  state.decide(m, FuncDecision{ComputeLevel::Inline});
  const FuncDecision per_thread{ComputeLevel::Thread, b, {}};
  CHECK(fusion_still_legal(dag, state, bx, per_thread));

  // mix moves into the block (what the polish did): box per thread is no longer legal, and
  // Halide agrees, refusing the schedule.
  state.decide(m, FuncDecision{ComputeLevel::Block, b, {}});
  CHECK_FALSE(fusion_still_legal(dag, state, bx, per_thread));
  CHECK(fusion_still_legal(dag, state, bx, FuncDecision{ComputeLevel::Block, b, {}}));
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (!state.decided[f] && int(f) != bx) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  state.decide(bx, per_thread);
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  CHECK_THROWS_WITH(compile_for_cuda(pipeline), Catch::Contains("invalid location"));
}

TEST_CASE("a Func fused into a kernel that is re-tiled into partial results is no longer legal there",
          "[schedule][fusion]") {
  // A matrix-vector product (an unseen generator's shape): `vec` was fused per block into `dot`,
  // whose reduction the search then re-tiled into partial results (rfactor). That kernel has no
  // block loop to compute `vec` at: the emission found no loops for the kernel and the whole
  // schedule failed ("map::at").
  using namespace Halide;
  ImageParam matrix(Float(32), 2, "matrix"), vector_in(Float(32), 1, "vector_in");
  Var n("n");
  RDom k(0, 4096, "k");
  Func vec("vec"), dot("dot");
  vec(n) = vector_in(n);  // a copy (what a generator's Input buffer wraps), copied per slab
  dot(n) = 0.0f;
  dot(n) += matrix(k, n) * vec(k);
  dot.set_estimates({{0, 4096}});
  matrix.set_estimates({{0, 4096}, {0, 4096}});
  vector_in.set_estimates({{0, 4096}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(dot));
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int d = func_named(dag, "dot"), v = func_named(dag, "vec");
  REQUIRE(d >= 0);
  REQUIRE(v >= 0);

  // A tiling of dot takes vec into its blocks (in slabs of the reduction, as the search chose).
  check_fusion_dropped_by_retiling(dag, d, v, [](const StageTiling &t) { return t.partials; }, gpu);
}

TEST_CASE("a loop estimated at one iteration is a block loop, so a Func per thread stays bounded",
          "[schedule][fusion]") {
  // Random pipeline 600101: blur_7 estimated 1 x 6, down_6 in registers per thread. The x loop,
  // left innermost, ran inside every thread, and Halide 14 could not bound down_6's per-thread
  // region ("unable to infer constant upper bound on extent of realization down_6").
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  out(x, y) = prod(x - 1, y) + prod(x, y) + prod(x + 1, y) + prod(x, y + 1);
  out.set_estimates({{0, 1}, {0, 64}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int o = func_named(dag, "out"), p = func_named(dag, "prod");
  REQUIRE(o >= 0);
  REQUIRE(p >= 0);
  ScheduleState state = fused_into_default_tiling(dag, o, p, ComputeLevel::Thread, gpu);
  const StageTiling &tiling = state.decisions[size_t(o)].tilings.at(0);
  REQUIRE(tiling.vars.at(0) == "x");
  REQUIRE_FALSE(tiling.tiled(0));
  REQUIRE_FALSE(tiling.in_thread[0]);
  const KernelModel km = build_kernel_model(dag, state, o, 0, gpu);
  REQUIRE(km.valid);
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string text = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(text);
  CHECK(text.find("gpu_blocks(x)") != std::string::npos);
  CHECK(text.find("MemoryType::Register") != std::string::npos);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  CHECK(launches_gpu_kernels(compile_for_cuda(pipeline)));
}

TEST_CASE("a Func per thread that cannot be kept in registers makes its kernel invalid", "[cost_model][kernel][fusion]") {
  // Random pipeline 600171: constant_exterior was fused per thread while it could be in
  // registers, then the kernel changed around it; emitted as a plain compute_at, Halide 14 packed
  // every thread's copy into one buffer and the H200 computed wrong values.
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  out(x, y) = prod(x / 2, y) + prod(x, y + 1);  // a downsample: no constant per-thread region
  out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int o = func_named(dag, "out"), p = func_named(dag, "prod");
  REQUIRE(o >= 0);
  REQUIRE(p >= 0);
  ScheduleState state = fused_into_default_tiling(dag, o, p, ComputeLevel::Thread, gpu);
  const KernelModel per_thread = build_kernel_model(dag, state, o, 0, gpu);
  CHECK_FALSE(per_thread.valid);
  CHECK(per_thread.invalid_reason.find("registers") != std::string::npos);
  state.decide(p, FuncDecision{ComputeLevel::Inline});
  CHECK(build_kernel_model(dag, state, o, 0, gpu).valid);
}

TEST_CASE("a mirrored boundary condition is never computed in a Func per GPU block", "[cost_model][kernel][fusion]") {
  // Random pipelines 400151, 500092 and 500064: Halide 14's CUDA code computed wrong values
  // there (the CPU twins exact); at root or inlined into the kernel's own stage it is right.
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func mirrored = BoundaryConditions::mirror_interior(in);
  Func blur("blur"), out("out");
  blur(x, y) = mirrored(x - 1, y) + mirrored(x, y) + mirrored(x + 1, y);
  out(x, y) = blur(x, y - 1) + blur(x, y + 1);
  out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int o = func_named(dag, "out"), b = func_named(dag, "blur"), m = func_named(dag, mirrored.name());
  REQUIRE(o >= 0);
  REQUIRE(b >= 0);
  REQUIRE(m >= 0);
  CHECK(dag.funcs[size_t(m)].mirrors_at_boundary);
  CHECK_FALSE(dag.funcs[size_t(b)].mirrors_at_boundary);  // reads the mirror, is not one
  auto kernel_with = [&](ComputeLevel blur_level, ComputeLevel mirror_level) {
    ScheduleState state(dag);
    state.decide(o, standalone_options(dag, o, gpu, OptionLimits{}).front());
    state.decide(b, FuncDecision{blur_level, blur_level == ComputeLevel::Inline ? -1 : o, {}});
    state.decide(m, FuncDecision{mirror_level, mirror_level == ComputeLevel::Inline ? -1 : o, {}});
    for (size_t f = 0; f < dag.funcs.size(); f++)
      if (!state.decided[f]) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
    return build_kernel_model(dag, state, o, 0, gpu);
  };
  CHECK(kernel_with(ComputeLevel::Inline, ComputeLevel::Inline).valid);  // in the kernel's own stage
  const KernelModel inside = kernel_with(ComputeLevel::Block, ComputeLevel::Inline);
  CHECK_FALSE(inside.valid);
  CHECK(inside.invalid_reason.find("mirrored") != std::string::npos);
  CHECK_FALSE(kernel_with(ComputeLevel::Inline, ComputeLevel::Block).valid);  // itself per block
}

TEST_CASE("boundary conditions that reflect through abs() and % are marked as mirrors", "[dag][fusion]") {
  // The faults were seen with mirror_interior's reflection; mirror_image's (no abs()) is not marked.
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func interior = BoundaryConditions::mirror_interior(in), image = BoundaryConditions::mirror_image(in);
  Func edge = BoundaryConditions::repeat_edge(in);
  Func out("out");
  out(x, y) = interior(x, y - 1) + image(x - 1, y) + edge(x + 1, y) + abs(in(x, y) % 3.0f);  // no likely()
  out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const int m = func_named(dag, interior.name()), i = func_named(dag, image.name());
  const int e = func_named(dag, edge.name()), o = func_named(dag, "out");
  REQUIRE(m >= 0);
  REQUIRE(i >= 0);
  REQUIRE(e >= 0);
  REQUIRE(o >= 0);
  CHECK(dag.funcs[size_t(m)].mirrors_at_boundary);
  CHECK_FALSE(dag.funcs[size_t(i)].mirrors_at_boundary);
  CHECK_FALSE(dag.funcs[size_t(e)].mirrors_at_boundary);
  CHECK_FALSE(dag.funcs[size_t(o)].mirrors_at_boundary);
}

TEST_CASE("a Func per block read through an uneven division is refused; by halves it is not",
          "[cost_model][kernel][fusion]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  const auto kernel_with_down_per_block = [&](int num, int den) {
    ImageParam in = float_input_512x512();
    Var x("x"), y("y");
    Func down("down"), out("out");
    down(x, y) = in(2 * x, 2 * y) + in(2 * x + 1, 2 * y + 1);
    out(x, y) = down(x, y * num / den) + 1.0f;
    out.set_estimates({{0, 255}, {0, 255}});
    const PipelineDag dag = build_pipeline_dag(Pipeline(out));
    const int o = func_named(dag, "out"), d = func_named(dag, "down");
    REQUIRE(o >= 0);
    REQUIRE(d >= 0);
    return build_kernel_model(dag, fused_into_default_tiling(dag, o, d, ComputeLevel::Block, gpu), o, 0, gpu);
  };
  const KernelModel sevenths = kernel_with_down_per_block(7, 9);
  CHECK_FALSE(sevenths.valid);
  CHECK(sevenths.invalid_reason.find("division") != std::string::npos);
  CHECK_FALSE(kernel_with_down_per_block(1, 3).valid);
  CHECK(kernel_with_down_per_block(1, 2).valid);
  CHECK(kernel_with_down_per_block(3, 4).valid);
}

TEST_CASE("a Func fused into a kernel that is re-tiled into an atomic scatter is no longer legal there",
          "[schedule][fusion]") {
  // Random pipeline 3001, searched: a per-row histogram's producers fused per block while its
  // update ran a thread per row, then the update re-tiled into an atomic scatter over its
  // reduction loop. The block loop there is a split of a reduction variable, and the pasted
  // schedule declared it as a Var: "Can't split RVar r_row_hist_10$x into Var".
  using namespace Halide;
  ImageParam in(Float(32), 2, "in_rows");
  Var i("i"), x("x"), y("y");
  RDom r(0, 512, "r_rows");
  Func val("val"), rows("rows");
  val(x, y) = in(x, y) * 2.0f + 1.0f;
  rows(i, y) = 0;
  rows(clamp(cast<int>(val(r, y)), 0, 63), y) += 1;
  rows.set_estimates({{0, 64}, {0, 512}});
  in.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(rows));
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int h = func_named(dag, "rows"), v = func_named(dag, "val");
  REQUIRE(h >= 0);
  REQUIRE(v >= 0);

  check_fusion_dropped_by_retiling(dag, h, v, [](const StageTiling &t) { return t.atomic && !t.privatized; }, gpu);
}
