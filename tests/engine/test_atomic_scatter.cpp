// An atomic scatter (a histogram's update spread over GPU threads) must compile to hardware
// atomic adds. When the stored index and the value's copy of it differ after lowering (a repeated
// subexpression lifted by CSE on one side, a clamp of a bounded Func on the other: see
// dag/atomic_index.h), Halide 14 lowers the update to a compare-and-swap loop instead, which ran
// for over 60 s per call on the H200 when the values piled into a few bins (random pipelines
// 200037 and 200124 of the 2026-12-02 collection).
// Cost: small DAGs, about ten CUDA compiles (no GPU needed), under a minute.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "first_options.h"
#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "cost/kernel_model.h"
#include "cost/learned_model.h"
#include "schedule/state_to_spec.h"
#include "search/atomic_lowering.h"
#include "search/decision_options.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

// Random pipeline 200037's histogram: the bins of a Sobel filter of a mirrored 16-bit image.
Halide::Pipeline edge_histogram() {
  using namespace Halide;
  ImageParam in(UInt(16), 2, "in0");
  in.dim(0).set_estimate(0, 1024);
  in.dim(1).set_estimate(0, 768);
  Var x("x"), y("y"), i("i");
  Func mirrored = BoundaryConditions::mirror_image(in);
  Func edges("edges");
  auto tap = [&](int dx, int dy) { return cast<int32_t>(mirrored(x + dx, y + dy)); };
  edges(x, y) = -tap(-1, -1) + tap(1, -1) - 2 * tap(-1, 0) + 2 * tap(1, 0) - tap(-1, 1) + tap(1, 1);
  Func hist("hist");
  RDom r(0, 1024, 0, 768, "r");
  hist(i) = 0;
  Expr scaled = clamp(cast<float>(edges(r.x, r.y)), 0.0f, 1023.0f);
  hist(clamp(cast<int32_t>(scaled), 0, 1023)) += 1;
  hist.set_estimates({{0, 1024}});
  return Pipeline(hist);
}

// Random pipeline 200124 (`hlsched random-pipeline --seed 200124 --stages 3 --writer-version 1`):
// a histogram of a value computed through two lookups in a float table.
Halide::Pipeline lookup_histogram() {
  using namespace Halide;
  ImageParam in0(UInt(8), 2, "in0"), in1(Float(32), 1, "in1");
  in0.dim(0).set_estimate(0, 2048);
  in0.dim(1).set_estimate(0, 2048);
  in1.dim(0).set_estimate(0, 4096);
  Var x("x"), y("y"), i("i");
  auto index_of = [](Expr value, float scale, int size) {
    Expr scaled = clamp(cast<float>(value) * scale, 0.0f, float(size - 1));
    return clamp(cast<int32_t>(scaled), 0, size - 1);
  };
  Func in0_edge = BoundaryConditions::repeat_edge(in0);
  Func in1_edge = BoundaryConditions::repeat_edge(in1);
  Func lookup("lookup_1"), mix("mix_2"), hist("hist_3");
  lookup(x, y) = in1_edge(index_of(in0_edge(x, y), 16.0f, 4096));
  Expr a = lookup(x, y);
  Expr d = in1_edge(index_of(a, 256.0f, 4096));
  mix(x, y) = saturating_cast<uint16_t>(max(cast<float>(in0_edge(x, y)), atan2(d, a)));
  RDom r(0, 2048, 0, 2048, "r_hist_3");
  hist(i) = 0;
  hist(index_of(mix(r.x, r.y), 0.015625f, 1024)) += 1;
  hist.set_estimates({{0, 1024}});
  return Pipeline(hist);
}

// A histogram whose index goes through a hand-written table: `table` uses its argument three
// times (inlined with a loaded argument, the load repeats in the index); `wrapped` has values in
// [0, 1023] (materialized, Halide clamps its calls inside the value's copy of the index only).
Halide::Pipeline table_histogram(bool through_wrapped) {
  using namespace Halide;
  ImageParam in(UInt(16), 2, "in");
  in.dim(0).set_estimate(0, 1024);
  in.dim(1).set_estimate(0, 768);
  Var v("v"), i("i");
  Func table("table"), wrapped("wrapped"), hist("hist");
  Expr w = cast<int32_t>(v);
  table(v) = select(w > 512, w - 512, w * 2);
  wrapped(v) = cast<int32_t>(v) % 1024;
  RDom r(0, 1024, 0, 768, "r");
  hist(i) = 0;
  Expr value = in(r.x, r.y);
  hist(through_wrapped ? wrapped(value) : clamp(table(value), 0, 1023)) += 1;
  hist.set_estimates({{0, 1024}});
  return Pipeline(hist);
}

