// What the kernel model charges for inlined Funcs (a Func read twice at one point is computed
// once, Halide's common-subexpression elimination; an inlined Func is substituted, not loaded,
// so it costs its arithmetic and no address arithmetic) and for partial results' reads.
// Cost: small DAGs built in memory, no compile.
#include <catch2/catch.hpp>

#include <functional>

#include "first_options.h"
#include "halide_test_support.h"
#include "cost/kernel_model.h"
#include "search/decision_options.h"
#include "search/schedule_state.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// `out` computed by its default tiling, every other Func inlined: the output kernel's model.
KernelModel output_kernel(const PipelineDag &dag, const GpuProfile &gpu) {
  ScheduleState state(dag);
  const int out = func_named(dag, "out");
  REQUIRE(out >= 0);
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (int(f) != out) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  for (const FuncDecision &d : standalone_options(dag, out, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root) {
      state.decide(out, d);  // the default tiling comes first
      break;
    }
  KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
  REQUIRE(km.valid);
  return km;
}

}  // namespace

TEST_CASE("a Func read twice at one point is one call, computed once when inlined", "[cost_model][kernel]") {
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func sq("sq"), out("out");
  sq(x, y) = in(x, y) * in(x, y) + 1.0f;
  out(x, y) = sq(x, y) * sq(x, y) + sq(x + 1, y);
  out.set_estimates({{0, 511}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const int o = func_named(dag, "out");
  REQUIRE(o >= 0);
  int64_t calls = 0;
  for (const ProducerAccess &a : dag.funcs[o].stages[0].accesses)
    if (a.producer.rfind("sq", 0) == 0) calls = a.calls_per_point;
  CHECK(calls == 2);  // sq(x, y) and sq(x + 1, y), not three call sites
}

TEST_CASE("an inlined Func adds its arithmetic to the kernel, no address arithmetic", "[cost_model][kernel]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  Var x("x"), y("y");

  // The same arithmetic and the same loads, written as one Func or through an inlined one.
  ImageParam a_in = float_input_512x512();
  Func a_out("out");
  a_out(x, y) = a_in(x, y) * 2.0f + 1.0f;
  a_out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag direct = build_pipeline_dag(Pipeline(a_out));

  ImageParam b_in = float_input_512x512();
  Func scaled("scaled"), b_out("out");
  scaled(x, y) = b_in(x, y) * 2.0f;
  b_out(x, y) = scaled(x, y) + 1.0f;
  b_out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag through = build_pipeline_dag(Pipeline(b_out));

  const KernelModel one = output_kernel(direct, gpu), two = output_kernel(through, gpu);
  CHECK(two.points_per_block == one.points_per_block);
  // The inlined multiply and the add stay two instructions (they are not contracted across
  // Funcs by the op counter); beyond that, nothing for the call.
  CHECK(two.ops_per_block <= one.ops_per_block + one.points_per_block);
}

TEST_CASE("partial results along a row read it coalesced", "[cost_model][kernel][partials]") {
  // A matrix-vector product whose rows are too few to fill the GPU: each row's reduction is
  // split into partial results, consecutive threads taking consecutive columns of the row. A
  // thread's steps are a block's width apart, so a warp's 32 loads share sectors: the layout
  // reads the matrix coalesced, not as 32 points per thread in a row would be read.
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam matrix(Float(32), 2, "matrix"), vec(Float(32), 1, "vec");
  matrix.dim(0).set_estimate(0, 4096).dim(1).set_estimate(0, 4096);
  vec.dim(0).set_estimate(0, 4096);
  RDom k(0, 4096, "k");
  Var n("n");
  Func dot("dot"), out("out");
  dot(n) = 0.0f;
  dot(n) += matrix(k, n) * vec(k);
  out(n) = dot(n) * 2.0f;
  out.set_estimates({{0, 4096}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const int d = func_named(dag, "dot"), o = func_named(dag, "out");
  REQUIRE(d >= 0);
  REQUIRE(o >= 0);
  const StageNode &update = dag.funcs[d].stages.at(1);

  // The option whose threads run along the row, each stepping through several of its columns.
  const std::vector<FuncDecision> options = standalone_options(dag, d, gpu, OptionLimits{});
  auto along_row = std::find_if(options.begin(), options.end(), [&](const FuncDecision &f) {
    if (f.level != ComputeLevel::Root || f.tilings.size() != 2) return false;
    const StageTiling &t = f.tilings[1];
    const int k_loop = partial_loop_per_point(t, update);
    return k_loop >= 0 && k_loop == t.innermost_thread_loop() && t.threads[size_t(k_loop)] >= 32 &&
           t.serial[size_t(k_loop)] > 1;
  });
  REQUIRE(along_row != options.end());

  const ScheduleState state = decided_with(dag, o, d, *along_row, gpu);
  const KernelModel km = build_kernel_model(dag, state, d, 1, gpu);
  REQUIRE(km.valid);
  const auto read = std::find_if(km.global_reads.begin(), km.global_reads.end(),
                                 [](const GlobalRead &g) { return g.name.rfind("matrix", 0) == 0; });
  REQUIRE(read != km.global_reads.end());
  INFO("threads " << Catch::Detail::stringify(along_row->tilings[1].threads) << ", steps "
                   << Catch::Detail::stringify(along_row->tilings[1].serial));
  CHECK(read->sector_efficiency > 0.9);
  CHECK(read->coalescing_efficiency > 0.9);
}

TEST_CASE("a boundary condition's clamps: parameters' arithmetic and likely() are not per point",
          "[cost_model][dag]") {
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func bounded = BoundaryConditions::repeat_edge(in);
  Func out("out");
  out(x, y) = bounded(x - 1, y) + bounded(x, y) + bounded(x + 1, y);
  out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const int b = func_named(dag, bounded.name());
  REQUIRE(b >= 0);
  const StageNode &clamp = dag.funcs[size_t(b)].stages[0];
  // clamp(likely(x), in.min.0, in.min.0 + in.extent.0 - 1) per dim: a min and a max at each
  // point; the bound is the same at every point (computed once), likely() is a hint.
  const auto count = [&](const char *key) { return clamp.ops.count(key) ? clamp.ops.at(key) : int64_t(0); };
  CHECK(count("min.i32") == 2);
  CHECK(count("max.i32") == 2);
  CHECK(count("add.i32") == 0);
  CHECK(count("sub.i32") == 0);
  CHECK(count("intrinsic.i32") == 0);
  CHECK(clamp.arithmetic_ops().total() == 4);

  // A Param's arithmetic in a value: computed once, the multiply by it at every point.
  Param<float> gain("gain");
  ImageParam in2 = float_input_512x512();
  Func scaled("scaled");
  scaled(x, y) = in2(x, y) * (gain * gain + 1.0f);
  scaled.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag scaled_dag = build_pipeline_dag(Pipeline(scaled));
  const OpCounts &ops = scaled_dag.funcs[size_t(func_named(scaled_dag, "scaled"))].stages[0].ops;
  CHECK(ops.at("mul.f32") == 1);
  CHECK_FALSE(ops.count("add.f32"));
}

TEST_CASE("an inlined Func's calls from a Func per thread are not merged into the kernel's unrolled points",
          "[cost_model][kernel]") {
  // Unsharp's gray, inlined both into the output's unrolled rows and into blur_x computed per
  // thread: the model merged all of gray's evaluations into the rows' few distinct points (one
  // input load per point of the kernel, 0.04 ms predicted); blur_x's 9 taps over its 16 rows per
  // thread are computed and loaded as called (58 loads a point: 0.153 ms on an H100).
  using namespace Halide;
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func g("g"), bx("bx"), out("out");
  g(x, y) = (in(x, y) + 1.0f) * (in(x, y) - 1.0f);  // arithmetic, not a plain copy (KernelBuilder::is_copy)
  bx(x, y) = g(x - 1, y) + g(x, y) + g(x + 1, y);
  out(x, y) = g(x, y) + bx(x, y - 1) + bx(x, y + 1);
  out.set_estimates({{0, 512}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int o = func_named(dag, "out"), b = func_named(dag, "bx");
  REQUIRE(o >= 0);
  REQUIRE(b >= 0);
  ScheduleState state(dag);
  bool decided = false;
  for (const FuncDecision &d : standalone_options(dag, o, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings.at(0).points_per_thread() == 4) {
      state.decide(o, d);  // 4 rows per thread, unrolled
      decided = true;
      break;
    }
  REQUIRE(decided);
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (!state.decided[f] && int(f) != b) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  state.decide(b, FuncDecision{ComputeLevel::Thread, o, {}});
  const KernelModel km = build_kernel_model(dag, state, o, 0, gpu);
  REQUIRE(km.valid);
  double loads = 0;
  for (const GlobalRead &r : km.global_reads)
    if (r.name == in.name()) loads = r.loads_per_block / km.points_per_block;
  // bx over 4 + 2 rows per thread, 3 calls of g each: 4.5 loads per point, and g's own point.
  CHECK(loads >= 5.5);
}

// A boundary condition's clamped index coalesces as the index inside the clamp does: a read
// through repeat_edge along the thread loop is contiguous, transposed it puts each lane in its own
// row, downsampled it skips every other element. Taken for a broadcast (no stride known through
// the clamp), a transposed 5x7 dilation read through repeat_edge was priced 17x under its 0.19 ms
// on the H200 (random pipeline 710015).
TEST_CASE("reads through a clamp coalesce as the index inside it does", "[cost_model][kernel]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  auto coalescing = [&](const std::function<Expr(Func, Var, Var)> &read) {
    ImageParam in = float_input_512x512();
    Var x("x"), y("y");
    Func bounded = BoundaryConditions::repeat_edge(in);
    Func out("out");
    out(x, y) = read(bounded, x, y);
    out.set_estimates({{0, 256}, {0, 256}});
    const PipelineDag dag = build_pipeline_dag(Pipeline(out));
    const KernelModel km = output_kernel(dag, gpu);
    for (const GlobalRead &g : km.global_reads)
      if (g.name.rfind("in", 0) == 0) return g.coalescing_efficiency;
    FAIL("the output kernel reads no input");
    return 0.0;
  };
  const double along = coalescing([](Func f, Var x, Var y) { return f(x + 1, y); });
  const double transposed = coalescing([](Func f, Var x, Var y) { return f(y, x); });
  const double downsampled = coalescing([](Func f, Var x, Var y) { return f(2 * x, y); });
  CHECK(along == Approx(1.0));
  CHECK(transposed == Approx(4.0 / 32));  // one float used of each lane's 32-byte sector
  CHECK(downsampled == Approx(0.5));
}
