// An atomic scatter (a histogram's update spread over GPU threads) must compile to hardware
// atomic adds. With a boundary condition inlined into its index, Halide 14 lowers the update to a
// compare-and-swap loop instead, which ran for over 60 s per call on the H200 when the values
// piled into a few bins (random pipelines 200037 and 200124 of the 2026-12-02 collection).
// Cost: one small DAG, one CUDA compile (no GPU needed), a few seconds.
#include <catch2/catch.hpp>

#include <algorithm>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "schedule/state_to_spec.h"
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

int func_named(const PipelineDag &dag, const std::string &prefix) {
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (dag.funcs[f].name.rfind(prefix, 0) == 0) return int(f);
  return -1;
}

bool offers_inline(const std::vector<FuncDecision> &options) {
  return std::any_of(options.begin(), options.end(),
                     [](const FuncDecision &d) { return d.level == ComputeLevel::Inline; });
}

// hist at root with its update atomic; edges inlined into it or in a kernel of its own.
ScheduleState with_atomic_hist(const PipelineDag &dag, const GpuProfile &gpu, bool edges_inlined) {
  ScheduleState state(dag);
  const int hist = func_named(dag, "hist"), edges = func_named(dag, "edges");
  REQUIRE(hist >= 0);
  REQUIRE(edges >= 0);
  bool found = false;
  for (const FuncDecision &d : standalone_options(dag, hist, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[1].atomic &&
        !d.tilings[1].privatized) {
      state.decide(hist, d);
      found = true;
      break;
    }
  REQUIRE(found);
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
  CHECK(inline_breaks_atomic_add(dag, state, mirrored));

  // The property that hung on the GPU: whatever option comes first (inlining, before the fix),
  // with every other Func at its first option, the update compiles to atomic adds, not a
  // compare-and-swap loop.
  state.decide(mirrored, options.front());
  for (int f = 0; f < int(dag.funcs.size()); f++)
    if (!state.decided[f]) state.decide(f, decision_options(dag, state, f, gpu, OptionLimits{}).front());
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  INFO(emit_schedule_source(spec, EmitContext::GeneratorSchedule));
  apply_schedule(spec, pipeline, ApplyMode::Gpu);
  const std::string lowered = compile_for_cuda(pipeline);
  CHECK(lowered.find("atom.global.add") != std::string::npos);
  CHECK(lowered.find("atom.global.cas") == std::string::npos);
}