// Random pipeline 400141 (`hlsched random-pipeline --seed 400141 --stages 7`): a 64-bin
// histogram of a float Func whose values lie in [0, 255] (the smaller of an 8-bit and a 16-bit
// input), over three reduction dimensions. Its beam schedule privatized the update (a copy per
// block in shared memory) with the Func at root: Halide clamped the Func's load inside the value's
// copy of the index, the shared-memory update became a compare-and-swap loop, and the kernel ran
// 338 ms on the H200 where the same schedule with the Func inlined took 1.07 ms.
Halide::Pipeline bounded_float_histogram() {
  using namespace Halide;
  ImageParam in1(UInt(8), 3, "in1"), in2(UInt(16), 2, "in2");
  in1.dim(0).set_estimate(0, 1760);
  in1.dim(1).set_estimate(0, 176);
  in1.dim(2).set_estimate(0, 4);
  in2.dim(0).set_estimate(0, 640);
  in2.dim(1).set_estimate(0, 360);
  Var x("x"), y("y"), c("c"), i("i");
  Func in1_mirror = BoundaryConditions::mirror_interior(in1);
  Func in2_edge = BoundaryConditions::repeat_edge(in2);
  Func mix("mix_2"), hist("hist_3");
  mix(x, y, c) = cast<float>(min(cast<int32_t>(in1_mirror(x, y, c)), cast<int32_t>(in2_edge(x * 4 / 11, y * 2))));
  RDom r(0, 1760, 0, 176, 0, 4, "r_hist_3");
  hist(i) = 0;
  Expr scaled = clamp(mix(r.x, r.y, r.z) * 64.0f, 0.0f, 63.0f);
  hist(clamp(cast<int32_t>(scaled), 0, 63)) += 1;
  hist.set_estimates({{0, 64}});
  return Pipeline(hist);
}

bool uses_global_atomics(const ScheduleSpec &spec) {
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  return code.find(".atomic()") != std::string::npos && code.find("rfactor") == std::string::npos;
}

bool offers_inline(const std::vector<FuncDecision> &options) {
  return std::any_of(options.begin(), options.end(),
                     [](const FuncDecision &d) { return d.level == ComputeLevel::Inline; });
}

// Decides `hist` at root with its update an atomic scatter (privatized or on global memory), the
// first such option standalone_options offers; false when there is none.
bool decide_atomic_update(const PipelineDag &dag, ScheduleState &state, int hist, const GpuProfile &gpu,
                          bool privatized) {
  for (const FuncDecision &d : standalone_options(dag, hist, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[1].atomic &&
        d.tilings[1].privatized == privatized) {
      state.decide(hist, d);
      return true;
    }
  return false;
}

// hist at root with its update atomic; edges inlined into it or in a kernel of its own.
ScheduleState with_atomic_hist(const PipelineDag &dag, const GpuProfile &gpu, bool edges_inlined) {
  ScheduleState state(dag);
  const int hist = func_named(dag, "hist"), edges = func_named(dag, "edges");
  REQUIRE(hist >= 0);
  REQUIRE(edges >= 0);
  REQUIRE(decide_atomic_update(dag, state, hist, gpu, false));
  if (edges_inlined) {
    state.decide(edges, FuncDecision{ComputeLevel::Inline});
  } else {
    const std::vector<FuncDecision> own = standalone_options(dag, edges, gpu, OptionLimits{});
    REQUIRE(own.back().level == ComputeLevel::Root);
    state.decide(edges, own.back());
  }
  return state;
}

}  // namespace

