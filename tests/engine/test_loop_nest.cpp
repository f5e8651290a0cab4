// loop_nest_lines (hlsched/engine/loop_nest.h): the loop nest a spec makes, as Halide 14 edits a
// stage's loop list. A reorder that names a loop already in place changes nothing; one that moves
// a loop does (state_to_spec's reorders began listing the extra block loops: commit e17d723).
#include <catch2/catch.hpp>

#include "hlsched/engine/loop_nest.h"

using namespace hlsched;
using Kind = Directive::Kind;

namespace {

// f(x, c, y): one pure stage, loops innermost first.
PipelineDag dag_of_f() {
  PipelineDag dag;
  FuncNode f;
  f.name = "f";
  f.args = {"x", "c", "y"};
  StageNode s0;
  s0.name = "f.s0";
  for (const char *v : {"x", "c", "y"}) s0.loops.push_back(LoopDim{v});
  f.stages.push_back(s0);
  dag.funcs.push_back(f);
  return dag;
}

ScheduleSpec tiled(std::vector<Directive> after_tile) {
  StageSchedule s0;
  s0.directives = {Directive{Kind::ComputeRoot},
                   Directive{Kind::GpuTile, {"x", "y", "xo", "yo", "xi", "yi"}, {32, 8}}};
  s0.directives.insert(s0.directives.end(), after_tile.begin(), after_tile.end());
  FuncSchedule f;
  f.func = "f";
  f.level = ComputeLevel::Root;
  f.stages.push_back(s0);
  ScheduleSpec spec;
  spec.funcs.push_back(f);
  return spec;
}

}  // namespace

TEST_CASE("loop nests follow Halide's split, reorder and gpu_tile", "[loop_nest]") {
  const PipelineDag dag = dag_of_f();
  const std::vector<std::string> plain = loop_nest_lines(dag, tiled({}));
  REQUIRE(plain.size() == 2);
  CHECK(plain[0] == "f: root");
  // gpu_tile: split x, split y, reorder(xi, yi, xo, yo) among the positions they hold; c stays.
  CHECK(plain[1].rfind("f.s0: loops xi:thread yi:thread c:serial xo:block yo:block;", 0) == 0);

  // Naming c where it already is, or the block loops in their order: the same nest.
  CHECK(loop_nest_lines(dag, tiled({Directive{Kind::Reorder, {"xi", "yi", "c", "xo", "yo"}}})) == plain);
  CHECK(loop_nest_lines(dag, tiled({Directive{Kind::Reorder, {"xo", "yo"}}})) == plain);

  // Moving c outside the blocks, or swapping the block loops: another nest.
  const auto c_outside = loop_nest_lines(dag, tiled({Directive{Kind::Reorder, {"xi", "yi", "xo", "yo", "c"}}}));
  CHECK(c_outside[1].rfind("f.s0: loops xi:thread yi:thread xo:block yo:block c:serial;", 0) == 0);
  CHECK(loop_nest_lines(dag, tiled({Directive{Kind::Reorder, {"yo", "xo"}}})) != plain);

  // A split's inner loop takes the old place, its outer one comes right after.
  const auto split = loop_nest_lines(dag, tiled({Directive{Kind::Split, {"yi", "yi", "yii"}, {2}},
                                                 Directive{Kind::Unroll, {"yii"}}}));
  CHECK(split[1].rfind("f.s0: loops xi:thread yii:unrolled yi:thread c:serial xo:block yo:block;", 0) == 0);
}

TEST_CASE("a rebuilt schedule that only adds a schedule for whole tiles is the one measured", "[loop_nest]") {
  // Records measured before outputs got a schedule for whole tiles (session 29) rebuild with one:
  // the general schedule after it is what ran.
  const PipelineDag dag = dag_of_f();
  const ScheduleSpec measured = tiled({Directive{Kind::Split, {"yi", "yi", "yii"}, {2}}, Directive{Kind::Unroll, {"yii"}}});
  ScheduleSpec rebuilt = measured;
  std::vector<Directive> &ds = rebuilt.funcs[0].stages[0].directives;
  const std::vector<Directive> whole = {
      Directive{Kind::SpecializeStage, {}, {2, 0, 32, 2, 2, 8}},
      Directive{Kind::GpuTile, {"x", "y", "xo", "yo", "xi", "yi"}, {32, 8}, Halide::TailStrategy::RoundUp},
      Directive{Kind::Split, {"yi", "yi", "yii"}, {2}, Halide::TailStrategy::RoundUp}, Directive{Kind::Unroll, {"yii"}},
      Directive{Kind::EndSpecialization}};
  ds.insert(ds.begin() + 1, whole.begin(), whole.end());

  const LoopNestComparison added = compare_loop_nests(dag, measured, rebuilt);
  CHECK(added.differing.empty());
  CHECK(added.whole_tiles_added);
  CHECK(loop_nest_lines(dag, without_whole_tile_schedules(rebuilt)) == loop_nest_lines(dag, measured));

  // Both with it: nothing added. The general schedule changed as well: it differs.
  const LoopNestComparison same = compare_loop_nests(dag, rebuilt, rebuilt);
  CHECK(same.differing.empty());
  CHECK_FALSE(same.whole_tiles_added);
  ScheduleSpec changed = rebuilt;
  changed.funcs[0].stages[0].directives.back().vars = {"xi"};  // unroll xi instead of yii
  const LoopNestComparison differs = compare_loop_nests(dag, measured, changed);
  CHECK_FALSE(differs.differing.empty());
  CHECK_FALSE(differs.whole_tiles_added);
}
