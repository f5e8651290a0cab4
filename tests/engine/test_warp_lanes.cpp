// Idle lanes counted by warps: a stage whose thread loops are shorter than the launched block
// (a Func fused per block grew it) issues its instructions only in the warps that hold some of
// its threads. Cost: one small DAG built in memory, no compile.
#include <catch2/catch.hpp>

#include "first_options.h"
#include "halide_test_support.h"
#include "cost/kernel_model.h"
#include "cost/warp_lanes.h"
#include "search/decision_options.h"
#include "search/schedule_state.h"

using namespace hlsched;
using namespace hlsched::testing;

TEST_CASE("warp lanes: the warps holding a stage's threads, numbered x fastest", "[cost_model][kernel]") {
  CHECK(warp_lanes_touched({32, 8, 1}, {32, 8, 1}, 32) == 256);
  // 32x8 of a 35x11 block: threads 0-31 of rows 0-7, the last one thread 7 * 35 + 31 = 276, in
  // warp 8: nine warps; the rows below are whole warps that skip the stage.
  CHECK(warp_lanes_touched({32, 8, 1}, {35, 11, 1}, 32) == 9 * 32);
  // 34x10 of 35x11: up to thread 9 * 35 + 33 = 348, warp 10.
  CHECK(warp_lanes_touched({34, 10, 1}, {35, 11, 1}, 32) == 11 * 32);
  // One thread of a block: one warp.
  CHECK(warp_lanes_touched({1, 1, 1}, {256, 1, 1}, 32) == 32);
  // The first slice of a 16x16x2 block: whole rows, 8 warps.
  CHECK(warp_lanes_touched({16, 16, 1}, {16, 16, 2}, 32) == 256);
  // 8 of 64 columns in each of 4 rows: each row's 8 threads in a warp of their own.
  CHECK(warp_lanes_touched({8, 4, 1}, {64, 4, 1}, 32) == 4 * 32);
  // 20 of 24 columns, 4 rows: rows share warps (threads 0-19, 24-43, 48-67, 72-91: warps 0-2).
  CHECK(warp_lanes_touched({20, 4, 1}, {24, 4, 1}, 32) == 3 * 32);
  CHECK(warp_lanes_touched({0, 4, 1}, {24, 4, 1}, 32) == 0);
}

TEST_CASE("a block grown for a Func fused per block idles its consumer's lanes only in the warps it touches",
          "[cost_model][kernel]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in = float_input_512x512();
  Var x("x"), y("y");
  Func prod("prod"), out("out");
  prod(x, y) = in(x, y) * 2.0f + 1.0f;
  // Much more arithmetic per point than its producer: the consumer's idle lanes dominate.
  Expr sum = 0.0f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) sum += sqrt(prod(x + dx + 1, y + dy + 1) * float(3 + dx + 3 * dy)) + 0.5f;
  out(x, y) = sum;
  out.set_estimates({{0, 510}, {0, 510}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const int o = func_named(dag, "out"), p = func_named(dag, "prod");
  REQUIRE(o >= 0);
  REQUIRE(p >= 0);

  // out in 32x8 tiles of one point per thread; prod per block of it (a 34x10 box with its halo).
  const std::optional<FuncDecision> tiled = root_option_where(dag, o, gpu, one_point_per_thread_32x8);
  REQUIRE(tiled);
  ScheduleState state(dag);
  state.decide(o, *tiled);
  for (size_t f = 0; f < dag.funcs.size(); f++)
    if (int(f) != o && int(f) != p) state.decide(int(f), FuncDecision{ComputeLevel::Inline});
  state.decide(p, FuncDecision{ComputeLevel::Block, o, {}});
  const KernelModel km = build_kernel_model(dag, state, o, 0, gpu);
  REQUIRE(km.valid);

  // The block grows to prod's box, which fills it; out's 256 threads touch 9 of its 11 warps.
  REQUIRE(km.block_shape.size() == 3);
  CHECK(km.block_shape[0] == 34);
  CHECK(km.block_shape[1] == 10);
  // out's own arithmetic waits through 32 idle lanes per 256 (9 warps for 8 warps' threads), at
  // most an eighth of the block's arithmetic; counted by threads it would be 84 per 256.
  CHECK(km.idle_lane_ops_per_block > 0);
  CHECK(km.idle_lane_ops_per_block <= km.ops_per_block * (9.0 * 32 / 256 - 1) + 1e-9);
}