TEST_CASE("a boundary condition is not inlined into an atomic scatter's index", "[schedule][atomic]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const Halide::Pipeline pipeline = edge_histogram();
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int mirrored = func_named(dag, "mirror_image");
  REQUIRE(mirrored >= 0);
  REQUIRE(dag.funcs[mirrored].is_boundary_condition);

  // Read by a kernel of its own the boundary condition may be inlined as usual...
  CHECK(offers_inline(decision_options(dag, with_atomic_hist(dag, gpu, false), mirrored, gpu, OptionLimits{})));
  // ...inlined into the atomic update it would reach its index: it is materialized or fused.
  ScheduleState state = with_atomic_hist(dag, gpu, true);
  const std::vector<FuncDecision> options = decision_options(dag, state, mirrored, gpu, OptionLimits{});
  REQUIRE_FALSE(options.empty());
  CHECK_FALSE(offers_inline(options));
  CHECK(decision_breaks_atomic_add(dag, state, mirrored, FuncDecision{ComputeLevel::Inline}));

  // The property that hung on the GPU: whatever option comes first (inlining, before the fix),
  // with every other Func at its first option, the update compiles to atomic adds, not a
  // compare-and-swap loop.
  state.decide(mirrored, options.front());
  decide_rest_at_first_options(dag, state, gpu);
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(pipeline);
  CHECK(lowered.find("atom.global.add") != std::string::npos);
  CHECK(lowered.find("atom.global.cas") == std::string::npos);
}

namespace {

// The table Func `name` of table_histogram: with hist's update atomic, the options offered for it
// keep the update on atomic adds, and the schedule with the first of them compiles to one.
void check_table(bool through_wrapped, const std::string &name, ComputeLevel forbidden) {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const Halide::Pipeline pipeline = table_histogram(through_wrapped);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int hist = func_named(dag, "hist"), table = func_named(dag, name);
  REQUIRE(hist >= 0);
  REQUIRE(table >= 0);
  ScheduleState state(dag);
  REQUIRE(decide_atomic_update(dag, state, hist, gpu, false));
  const std::vector<FuncDecision> options = decision_options(dag, state, table, gpu, OptionLimits{});
  REQUIRE_FALSE(options.empty());
  for (const FuncDecision &d : options) CHECK(d.level != forbidden);
  decide_rest_at_first_options(dag, state, gpu);
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(pipeline);
  CHECK(lowered.find("atom.global.add") != std::string::npos);
  CHECK(lowered.find("atom.global.cas") == std::string::npos);
}

}  // namespace

TEST_CASE("a table that repeats its argument is not inlined into an atomic scatter's index", "[schedule][atomic]") {
  check_table(false, "table", ComputeLevel::Inline);
}

TEST_CASE("a table with bounded values is inlined into an atomic scatter's index", "[schedule][atomic]") {
  // Materialized, its calls are clamped to [0, 1023] in the value's copy of the index only.
  check_table(true, "wrapped", ComputeLevel::Root);
}

namespace {

// Random pipeline 710011's second histogram, reduced: the bins come from `table` at an index
// computed from `bounded` (values in [0, 255], so Halide 14 clamps its calls where they sit in
// another call's arguments). `table` looks its argument up in an int32 input, or divides it.
Halide::Pipeline nested_lookup_histogram(bool table_looks_up) {
  using namespace Halide;
  ImageParam in(UInt(8), 2, "in"), weights(Int(32), 1, "weights");
  in.dim(0).set_estimate(0, 1024);
  in.dim(1).set_estimate(0, 768);
  weights.dim(0).set_estimate(0, 256);
  Var x("x"), y("y"), v("v"), i("i");
  Func bounded("bounded"), table("table"), hist("hist");
  bounded(x, y) = cast<float>(in(x, y));
  table(v) = table_looks_up ? weights(clamp(v, 0, 255)) : v / 4;
  RDom r(0, 1024, 0, 768, "r");
  hist(i) = 0;
  hist(clamp(table(clamp(cast<int32_t>(bounded(r.x, r.y)), 0, 255)), 0, 63)) += 1;
  hist.set_estimates({{0, 64}});
  return Pipeline(hist);
}

}  // namespace

TEST_CASE("a bounded Func read inside another call's arguments keeps the atomic add", "[schedule][atomic]") {
  // Halide clamps `bounded` wherever it sits inside a call's arguments: inside `table`'s (or,
  // with `table` inlined, inside the input's it looks up) on both sides of the update, which
  // stays an atomic add (710011 ran its privatized histogram on atom.shared.add in 0.17 ms, which
  // the model had priced as a 36 ms CAS loop); with `table` an inlined division, in the value's
  // copy of the index only: a compare-and-swap loop.
  const GpuProfile &gpu = find_gpu_profile("h200");
  for (bool table_looks_up : {true, false})
    for (bool table_inlined : {false, true}) {
      INFO("table looks up: " << table_looks_up << ", inlined: " << table_inlined);
      const bool cas = table_inlined && !table_looks_up;
      const Halide::Pipeline pipeline = nested_lookup_histogram(table_looks_up);
      const PipelineDag dag = build_pipeline_dag(pipeline);
      const int hist = func_named(dag, "hist"), table = func_named(dag, "table"),
                bounded = func_named(dag, "bounded");
      REQUIRE(hist >= 0);
      REQUIRE(table >= 0);
      REQUIRE(bounded >= 0);
      REQUIRE(dag.funcs[bounded].clamped_in_indexes);
      REQUIRE_FALSE(dag.funcs[table].clamped_in_indexes);
      ScheduleState state(dag);
      REQUIRE(decide_atomic_update(dag, state, hist, gpu, false));
      const std::vector<FuncDecision> table_own = standalone_options(dag, table, gpu, OptionLimits{});
      REQUIRE(table_own.back().level == ComputeLevel::Root);
      state.decide(table, table_inlined ? FuncDecision{ComputeLevel::Inline} : table_own.back());

      const std::vector<FuncDecision> own = standalone_options(dag, bounded, gpu, OptionLimits{});
      REQUIRE(own.back().level == ComputeLevel::Root);
      CHECK(decision_breaks_atomic_add(dag, state, bounded, own.back()) == cas);
      state.decide(bounded, own.back());
      CHECK(atomic_update_lowers_to_cas(dag, state, hist, 1) == cas);

      // What Halide 14 emits for the same schedule.
      decide_rest_at_first_options(dag, state, gpu);
      const ScheduleSpec spec = state_to_spec(dag, state, gpu);
      INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
      apply_schedule(spec, pipeline, ApplyMode::Gpu);
      const std::string lowered = compile_for_cuda(pipeline);
      CHECK((lowered.find("atom.global.add") != std::string::npos) == !cas);
      CHECK((lowered.find("atom.global.cas") != std::string::npos) == cas);
    }
}

TEST_CASE("a repeated subexpression in the definition's own index rules the atomic out", "[schedule][atomic]") {
  using namespace Halide;
  ImageParam in(UInt(16), 2, "in");
  in.dim(0).set_estimate(0, 1024);
  in.dim(1).set_estimate(0, 768);
  Var i("i");
  RDom r(0, 1024, 0, 768, "r");
  Func squares("squares"), weighted("weighted");
  squares(i) = 0;
  squares(clamp(cast<int32_t>(in(r.x, r.y)) * cast<int32_t>(in(r.x, r.y)), 0, 1023)) += 1;
  squares.set_estimates({{0, 1024}});
  weighted(i) = 0;
  weighted(clamp(cast<int32_t>(in(r.x, r.y)) * 3, 0, 1023)) += cast<int32_t>(in(r.x, r.y));
  weighted.set_estimates({{0, 1024}});
  for (const Func &f : {squares, weighted}) {
    const PipelineDag dag = build_pipeline_dag(Pipeline(f));
    const FuncNode *node = dag.find(f.name());
    REQUIRE(node != nullptr);
    REQUIRE(node->stages.size() == 2);
    CHECK_FALSE(node->stages[1].atomic_safe);
  }
}

TEST_CASE("random pipeline 200124's random walks keep its histogram on atomic adds", "[schedule][atomic]") {
  // Walk 0 of seed 1 inlined mix_2 (whose definition repeats its lookup) into the histogram's
  // index: 2 atom.global.cas, timed out at 60 s on the H200.
  AutoschedulerOptions options;
  options.gpu_profile = "h200";
  int atomic_walks = 0;
  for (int walk = 0; walk < 4; walk++) {
    const Halide::Pipeline pipeline = lookup_histogram();
    const PipelineDag dag = build_pipeline_dag(pipeline);
    const std::vector<ScheduleResult> sampled = sample_schedules(pipeline, dag, options, 1, 1, walk);
    REQUIRE(sampled.size() == 1);
    if (!uses_global_atomics(sampled[0].schedule)) continue;
    atomic_walks++;
    INFO("walk " << walk << ":\n" << sampled[0].schedule_code);
    apply_schedule(sampled[0].schedule, pipeline, ApplyMode::Gpu);
    const std::string lowered = compile_for_cuda(pipeline);
    CHECK(lowered.find("atom.global.add") != std::string::npos);
    CHECK(lowered.find("atom.global.cas") == std::string::npos);
  }
  CHECK(atomic_walks >= 1);
}

TEST_CASE("a privatized histogram keeps its shared-memory copy on atomic adds", "[schedule][atomic][privatized]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const Halide::Pipeline pipeline = bounded_float_histogram();
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int hist = func_named(dag, "hist_3"), mix = func_named(dag, "mix_2");
  REQUIRE(hist >= 0);
  REQUIRE(mix >= 0);
  CHECK(dag.funcs[mix].clamped_in_indexes);
  ScheduleState state(dag);
  REQUIRE(decide_atomic_update(dag, state, hist, gpu, true));

  // Materialized, mix_2 would be clamped in the value's copy of the index only: not offered.
  const std::vector<FuncDecision> options = decision_options(dag, state, mix, gpu, OptionLimits{});
  REQUIRE_FALSE(options.empty());
  for (const FuncDecision &d : options) CHECK(d.level != ComputeLevel::Root);

  // Forced to root anyway, the kernel model knows the loop and charges it: far above the same
  // kernel with mix_2 inlined (adds).
  auto hist_update_ms = [&](const FuncDecision &mix_decision, bool expect_cas) {
    ScheduleState s = state;
    s.decide(mix, mix_decision);
    const KernelModel km = build_kernel_model(dag, s, hist, 1, gpu);
    REQUIRE(km.valid);
    CHECK(km.cas_loop == expect_cas);
    return predict_kernel_cost(nullptr, dag, s, km, gpu).terms_ms.at("atomics");
  };
  const std::vector<FuncDecision> own = standalone_options(dag, mix, gpu, OptionLimits{});
  REQUIRE(own.back().level == ComputeLevel::Root);
  CHECK(hist_update_ms(own.back(), true) > 20 * hist_update_ms(FuncDecision{ComputeLevel::Inline}, false));

  // Each Func at its first option: shared-memory adds, no compare-and-swap.
  decide_rest_at_first_options(dag, state, gpu);
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(pipeline);
  CHECK(lowered.find("atom.shared.add") != std::string::npos);
  CHECK(lowered.find("atom.shared.cas") == std::string::npos);
}

// Halide launches a privatized scatter's block for the widest of its loops: the copy's bins
// spread over their own threads (up to 256) where the scatter has fewer. CUPTI timed random
// pipeline 620012's histogram in blocks of 32 threads where the kernel model had the scatter's 8.
TEST_CASE("a privatized scatter's block is as wide as its copy of the bins", "[schedule][atomic][privatized]") {
  // A histogram of 32 bins over rows 8 values wide: the scatter has at most 8 threads a block.
  using namespace Halide;
  ImageParam in(UInt(8), 2, "in");
  in.dim(0).set_estimate(0, 8);
  in.dim(1).set_estimate(0, 65536);
  Var i("i");
  Func hist("hist");
  RDom r(0, 8, 0, 65536, "r");
  hist(i) = 0;
  hist(cast<int32_t>(in(r.x, r.y)) % 32) += 1;
  hist.set_estimates({{0, 32}});
  Pipeline pipeline(hist);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int h = func_named(dag, "hist");
  REQUIRE(h >= 0);
  ScheduleState state(dag);
  for (const FuncDecision &d : standalone_options(dag, h, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[1].privatized &&
        d.tilings[1].threads_per_block() < 32) {
      state.decide(h, d);
      break;
    }
  REQUIRE(state.decided[h]);
  decide_rest_at_first_options(dag, state, gpu);
  const KernelModel km = build_kernel_model(dag, state, h, 1, gpu);
  REQUIRE(km.valid);
  CHECK(km.threads_per_block == 32);  // the 32 bins, one thread each

  // What Halide launches: the update's kernel call's block extents.
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  // (The update's is the kernel of stage 1; the name Halide gives it follows the Func's, which
  // another test in this process may have suffixed: hist$3 launches _kernel_hist__3_s1_...)
  const std::vector<std::string> block = launch_thread_extents(compile_for_cuda(pipeline), "_s1_");
  REQUIRE(block.size() == 3);
  CHECK(std::stod(block[0]) * std::stod(block[1]) * std::stod(block[2]) == km.threads_per_block);
}

TEST_CASE("a Func bounded on one side only is clamped where it indexes", "[schedule][atomic]") {
  // Random pipeline 400119: saturating_cast<int16_t>(max(v, 0)) lies in [0, 32767]; Halide 14
  // clamped its load to max(v, 0) inside a histogram's index (a compare-and-swap loop, 170 ms).
  using namespace Halide;
  ImageParam in(Int(16), 2, "in");
  in.dim(0).set_estimate(0, 512);
  in.dim(1).set_estimate(0, 512);
  Var x("x"), y("y"), i("i");
  Func positive("positive"), full("full"), hist("hist");
  positive(x, y) = saturating_cast<int16_t>(max(cast<int32_t>(in(x, y)), 0));
  full(x, y) = in(x, y);
  RDom r(0, 512, 0, 512, "r");
  hist(i) = 0;
  hist(clamp(cast<int32_t>(positive(r.x, r.y)) / 2048 + cast<int32_t>(full(r.x, r.y)) % 2, 0, 15)) += 1;
  hist.set_estimates({{0, 16}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(hist));
  REQUIRE(dag.find("positive") != nullptr);
  REQUIRE(dag.find("full") != nullptr);
  CHECK(dag.find("positive")->clamped_in_indexes);
  CHECK_FALSE(dag.find("full")->clamped_in_indexes);  // the whole int16 range: left alone
}

namespace {

// A histogram per channel of an 8-bit image (lut_from_reduction's, tests/data/idioms): its update
// has a pure loop, c, besides the reduction loops over the pixels.
Halide::Pipeline per_channel_histogram(Halide::ImageParam &in) {
  using namespace Halide;
  in.dim(0).set_estimate(0, 1920).dim(1).set_estimate(0, 1080).dim(2).set_estimate(0, 3);
  Var i("i"), c("c");
  Func hist("hist");
  RDom r(0, in.width(), 0, in.height(), "r");
  hist(i, c) = 0;
  hist(cast<int32_t>(in(r.x, r.y, c)), c) += 1;
  hist.set_estimates({{0, 256}, {0, 3}});
  return Pipeline(hist);
}

// The histograms per channel of one random image, counted on the CPU by a fresh instance (each
// has its own Func names: hist$N) that `schedule` schedules.
Halide::Buffer<int32_t> per_channel_counts(const std::function<void(Halide::Pipeline &)> &schedule) {
  const Halide::Buffer<uint8_t> image = random_buffer<uint8_t>({67, 45, 3}, 7, 0, 255);
  Halide::ImageParam in(Halide::UInt(8), 3, "in");
  Halide::Pipeline p = per_channel_histogram(in);
  schedule(p);
  in.set(image);
  Halide::Buffer<int32_t> out(256, 3);
  p.realize(out, cpu_target());
  return out;
}

}  // namespace

TEST_CASE("a histogram per channel scatters atomically, a block dimension per channel", "[schedule][atomic]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  Halide::ImageParam in(Halide::UInt(8), 3, "in");
  Halide::Pipeline pipeline = per_channel_histogram(in);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int hist = func_named(dag, "hist");
  REQUIRE(hist >= 0);

  // Offered: the update atomic over the pixels, the channel loop kept whole as a block dimension.
  const std::vector<FuncDecision> options = standalone_options(dag, hist, gpu, OptionLimits{});
  const auto atomic = std::find_if(options.begin(), options.end(), [](const FuncDecision &d) {
    return d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[1].atomic;
  });
  REQUIRE(atomic != options.end());
  const StageTiling &update = atomic->tilings[1];
  const auto channel = std::find(update.vars.begin(), update.vars.end(), "c");
  REQUIRE(channel != update.vars.end());
  CHECK(update.threads[size_t(channel - update.vars.begin())] == 1);
  CHECK(update.threads_per_block() >= 32);

  // The search takes an atomic scatter (this one or its privatized form, below) over a few
  // threads each running the whole image, which the atomic one beats by far.
  AutoschedulerOptions search;
  search.model = "hand";
  const ScheduleResult r = schedule_pipeline(pipeline, dag, search);
  INFO(r.schedule_code);
  CHECK(r.schedule_code.find(".atomic()") != std::string::npos);
  CHECK(r.schedule_code.find(".gpu_blocks(c)") != std::string::npos);
  ScheduleState serial(dag);
  serial.decide(hist, options.front());
  REQUIRE_FALSE(options.front().tilings[1].atomic);
  const KernelModel per_channel = build_kernel_model(dag, serial, hist, 1, gpu);
  const KernelModel scattered = build_kernel_model(dag, [&] {
    ScheduleState s(dag);
    s.decide(hist, *atomic);
    return s;
  }(), hist, 1, gpu);
  CHECK(cost_of_kernel(scattered, gpu).total_ms * 10 < cost_of_kernel(per_channel, gpu).total_ms);

  // It compiles to hardware atomic adds, and on the CPU it counts what compute_root counts.
  Halide::Pipeline gpu_copy = pipeline;
  apply_schedule(r.schedule, gpu_copy, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(gpu_copy);
  CHECK(lowered.find("atom.global.add") != std::string::npos);
  CHECK(lowered.find("atom.global.cas") == std::string::npos);

  // Searched again for each instance, to the same schedule.
  const Halide::Buffer<int32_t> scheduled = per_channel_counts([&](Halide::Pipeline &p) {
    apply_schedule(schedule_pipeline(p, build_pipeline_dag(p), search).schedule, p, ApplyMode::Cpu);
  });
  CHECK(count_differences(scheduled, per_channel_counts(schedule_compute_root_everywhere)) == 0);
}

TEST_CASE("a histogram per channel is privatized, a copy of one channel's bins per block", "[schedule][atomic][privatized]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  // The privatized schedule of a fresh instance (each has its own Func names: hist$N).
  auto privatized = [&](Halide::Pipeline &pipeline, PipelineDag &dag) {
    dag = build_pipeline_dag(pipeline);
    ScheduleState state(dag);
    const int hist = func_named(dag, "hist");
    REQUIRE(hist >= 0);
    REQUIRE(decide_atomic_update(dag, state, hist, gpu, true));
    decide_rest_at_first_options(dag, state, gpu);
    return state;
  };
  Halide::ImageParam in(Halide::UInt(8), 3, "in");
  Halide::Pipeline pipeline = per_channel_histogram(in);
  PipelineDag dag;
  const ScheduleState state = privatized(pipeline, dag);
  const int hist = func_named(dag, "hist");

  // Each block keeps its channel's 256 bins (1 KB), and adds them to the output.
  const KernelModel km = build_kernel_model(dag, state, hist, 1, gpu);
  REQUIRE(km.valid);
  const auto copy = std::find_if(km.fused.begin(), km.fused.end(), [&](const FusedFunc &f) { return f.func == hist; });
  REQUIRE(copy != km.fused.end());
  CHECK(copy->bytes_per_block == 256 * 4);
  CHECK(km.global_atomics == km.blocks * 256);

  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find("rfactor") != std::string::npos);
  CHECK(code.find(".gpu_blocks(c)") != std::string::npos);
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(pipeline);
  CHECK(lowered.find("atom.shared.add") != std::string::npos);
  CHECK(lowered.find("atom.global.add") != std::string::npos);
  CHECK(lowered.find(".cas") == std::string::npos);

  // On the CPU it counts what compute_root counts.
  const Halide::Buffer<int32_t> scheduled = per_channel_counts([&](Halide::Pipeline &p) {
    PipelineDag fresh_dag;
    const ScheduleState s = privatized(p, fresh_dag);
    apply_schedule(state_to_spec(fresh_dag, s, gpu), p, ApplyMode::Cpu);
  });
  CHECK(count_differences(scheduled, per_channel_counts(schedule_compute_root_everywhere)) == 0);
}
