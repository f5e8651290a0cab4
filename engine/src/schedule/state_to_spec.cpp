#include "schedule/state_to_spec.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "cost/folded_phases.h"
#include "cost/kernel_model.h"
#include "util/int_math.h"

namespace hlsched {

namespace {

using Kind = Directive::Kind;
constexpr Halide::TailStrategy kGuard = Halide::TailStrategy::GuardWithIf;
// Partial results are combined a thread per point of the Func (a histogram's bin, a row of a row
// sum), in blocks of two warps.
constexpr int64_t kPartialResultsMergeThreads = 64;

// Names for the loops a split makes, kept clear of the Func's own loop names.
class LoopNames {
public:
  explicit LoopNames(const StageNode &stage) {
    for (const LoopDim &l : stage.loops) taken_.insert(l.var);
  }
  std::string make(const std::string &base, const std::string &suffix) {
    std::string name = base + suffix;
    while (taken_.count(name)) name += "_";
    taken_.insert(name);
    return name;
  }
  void reserve(const std::string &name) { taken_.insert(name); }

private:
  std::set<std::string> taken_;
};

// The names of a stage's loops after tiling, for compute_at and the loop order.
struct TiledLoops {
  std::string innermost_block;   ///< where Funcs computed per block go
  std::string innermost_thread;  ///< where Funcs computed per thread go
  std::string slab_loop;         ///< where Funcs computed per slab go (StageTiling::slab)
  bool fused_block_loops = false;  ///< several loops fused into one grid dimension
};

// An update's reduction loops, innermost first. With StageTiling::slab, the outermost is first
// split into slabs (`slab_loop`: the loop over slabs, which tile_stage places outside the thread
// loops); then the innermost is split by the tiling's reduction_unroll and the inner part
// unrolled (each thread runs those steps back to back).
std::vector<std::string> reduction_loops(const StageNode &stage, const StageTiling &tiling, LoopNames &fresh,
                                         StageSchedule &out, std::string &slab_loop) {
  std::vector<std::string> loops;
  for (const LoopDim &l : stage.loops)
    if (l.is_rvar) loops.push_back(l.var);
  if (loops.empty() || tiling.atomic || tiling.privatized) return loops;
  if (tiling.slab > 0) {
    const std::string r = loops.back(), staged = fresh.make(r, "s"), within = fresh.make(r, "w");
    out.rvars.insert(out.rvars.end(), {staged, within});
    out.directives.push_back(Directive{Kind::Split, {r, staged, within}, {tiling.slab}, kGuard});
    loops.back() = within;
    slab_loop = staged;
  }
  if (tiling.reduction_unroll <= 1) return loops;
  const std::string r = loops.front(), outer = fresh.make(r, "o"), inner = fresh.make(r, "i");
  out.rvars.insert(out.rvars.end(), {outer, inner});  // splitting a reduction loop makes reduction loops
  out.directives.push_back(Directive{Kind::Split, {r, outer, inner}, {tiling.reduction_unroll}, kGuard});
  out.directives.push_back(Directive{Kind::Unroll, {inner}});
  loops.front() = outer;
  loops.insert(loops.begin(), inner);
  return loops;
}

TiledLoops tile_stage(const StageNode &stage, const StageTiling &tiling, bool unroll_in_thread, StageSchedule &out) {
  TiledLoops names;
  LoopNames fresh(stage);
  const std::vector<std::string> reductions = reduction_loops(stage, tiling, fresh, out, names.slab_loop);
  if (tiling.single_thread) {
    out.directives.push_back(Directive{Kind::GpuSingleThread});
    return names;
  }
  if (tiling.atomic) out.directives.push_back(Directive{Kind::Atomic});
  std::vector<size_t> tiled;  // gpu_tile's loops; row loops (StageTiling::row_loop) come below
  for (size_t i = 0; i < tiling.vars.size(); i++)
    if (tiling.tiled(i) && !tiling.row_loop(i)) tiled.push_back(i);
  if (tiled.empty()) tiled.push_back(0);  // a 1-thread kernel over the first loop

  Directive tile{Kind::GpuTile};
  std::vector<std::string> outer, inner, serial_inner;
  for (size_t i : tiled) {
    tile.vars.push_back(tiling.vars[i]);
    outer.push_back(fresh.make(tiling.vars[i], "o"));
    inner.push_back(fresh.make(tiling.vars[i], "i"));
    tile.factors.push_back(tiling.tile(i));
  }
  tile.vars.insert(tile.vars.end(), outer.begin(), outer.end());
  tile.vars.insert(tile.vars.end(), inner.begin(), inner.end());
  tile.tail = kGuard;
  if (tiling.atomic) {
    // Splitting a reduction loop makes reduction loops: the emitter must declare them as RVars.
    out.rvars.insert(out.rvars.end(), outer.begin(), outer.end());
    out.rvars.insert(out.rvars.end(), inner.begin(), inner.end());
  }
  out.directives.push_back(tile);
  names.innermost_block = outer.front();
  names.innermost_thread = inner.front();

  // Rows per thread: split the thread loop; the inner part runs (unrolled) inside each thread.
  for (size_t k = 0; k < tiled.size(); k++) {
    const size_t i = tiled[k];
    if (tiling.serial[i] <= 1) continue;
    std::string rows = fresh.make(tiling.vars[i], "ii");
    out.directives.push_back(Directive{Kind::Split, {inner[k], inner[k], rows}, {tiling.serial[i]}, kGuard});
    serial_inner.push_back(rows);
  }

  // Loops that run whole inside each thread (a few channels), and loops that become one more
  // block dimension. The former are unrolled where they share computed values
  // (unrolls_in_thread_loops), split by their estimated extent with a guard (another extent at
  // run time stays correct), so that what the channels share is computed once.
  std::vector<std::string> in_thread, in_thread_outer, extra_blocks;
  bool moves_single_iteration = false;
  for (size_t i = 0; i < tiling.vars.size(); i++) {
    if (std::find(tiled.begin(), tiled.end(), i) != tiled.end()) continue;
    if (tiling.row_loop(i)) {
      // Rows per thread along a third loop: its blocks join the grid's fused dimension (gpu_tile
      // takes two loops here, leaving that dimension to the rows' blocks and the other loops).
      // A pure stage's last rows shift inwards (recomputing a few) rather than being guarded:
      // Halide 14 cannot bound a guarded row loop's fused Funcs by a constant ("Allocation
      // pointwise.0 has a dynamic size"), and stating the extent would make the last thread
      // compute, and read its producers, past the region. The loop must then be at least as long
      // as the rows (tiling_options offers rows only along loops of more than 4).
      const std::string o = fresh.make(tiling.vars[i], "o"), rows = fresh.make(tiling.vars[i], "ii");
      const Halide::TailStrategy tail = stage.index == 0 ? Halide::TailStrategy::ShiftInwards : kGuard;
      out.directives.push_back(Directive{Kind::Split, {tiling.vars[i], o, rows}, {tiling.serial[i]}, tail});
      serial_inner.push_back(rows);
      extra_blocks.push_back(o);
    } else if (tiling.in_thread[i] && !unroll_in_thread) {
      in_thread.push_back(tiling.vars[i]);
    } else if (tiling.in_thread[i]) {
      const std::string o = fresh.make(tiling.vars[i], "o"), c = fresh.make(tiling.vars[i], "i");
      out.directives.push_back(Directive{Kind::Split, {tiling.vars[i], o, c}, {tiling.extents[i]}, kGuard});
      in_thread.push_back(c);
      in_thread_outer.push_back(o);
    } else {
      // One more block dimension, as the kernel model has it. A loop estimated at one iteration
      // too: left where Halide puts it (innermost, inside the threads), it would run whole in
      // every thread, and a Func computed per thread would span its extent at run time, which
      // Halide cannot bound (random pipeline 600101, an output estimated one column wide).
      extra_blocks.push_back(tiling.vars[i]);
      moves_single_iteration = moves_single_iteration || tiling.extents[i] <= 1;
    }
  }
  if (!serial_inner.empty() || !in_thread.empty() || !names.slab_loop.empty() || moves_single_iteration) {
    std::vector<std::string> order = reductions;
    order.insert(order.end(), in_thread.begin(), in_thread.end());
    order.insert(order.end(), in_thread_outer.begin(), in_thread_outer.end());
    order.insert(order.end(), serial_inner.begin(), serial_inner.end());
    order.insert(order.end(), inner.begin(), inner.end());
    // The loop over slabs: a serial loop of each block around its threads' loops. Only pure
    // loops move across reduction loops; the reduction loops keep their nesting order.
    if (!names.slab_loop.empty()) order.push_back(names.slab_loop);
    order.insert(order.end(), outer.begin(), outer.end());
    // A reorder only permutes the loops it names: left out, the extra block loops could land
    // between the tile's block loops, and a Func computed "per block" would cover a whole
    // column of blocks (random pipeline 3101: Halide 14 then fails in PartitionLoops).
    order.insert(order.end(), extra_blocks.begin(), extra_blocks.end());
    out.directives.push_back(Directive{Kind::Reorder, order});
  }
  for (const std::string &rows : serial_inner) out.directives.push_back(Directive{Kind::Unroll, {rows}});
  if (unroll_in_thread)
    for (const std::string &c : in_thread) out.directives.push_back(Directive{Kind::Unroll, {c}});

  if (!extra_blocks.empty() && tiled.size() < 3) {
    names.fused_block_loops = extra_blocks.size() > 1;
    std::string fused = extra_blocks.front();
    for (size_t i = 1; i < extra_blocks.size(); i++) {
      std::string name = fresh.make(fused + "_" + extra_blocks[i], "");
      out.directives.push_back(Directive{Kind::Fuse, {fused, extra_blocks[i], name}});
      fused = name;
    }
    out.directives.push_back(Directive{Kind::GpuBlocks, {fused}});
  }
  return names;
}

// A privatized scatter (StageTiling::privatized), as the manual schedule of examples/hist does
// it. Its update is split along the outermost reduction loop into strips and factored out:
//   Func f_intm = f.update(k).split(ry, strip, row, rows).rfactor(strip, block);
//   f.update(k).atomic().split(i, io, ii, bins).reorder(ii, io, strip).gpu_blocks(strip).gpu_threads(ii);
//   f_intm.compute_at(f, strip).split(i, io, ii, bins).gpu_threads(ii);          // shared memory
//   f_intm.update(0).atomic().split(rx, rxo, rxi, width).reorder(rxo, ..., row, rxi, block).gpu_threads(rxi);
// One kernel, one block per strip: the block zeroes its copy, accumulates the strip into it
// with shared-memory atomics, then adds the copy into f with one global atomic per point.
// Returns the intermediate's schedule, which follows f's in the spec.
FuncSchedule privatize_stage(const FuncNode &f, const StageNode &stage, const StageTiling &tiling, StageSchedule &out) {
  LoopNames fresh(stage);
  for (const std::string &a : f.args) fresh.make(a, "");
  // The tiling's reduction loops, then its pure loops (a histogram per channel: each one more
  // block dimension); the bins are f's argument that is not a pure loop.
  const size_t reductions = reduction_loops_in(tiling, stage);
  const std::vector<std::string> pure_loops(tiling.vars.begin() + long(reductions), tiling.vars.end());
  size_t bin_dim = 0;
  while (bin_dim + 1 < f.args.size() &&
         std::find(pure_loops.begin(), pure_loops.end(), f.args[bin_dim]) != pure_loops.end())
    bin_dim++;
  const std::string &inner = tiling.vars.front(), &outer = tiling.vars[reductions - 1], &bin = f.args.at(bin_dim);
  const std::string strip = fresh.make(outer, "o"), row = fresh.make(outer, "i"), block = fresh.make("block", "");
  const std::string bin_o = fresh.make(bin, "o"), bin_i = fresh.make(bin, "i");
  const std::string inner_o = fresh.make(inner, "o"), inner_i = fresh.make(inner, "i");
  const int64_t bins = bin_dim < f.region.size() ? std::max<int64_t>(1, f.region[bin_dim].extent()) : 1;
  const int64_t bin_threads = privatized_copy_threads(bins);
  const std::string intermediate = f.name + "_intm";  // the name Halide 14 gives it

  out.rvars.insert(out.rvars.end(), {strip, row});
  out.directives.push_back(Directive{Kind::Split, {outer, strip, row}, {tiling.serial[reductions - 1]}, kGuard});
  out.directives.push_back(Directive{Kind::RFactor, {strip, block}, {}, Halide::TailStrategy::Auto, intermediate});
  out.directives.push_back(Directive{Kind::Atomic});
  out.directives.push_back(Directive{Kind::Split, {bin, bin_o, bin_i}, {bin_threads}, kGuard});
  // Pure loops inside the strips, the copy computed at the innermost: one channel's bins per
  // block. (With the pure loops outside, Halide 14's loop partitioning fails on the strips'
  // guard: "Unexpected construct inside if statement".)
  std::vector<std::string> order = {bin_i, bin_o};
  order.insert(order.end(), pure_loops.begin(), pure_loops.end());
  order.push_back(strip);
  out.directives.push_back(Directive{Kind::Reorder, order});
  for (const std::string &p : pure_loops) out.directives.push_back(Directive{Kind::GpuBlocks, {p}});
  out.directives.push_back(Directive{Kind::GpuBlocks, {strip}});
  out.directives.push_back(Directive{Kind::GpuThreads, {bin_i}});
  const std::string &copy_at = pure_loops.empty() ? strip : pure_loops.front();

  FuncSchedule copy;
  copy.func = intermediate;
  copy.level = ComputeLevel::Block;
  copy.comment = "the privatized copy of " + f.name + ": one per GPU block, in shared memory";
  StageSchedule pure;
  if (pure_loops.empty()) pure.rvars = {strip};  // the loop of f it is computed at
  pure.directives.push_back(Directive{Kind::ComputeAt, {copy_at}, {}, Halide::TailStrategy::Auto, f.name});
  pure.directives.push_back(Directive{Kind::Split, {bin, bin_o, bin_i}, {bin_threads}, kGuard});
  pure.directives.push_back(Directive{Kind::GpuThreads, {bin_i}});
  StageSchedule update;
  update.stage = 1;
  std::vector<std::string> steps = {inner_o};
  for (size_t i = 1; i + 1 < reductions; i++) steps.push_back(tiling.vars[i]);  // whole in each thread
  steps.insert(steps.end(), {row, inner_i, block});
  update.rvars = std::vector<std::string>(tiling.vars.begin(), tiling.vars.begin() + long(reductions) - 1);
  update.rvars.insert(update.rvars.end(), {row, inner_o, inner_i});
  update.directives.push_back(Directive{Kind::Atomic});
  update.directives.push_back(Directive{Kind::Split, {inner, inner_o, inner_i}, {tiling.threads.front()}, kGuard});
  update.directives.push_back(Directive{Kind::Reorder, steps});
  update.directives.push_back(Directive{Kind::GpuThreads, {inner_i}});
  copy.stages = {pure, update};
  return copy;
}

// A total's or a histogram's partial results (StageTiling::partials): the update factored along
// its innermost reduction loop into a Func of its own, computed at root a GPU thread per partial
// result:
//   Func f_intm = f.update(k).rfactor(rx, part);
//   f.update(k).gpu_single_thread();                         // a total: combines the partials
//   f.update(k).gpu_tile(i, io, ii, 64);                     // a histogram: a thread per bin
//   f_intm.compute_root().gpu_tile(part, parto, parti, 32);  // initializes them (a histogram's
//                                                            // bins serially in each thread)
//   f_intm.update(0).gpu_tile(part, parto, parti, 32).reorder(ry, ..., parti, parto);
// Returns the intermediate's schedule, which follows f's in the spec. A total combined in two
// levels (StageTiling::partials_regroup) is factored once more, its partial results regrouped:
//   Func f_intm_1 = f.update(k).split(rx, rxo, rxi, 32, GuardWithIf).rfactor(rxi, group);
//   f.update(k).gpu_single_thread();                         // combines the 32 groups
//   f_intm_1.compute_root().gpu_tile(group, groupo, groupi, 32);
//   f_intm_1.update(0).gpu_tile(group, groupo, groupi, 32).reorder(rxo, groupi, groupo);
// (after the first rfactor, the stage's reduction loop over the partial results keeps rx's name;
// consecutive threads read consecutive partial results).
// A row or column reduction's partial results per point (StageTiling::partials with a pure loop):
// the factored reduction loop is split by the partial results per point, and its inner part
// factored out, so that consecutive partial results take consecutive iterations:
//   Func f_intm = f.update(k).split(rx, rxo, rxi, 32, GuardWithIf).rfactor(rxi, part);
//   f.update(k).gpu_tile(y, yo, yi, 64);     // combines each point's partial results in a thread
//   f_intm.compute_root().gpu_tile(part, y, parto, yo, parti, yi, 32, 8);
//   f_intm.update(0).gpu_tile(part, y, parto, yo, parti, yi, 32, 8).reorder(rxo, ..., parti, yi, parto, yo);
// (the pure loop first where it leads: gpu_tile(y, part, ...)). Returns the intermediate's schedule.
FuncSchedule partial_results_per_point_stage(const FuncNode &f, const StageNode &stage, const StageTiling &tiling,
                                             size_t factored_at, StageSchedule &out) {
  LoopNames fresh(stage);
  for (const std::string &arg : f.args) fresh.reserve(arg);
  const size_t point_at = 1 - factored_at;
  const std::string &factored = tiling.vars[factored_at], &point = tiling.vars[point_at];
  const std::string steps = fresh.make(factored, "o"), lanes = fresh.make(factored, "i");
  const std::string part = fresh.make("part", "");
  const std::string intermediate = f.name + "_intm";  // the name Halide 14 gives it
  const int64_t partials = tiling.threads[factored_at];
  out.rvars.insert(out.rvars.end(), {steps, lanes});
  out.directives.push_back(Directive{Kind::Split, {factored, steps, lanes}, {partials}, kGuard});
  out.directives.push_back(Directive{Kind::RFactor, {lanes, part}, {}, Halide::TailStrategy::Auto, intermediate});
  const int64_t points = std::max<int64_t>(1, tiling.extents[point_at]);
  out.directives.push_back(Directive{Kind::GpuTile,
                                     {point, fresh.make(point, "o"), fresh.make(point, "i")},
                                     {std::min<int64_t>(kPartialResultsMergeThreads, ceil_pow2(points))},
                                     kGuard});

  // The intermediate's loops: `part` in place of the factored loop, tiled as the tiling says
  // (names of its own: the combining stage's split names are f's, not the intermediate's).
  LoopNames fresh_intermediate(stage);
  fresh_intermediate.reserve(part);
  fresh_intermediate.reserve(steps);
  std::vector<std::string> loops = tiling.vars;
  loops[factored_at] = part;
  std::vector<std::string> outer, inner;
  for (const std::string &v : loops) {
    outer.push_back(fresh_intermediate.make(v, "o"));
    inner.push_back(fresh_intermediate.make(v, "i"));
  }
  const Directive tile{Kind::GpuTile,
                       {loops[0], loops[1], outer[0], outer[1], inner[0], inner[1]},
                       {tiling.threads[0], tiling.threads[1]},
                       kGuard};
  FuncSchedule intermediate_schedule;
  intermediate_schedule.func = intermediate;
  intermediate_schedule.level = ComputeLevel::Root;
  intermediate_schedule.comment = "the partial results of " + f.name + ": " + std::to_string(partials) +
                                  " per point along " + factored + ", a GPU thread each";
  StageSchedule pure;
  pure.directives = {Directive{Kind::ComputeRoot}, tile};
  StageSchedule update;
  update.stage = 1;
  update.rvars.push_back(steps);
  for (const LoopDim &l : stage.loops)
    if (l.is_rvar && l.var != factored) update.rvars.push_back(l.var);
  // Every reduction step inside the thread loops (Halide would leave them outside: a launch each).
  std::vector<std::string> order = update.rvars;
  order.insert(order.end(), {inner[0], inner[1], outer[0], outer[1]});
  update.directives = {tile, Directive{Kind::Reorder, order}};
  intermediate_schedule.stages = {pure, update};
  return intermediate_schedule;
}

// The second level of a total's partial results (StageTiling::partials_regroup): `merged` is the
// combining stage's loop over the first level's partial results.
FuncSchedule regrouped_partial_results(const FuncNode &f, const std::string &merged, int64_t groups, LoopNames &fresh,
                                       StageSchedule &out) {
  const std::string steps = fresh.make(merged, "o"), lanes = fresh.make(merged, "i");
  const std::string group = fresh.make("group", ""), group_o = fresh.make(group, "o"), group_i = fresh.make(group, "i");
  const std::string intermediate = f.name + "_intm$1";  // the name Halide 14 gives a second one
  out.rvars.insert(out.rvars.end(), {steps, lanes});
  out.directives.push_back(Directive{Kind::Split, {merged, steps, lanes}, {groups}, kGuard});
  out.directives.push_back(Directive{Kind::RFactor, {lanes, group}, {}, Halide::TailStrategy::Auto, intermediate});

  FuncSchedule regrouped;
  regrouped.func = intermediate;
  regrouped.level = ComputeLevel::Root;
  regrouped.comment = "the partial results of " + f.name + "'s partial results: " + std::to_string(groups) +
                      ", a GPU thread each stepping through every " + std::to_string(groups) + "th";
  const Directive tile{Kind::GpuTile, {group, group_o, group_i}, {groups}, kGuard};
  StageSchedule pure;
  pure.directives = {Directive{Kind::ComputeRoot}, tile};
  StageSchedule update;
  update.stage = 1;
  update.rvars = {steps};
  update.directives = {tile, Directive{Kind::Reorder, {steps, group_i, group_o}}};
  regrouped.stages = {pure, update};
  return regrouped;
}

std::vector<FuncSchedule> partial_results_stage(const FuncNode &f, const StageNode &stage, const StageTiling &tiling,
                                                StageSchedule &out) {
  if (const int factored = partial_loop_per_point(tiling, stage); factored >= 0)
    return {partial_results_per_point_stage(f, stage, tiling, size_t(factored), out)};
  LoopNames fresh(stage);
  for (const std::string &arg : f.args) fresh.reserve(arg);
  const std::string &inner = tiling.vars.front();
  const std::string part = fresh.make("part", ""), part_o = fresh.make(part, "o"), part_i = fresh.make(part, "i");
  const std::string intermediate = f.name + "_intm";  // the name Halide 14 gives it
  out.directives.push_back(Directive{Kind::RFactor, {inner, part}, {}, Halide::TailStrategy::Auto, intermediate});
  std::vector<FuncSchedule> intermediates(1);
  if (f.args.empty() && tiling.partials_regroup > 0)
    intermediates.push_back(regrouped_partial_results(f, inner, tiling.partials_regroup, fresh, out));
  if (f.args.empty()) {
    out.directives.push_back(Directive{Kind::GpuSingleThread});
  } else {
    // The combining stage's loops are the Func's own (its bins) around the partial results.
    const std::string &bin = f.args.front();
    out.directives.push_back(Directive{Kind::GpuTile,
                                       {bin, fresh.make(bin, "o"), fresh.make(bin, "i")},
                                       {kPartialResultsMergeThreads},
                                       kGuard});
  }

  FuncSchedule partials;
  partials.func = intermediate;
  partials.level = ComputeLevel::Root;
  partials.comment = "the partial results of " + f.name + ": one per iteration of " + inner + ", a GPU thread each";
  const Directive tile{Kind::GpuTile, {part, part_o, part_i}, {tiling.threads.front()}, kGuard};
  StageSchedule pure;
  pure.directives = {Directive{Kind::ComputeRoot}, tile};
  StageSchedule update;
  update.stage = 1;
  update.rvars.assign(tiling.vars.begin() + 1, tiling.vars.end());
  // The other reduction loops go inside the GPU loops, as the kernel model runs them: Halide
  // leaves them outside, and each of their iterations launched the kernel again (1,440 launches
  // per call in random pipeline 400140 on the H200, session sixteen).
  std::vector<std::string> order = update.rvars;
  order.push_back(part_i);
  order.push_back(part_o);
  update.directives = {tile, Directive{Kind::Reorder, order}};
  partials.stages = {pure, update};
  intermediates.front() = std::move(partials);
  return intermediates;
}

// Whether Halide's region of Func `f`, fused per block into the kernel of `root`, is the image of
// the block's tile through affine reads: every read of it, and of each Func between it and the
// root, affine. Then the region is the kernel model's box (smaller in the image's edge tiles), and
// never the whole image as a clamped or data-dependent read can make it.
bool region_follows_tile(const PipelineDag &dag, const ScheduleState &state, int f, int root, int depth = 0) {
  if (depth > 64) return false;
  const std::string &name = dag.funcs[size_t(f)].name;
  for (size_t c = 0; c < dag.funcs.size(); c++) {
    if (int(c) == f) continue;  // its own updates
    for (const StageNode &s : dag.funcs[c].stages)
      for (const ProducerAccess &a : s.accesses) {
        if (a.producer != name) continue;
        if (!a.is_affine || !state.decided[c]) return false;
        if (int(c) == root) continue;
        // A reader in another kernel (none, where fusion is legal) or itself off the tile.
        if (state.decisions[c].level == ComputeLevel::Root) return false;
        if (!region_follows_tile(dag, state, int(c), root, depth + 1)) return false;
      }
  }
  return true;
}

// Whether the tiles of root Func `root` end where Halide keeps its bound of a per-block Func's
// thread loops to the tile: a kernel's tiles end where its realized region does, which for an
// output is its buffer, and otherwise an expression of what its consumers need, which is in turn
// one of what theirs need, down to the outputs. Read at scaled coordinates (x * 4, y / 2)
// anywhere on that way, the expression is one through which Halide's bound of the thread loops
// loses the tile, and it becomes the whole region: random pipeline 640037's mix_1, read at
// (x * 4, y / 2), launched 261x8 threads for a boundary condition computed per 32x8 tile;
// 720008's mix_3, read through an inlined left-right flip (4319 - x) by a 4x downsampling, 4320
// threads per 128-wide tile (session 41); 770018's channel_mix_7_sum, two kernels before a read at
// (x, y * 2), 256x236 threads for a Func per 256x4 tile of its update; 790004's transpose_8, read
// rotated by 90 degrees, 256x32 threads for a Func per 16x32 tile (session 44; each
// CUDA_ERROR_INVALID_VALUE). Flips and transposes count as scaled reads do: translations,
// broadcasts and data-dependent reads keep it.
bool tiles_end_simply(const PipelineDag &dag, int root) {
  if (dag.funcs[size_t(root)].is_output) return true;
  std::vector<int> pending = {root};
  std::vector<bool> seen(dag.funcs.size(), false);
  seen[size_t(root)] = true;
  while (!pending.empty()) {
    const std::string &name = dag.funcs[size_t(pending.back())].name;
    pending.pop_back();
    for (size_t c = 0; c < dag.funcs.size(); c++)
      for (const StageNode &s : dag.funcs[c].stages)
        for (const ProducerAccess &a : s.accesses) {
          if (a.producer != name || !a.is_affine || int(c) == root) continue;
          const std::vector<std::string> &loops = dag.funcs[c].args;
          for (const std::vector<AffineExpr> *bounds : {&a.region_min, &a.region_max})
            for (size_t d = 0; d < bounds->size(); d++)
              for (const auto &[var, coefficient] : (*bounds)[d].coefficients) {
                if (coefficient == 0) continue;
                if (coefficient != 1) return false;  // scaled or flipped
                // Another of the reader's loops along this dimension: a transpose or rotation.
                const bool pure = std::find(loops.begin(), loops.end(), var) != loops.end();
                if (pure && (d >= loops.size() || loops[d] != var)) return false;
              }
          if (!seen[c]) {  // (an output's region is its buffer, whoever else reads it)
            seen[c] = true;
            if (dag.funcs[c].is_output) continue;
            pending.push_back(int(c));
          }
        }
  }
  return true;
}

// Whether Func `f`, with the Funcs inlined into it, reads only at affine coordinates: no boundary
// condition's clamp, no data-dependent index.
bool reads_affinely(const PipelineDag &dag, const ScheduleState &state, int f, int depth = 0) {
  if (depth > 64) return false;
  for (const StageNode &s : dag.funcs[size_t(f)].stages)
    for (const ProducerAccess &a : s.accesses) {
      if (!a.is_affine) return false;
      const int p = dag.index_of(a.producer);
      if (p >= 0 && p != f && state.decided[p] && state.decisions[p].level == ComputeLevel::Inline &&
          !reads_affinely(dag, state, p, depth + 1))
        return false;
    }
  return true;
}

// The directives that spread a per-block Func's pure loops over the block's threads, as
// block_fused_layout says (the kernel model costs the same layout). `follows_tile`: Halide's
// region of it is the model's box (region_follows_tile, reads_affinely).
std::vector<Directive> block_thread_directives(const FuncNode &f, const StageTiling &root_tiling,
                                               const std::vector<double> &box, const GpuProfile &gpu,
                                               std::vector<double> &block_shape, bool follows_tile,
                                               bool unroll_rows) {
  std::vector<double> root_shape, root_threads;
  root_block(root_tiling, root_shape, root_threads);
  const BlockFusedLayout layout = block_fused_layout(box, block_shape, root_threads, gpu.max_threads_per_block,
                                                     rows_round_up(f));
  block_shape = layout.block_shape;
  // Where Halide's region may be larger than the model's box (clamped reads, sizes known only at
  // run time), the thread loops get constant extents (a split): a bare gpu_threads over a Func
  // reading clamped coordinates launched 1536x2560 threads per block on the H200
  // (CUDA_ERROR_INVALID_VALUE); a larger region runs in extra serial passes instead. Where no read
  // on its way in or out is clamped and one pass covers the box, the loops go to the threads as
  // they are (Halide bounds them by the tile's image): under a consumer with GuardWithIf tails
  // the split's bounds are computed per block and per thread, and camera_pipe's three Funcs per
  // block ran 1.43x faster on the H100 unsplit (0.090 -> 0.063 ms, session 29). Only where the
  // root's tiles end simply (tiles_end_simply).
  // A tile larger than the image (by the estimates) gives a box clipped to the image, while the
  // whole-tiles specialization's loops, and Halide's at other sizes, cover the whole tile: random
  // pipeline 1232's 9-tap blur per 128x8 tile of an 80-wide image launched 136x8 threads there.
  bool tile_within_image = true;
  for (size_t k = 0; k < root_tiling.vars.size(); k++)
    if (!root_tiling.in_thread[k] && root_tiling.tile(k) > root_tiling.extents[k]) tile_within_image = false;
  const bool unsplit = follows_tile && tile_within_image && layout.passes <= 1 && layout.folds <= 1;
  LoopNames fresh(f.stages[0]);
  for (const StageNode &s : f.stages)
    for (const LoopDim &l : s.loops) fresh.reserve(l.var);
  std::vector<Directive> out;
  std::vector<std::string> threads, rows, outer;
  for (size_t k = 0; k < layout.dims.size(); k++) {
    const bool folded = k == 1 && layout.folds > 1;
    if (layout.threads[k] <= 1 && layout.rows[k] <= 1 && !folded) continue;  // this loop stays serial
    const std::string &v = f.args[layout.dims[k]];
    // Rows split RoundUp compute a few points past the region, where the Func can be computed
    // further (BlockFusedLayout::round_up), with no guard in each unrolled row.
    const Halide::TailStrategy tail = layout.rows[k] > 1 && layout.round_up ? Halide::TailStrategy::RoundUp : kGuard;
    // The loop over the block's points of v: v itself unsplit, else the inner part of a split to
    // the block's extent (its outer part passes over the box).
    std::string in_block = v;
    if (!unsplit) {
      const std::string o = fresh.make(v, "o");
      in_block = fresh.make(v, "i");
      const int64_t folds = k == 1 ? layout.folds : 1;
      out.push_back(Directive{Kind::Split, {v, o, in_block}, {layout.threads[k] * layout.rows[k] * folds}, tail});
      outer.push_back(o);
    }
    if (layout.rows[k] > 1) {
      const std::string t = fresh.make(v, "t"), r = fresh.make(v, "r");
      out.push_back(Directive{Kind::Split, {in_block, t, r}, {layout.rows[k]}, tail});
      threads.push_back(t);
      rows.push_back(r);
    } else {
      threads.push_back(in_block);
    }
  }
  if (threads.empty()) return {};
  // Folded rows (BlockFusedLayout::folds): the second loop's block part split once more, its
  // inner part fused beside the first loop's threads on thread dimension 0 (the first loop stays
  // innermost there, so each warp reads and writes along rows as before).
  std::string folded_rows, folded_threads;
  if (layout.folds > 1 && threads.size() == 2) {
    if (layout.threads[1] > 1) {
      const std::string &v = f.args[layout.dims[1]];
      const std::string t = fresh.make(v, "t");
      folded_rows = fresh.make(v, "f");
      out.push_back(Directive{Kind::Split, {threads[1], t, folded_rows}, {layout.folds}, kGuard});
      threads[1] = t;
    } else {
      folded_rows = threads[1];  // every row of the pass folded: no thread loop of its own
      threads.pop_back();
    }
    folded_threads = fresh.make(threads[0], "_" + folded_rows);
  }
  // A third dimension of a few points, whole in each thread (BlockFusedLayout::inner_dim): split
  // by its extent with a guard, so that the unrolled loop has a constant extent.
  // Loops read at constant coordinates that pick the branch a point computes run unrolled
  // innermost (block_fused_folded_phases); then the third dimension's points and each thread's
  // rows (unrolled), its thread loops, the passes.
  std::vector<std::string> phases;
  const unsigned folded = block_fused_folded_phases(f, box);
  for (size_t k = 0; k < f.stages[0].phase_loops.size(); k++)
    if (folded & (1u << k)) phases.push_back(f.stages[0].phase_loops[k].var);
  std::string inner;  // (a phase loop is unrolled whole already)
  if (layout.inner_dim >= 0 &&
      std::find(phases.begin(), phases.end(), f.args[size_t(layout.inner_dim)]) == phases.end()) {
    const std::string &v = f.args[size_t(layout.inner_dim)];
    const std::string o = fresh.make(v, "o");
    inner = fresh.make(v, "i");
    out.push_back(Directive{Kind::Split, {v, o, inner}, {layout.inner_points}, kGuard});
  }
  std::vector<std::string> order = phases;
  if (!inner.empty()) order.push_back(inner);
  order.insert(order.end(), rows.begin(), rows.end());
  order.insert(order.end(), threads.begin(), threads.end());
  if (!folded_rows.empty()) order.insert(std::find(order.begin(), order.end(), threads[0]) + 1, folded_rows);
  order.insert(order.end(), outer.begin(), outer.end());
  // Unsplit loops already in that order need no reorder (a careful human would not write one).
  const bool splits = std::any_of(out.begin(), out.end(), [](const Directive &d) { return d.kind == Kind::Split; });
  size_t matched = 0;
  for (const std::string &a : f.args)
    if (matched < order.size() && order[matched] == a) matched++;
  if (splits || matched < order.size()) out.push_back(Directive{Kind::Reorder, order});
  if (!folded_rows.empty()) {
    out.push_back(Directive{Kind::Fuse, {threads[0], folded_rows, folded_threads}});
    threads[0] = folded_threads;
  }
  out.push_back(Directive{Kind::GpuThreads, threads});
  if (!inner.empty()) out.push_back(Directive{Kind::Unroll, {inner}});
  if (unroll_rows)  // (unrolls_block_fused_rows)
    for (const std::string &r : rows) out.push_back(Directive{Kind::Unroll, {r}});
  for (const std::string &p : phases) out.push_back(Directive{Kind::Unroll, {p}});
  return out;
}

// A Func computed per block: its loops spread over the block's threads, the same way in every
// stage (an update's reduction loops run inside each thread, over that thread's points).
//
// A kernel's thread block is, per dimension, the largest extent any of its stages gives that
// GPU thread loop; `block_shape` tracks it so the product stays within the hardware limit.
std::vector<StageSchedule> schedule_block_fused(const FuncNode &f, const StageTiling &root_tiling,
                                                const std::vector<double> &box, const GpuProfile &gpu,
                                                std::vector<double> &block_shape, bool follows_tile,
                                                bool unroll_rows, StageSchedule pure) {
  std::vector<Directive> threads =
      block_thread_directives(f, root_tiling, box, gpu, block_shape, follows_tile, unroll_rows);
  pure.directives.insert(pure.directives.end(), threads.begin(), threads.end());
  std::vector<StageSchedule> stages = {pure};
  for (size_t s = 1; s < f.stages.size(); s++) {
    StageSchedule update;
    update.stage = int(s);
    for (const LoopDim &l : f.stages[s].loops)
      if (l.is_rvar) update.rvars.push_back(l.var);
    update.directives = threads;
    stages.push_back(update);
  }
  return stages;
}

// A Func computed per thread: in registers, its points unrolled (constant indices), and each
// update's points inside its reduction loops, so every reduction step updates all of the
// thread's accumulators from the values it loads once (register blocking); a few taps of the
// innermost reduction loop unrolled around them. Only for Funcs read
// at translations of the kernel's points (FusedFunc::in_registers): their per-thread region has
// a constant size, which Halide needs to unroll them and to keep them in registers.
std::vector<StageSchedule> schedule_thread_fused(const FuncNode &f, const FusedFunc &fused, bool fused_block_loops,
                                                 StageSchedule pure) {
  const std::vector<double> &thread_box = fused.thread_box;
  std::vector<std::string> unrolled;
  for (size_t d = 0; d < f.args.size(); d++)
    if (d < thread_box.size() && thread_box[d] > 1) unrolled.push_back(f.args[d]);
  Directive registers{Kind::StoreIn};
  registers.memory = Halide::MemoryType::Register;
  pure.directives.push_back(registers);
  // The per-thread extents Halide cannot see, stated once per dimension:
  // - grid loops fused into one dimension hide that the dimensions following them have one
  //   extent in every thread (which registers need);
  // - under an in-thread loop split by its whole (constant) extent, Halide still bounds the
  //   per-thread region by the split's guard.
  std::set<int> bounded(fused.pinned_dims.begin(), fused.pinned_dims.end());
  if (fused_block_loops) bounded.insert(fused.block_dims.begin(), fused.block_dims.end());
  for (int d : bounded)
    pure.directives.push_back(Directive{Kind::BoundExtent, {f.args[size_t(d)]}, {int64_t(std::ceil(thread_box[size_t(d)]))}});
  for (const std::string &v : unrolled) pure.directives.push_back(Directive{Kind::Unroll, {v}});
  std::vector<StageSchedule> stages = {pure};
  for (size_t s = 1; s < f.stages.size(); s++) {
    StageSchedule update;
    update.stage = int(s);
    std::vector<std::string> reductions;
    for (const LoopDim &l : f.stages[s].loops)
      if (l.is_rvar) reductions.push_back(l.var);
    update.rvars = reductions;
    // A few taps (unrolled_tap_loops) unrolled around the tile: each loop split by its estimated
    // count with a guard, so another count at run time stays correct (declared RVars: splitting
    // a reduction loop makes reduction loops).
    const std::vector<int64_t> taps = unrolled_tap_loops(f.stages[s]);
    std::vector<std::string> tap_loops;
    LoopNames fresh(f.stages[s]);
    for (size_t k = 0; k < taps.size(); k++) {
      const std::string r = reductions[k], outer = fresh.make(r, "o"), inner = fresh.make(r, "i");
      update.rvars.insert(update.rvars.end(), {outer, inner});
      update.directives.push_back(Directive{Kind::Split, {r, outer, inner}, {taps[k]}, kGuard});
      reductions[k] = outer;
      tap_loops.push_back(inner);
    }
    std::vector<std::string> order = f.args;
    order.insert(order.end(), tap_loops.begin(), tap_loops.end());
    order.insert(order.end(), reductions.begin(), reductions.end());
    if (!unrolled.empty()) update.directives.push_back(Directive{Kind::Reorder, order});
    for (const std::string &v : unrolled) update.directives.push_back(Directive{Kind::Unroll, {v}});
    for (const std::string &v : tap_loops) update.directives.push_back(Directive{Kind::Unroll, {v}});
    stages.push_back(update);
  }
  return stages;
}

// The dimension of `func`'s output that pure Var `var` indexes (func.args.size() for another loop).
int64_t dim_of(const FuncNode &func, const std::string &var) {
  return int64_t(std::find(func.args.begin(), func.args.end(), var) - func.args.begin());
}

// An output's pure stage compiled once more for the buffers its schedule assumes, as its last
// directive (other buffers run the generic code):
// - the origin a multiple of the phases' periods its unrolled points fold (cost/folded_phases.h);
// - in-thread loops unrolled by their estimated extent (a few channels) at exactly that extent.
//   Split with a guard, each unrolled channel is an `if` of its own, and what the channels share
//   (a per-pixel ratio, read from shared memory) is loaded and computed in each branch again;
//   the specialization's known extent removes the guards (the manual schedules' `bound(c, 0, 3)`,
//   without tying the pipeline to 3 channels).
Directive output_specialization(const FuncNode &func, const StageTiling &tiling, const FoldedPhases &phases,
                                bool unroll_in_thread) {
  Directive specialize{Kind::Specialize};
  specialize.at_func = func.name;
  for (const auto &[loop, modulus] : phases.alignment)
    specialize.factors.insert(specialize.factors.end(), {int64_t(SpecializeTerm::Aligned), dim_of(func, loop), modulus});
  if (unroll_in_thread)
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (tiling.in_thread[i] && dim_of(func, tiling.vars[i]) < int64_t(func.args.size()))
        specialize.factors.insert(specialize.factors.end(),
                                  {int64_t(SpecializeTerm::Extent), dim_of(func, tiling.vars[i]), tiling.extents[i]});
  return specialize;
}

// An output's kernel with GuardWithIf tails, scheduled a second time for outputs of whole tiles:
// a specialization (`extent() % tile == 0` on each tiled dimension, and the conditions
// `specialize` already holds) whose splits are RoundUp, with no guard around each thread's
// unrolled points; other sizes take the guarded general schedule. On the H100 (session 29):
// harris 1.24x, unsharp 1.10x, camera_pipe 1.03x; with one more loop as a grid dimension
// (`gpu_blocks(c)`, session 30) max_filter 1.15x, interpolate 1.04x. `ds`: the stage's
// directives, `specialize`: output_specialization()'s (empty factors: none). Unchanged where the
// chain holds anything but the stage's own loop calls, or no GuardWithIf tile; and where rows
// shift inwards along a third loop or grid loops are fused: there the specialized kernel ran
// slower (conv_layer 0.90x, depthwise_separable_conv 0.98x on the H100, session 30).
std::vector<Directive> specialize_whole_tiles(const FuncNode &func, const std::vector<Directive> &ds,
                                              const Directive &specialize) {
  const auto tile = std::find_if(ds.begin(), ds.end(), [](const Directive &d) { return d.kind == Kind::GpuTile; });
  if (func.stages.size() != 1 || tile == ds.end() || tile->tail != kGuard || ds.front().kind != Kind::ComputeRoot)
    return ds;
  for (size_t i = 1; i < ds.size(); i++)
    switch (ds[i].kind) {
      case Kind::GpuTile: case Kind::Reorder: case Kind::Unroll: case Kind::GpuBlocks: break;
      case Kind::Split:
        if (ds[i].tail == Halide::TailStrategy::ShiftInwards) return ds;
        break;
      default: return ds;  // Fuse among them
    }
  Directive whole{Kind::SpecializeStage};
  whole.at_func = func.name;
  whole.factors = specialize.factors;
  // The extent of each loop where it is known: the tiles' inner loops, the dimensions whose
  // extent the existing specialization fixes, and the parts of their even splits.
  std::map<std::string, int64_t> extent;
  for (size_t i = 0; i + 2 < specialize.factors.size(); i += 3)
    if (SpecializeTerm(specialize.factors[i]) == SpecializeTerm::Extent)
      extent[func.args.at(size_t(specialize.factors[i + 1]))] = specialize.factors[i + 2];
  const size_t n = tile->factors.size();
  for (size_t i = 0; i < n; i++) {
    const int64_t dim = dim_of(func, tile->vars[i]);
    if (dim >= int64_t(func.args.size())) return ds;
    whole.factors.insert(whole.factors.end(), {int64_t(SpecializeTerm::ExtentMultiple), dim, tile->factors[i]});
    extent[tile->vars[2 * n + i]] = tile->factors[i];
  }
  std::vector<Directive> out = {ds.front(), whole};
  for (size_t i = 1; i < ds.size(); i++) {
    Directive d = ds[i];
    if (d.kind == Kind::GpuTile) d.tail = Halide::TailStrategy::RoundUp;
    if (d.kind == Kind::Split) {
      const auto known = extent.find(d.vars[0]);
      if (known != extent.end() && known->second % d.factors[0] == 0) {
        d.tail = Halide::TailStrategy::RoundUp;
        extent[d.vars[1]] = known->second / d.factors[0];
        extent[d.vars[2]] = d.factors[0];
      }
    }
    out.push_back(d);
  }
  out.push_back(Directive{Kind::EndSpecialization});
  out.insert(out.end(), ds.begin() + 1, ds.end());
  return out;
}

}  // namespace

ScheduleSpec state_to_spec(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu) {
  ScheduleSpec spec;
  std::map<int, TiledLoops> loops_of_root;
  std::map<int, KernelModel> kernel_of_root;
  std::map<int, std::vector<double>> block_shape_of_root;  ///< GPU thread extents per dimension
  // Consumers first: a Func computed inside a kernel needs the kernel's loop names.
  for (int f : ScheduleState::decision_order(dag)) {
    const FuncNode &func = dag.funcs[f];
    const FuncDecision &d = state.decisions[f];
    FuncSchedule fs;
    fs.func = func.name;
    fs.level = d.level;
    std::vector<FuncSchedule> intermediates;  ///< Funcs its rfactors make, scheduled after it
    if (d.level == ComputeLevel::Root) {
      for (size_t s = 0; s < d.tilings.size(); s++) {
        StageSchedule stage;
        stage.stage = int(s);
        for (const LoopDim &l : func.stages[s].loops)
          if (l.is_rvar) stage.rvars.push_back(l.var);
        // Residues the threads' unrolled points fold (x % 2, cost/folded_phases.h): the compiler
        // must know the loops' start modulo the period.
        const FoldedPhases phases = s == 0 ? folded_phases(dag, state, f, 0) : FoldedPhases{};
        if (s == 0) {
          stage.directives.push_back(Directive{Kind::ComputeRoot});
          if (!func.is_output)
            for (const auto &[loop, modulus] : phases.alignment)
              stage.directives.push_back(Directive{Kind::AlignBounds, {loop}, {modulus}});
        }
        if (d.tilings[s].partials) {
          for (FuncSchedule &made : partial_results_stage(func, func.stages[s], d.tilings[s], stage))
            intermediates.push_back(std::move(made));
          fs.stages.push_back(stage);
          continue;
        }
        if (d.tilings[s].privatized) {
          intermediates.push_back(privatize_stage(func, func.stages[s], d.tilings[s], stage));
          fs.stages.push_back(stage);
          continue;
        }
        const bool unroll_in_thread = unrolls_in_thread_loops(dag, state, f, int(s));
        TiledLoops names = tile_stage(func.stages[s], d.tilings[s], unroll_in_thread, stage);
        // Computed with a sibling: its loops down to the block loops are the sibling's (the same
        // tiling of the same loop names), which Halide fuses into one kernel.
        if (d.computed_with >= 0 && loops_of_root.count(d.computed_with)) {
          const std::string &sibling_block = loops_of_root.at(d.computed_with).innermost_block;
          if (sibling_block == names.innermost_block)
            stage.directives.push_back(Directive{Kind::ComputeWith, {sibling_block}, {}, Halide::TailStrategy::Auto,
                                                 dag.funcs[d.computed_with].name});
        }
        // (A Tuple-valued output has no single output_buffer() to specialize on.)
        if (func.is_output && s == 0 && func.types.size() == 1) {
          const Directive specialize = output_specialization(func, d.tilings[s], phases, unroll_in_thread);
          stage.directives = specialize_whole_tiles(func, stage.directives, specialize);
          if (!specialize.factors.empty()) stage.directives.push_back(specialize);
        }
        // Funcs fused into this kernel go into its last stage's loops (compute_at(f, loop) means
        // f's last stage).
        if (s + 1 == d.tilings.size()) {
          loops_of_root[f] = names;
          std::vector<double> shape, threads;
          root_block(d.tilings[s], shape, threads);
          block_shape_of_root[f] = shape;
        }
        fs.stages.push_back(stage);
      }
      if (func.has_extern_definition) fs.stages.push_back(StageSchedule{0, {Directive{Kind::ComputeRoot}}, {}});
    } else if (d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread) {
      const TiledLoops &at = loops_of_root.at(d.kernel_root);
      StageSchedule stage;
      const bool per_block = d.level == ComputeLevel::Block;
      // ScheduleState::decide turns a copy per slab into a per-block copy when its kernel loses the
      // slab loop; a slab loop still missing here falls back to per block, as the kernel model does.
      const bool at_slab = d.per_slab && !at.slab_loop.empty();
      const std::string &loop = at_slab ? at.slab_loop : per_block ? at.innermost_block : at.innermost_thread;
      if (at_slab) stage.rvars.push_back(loop);  // the kernel's loop it is computed at is a reduction loop
      stage.directives.push_back(
          Directive{Kind::ComputeAt, {loop}, {}, Halide::TailStrategy::Auto, dag.funcs[d.kernel_root].name});
      // What the kernel model's propagation says of this Func in its kernel: the region it covers
      // per block or thread, and whether it lives in registers.
      const int kernel_stage = int(state.decisions[d.kernel_root].tilings.size()) - 1;
      if (!kernel_of_root.count(d.kernel_root))
        kernel_of_root.emplace(d.kernel_root, build_kernel_model(dag, state, d.kernel_root, kernel_stage, gpu));
      const FusedFunc *fused = nullptr;
      for (const FusedFunc &candidate : kernel_of_root.at(d.kernel_root).fused)
        if (candidate.func == f) fused = &candidate;
      // Rows read down their columns padded against bank conflicts (FusedFunc::storage_row).
      if (per_block && fused && fused->storage_row > 0)
        stage.directives.push_back(Directive{Kind::AlignStorage, {func.args.at(0)}, {fused->storage_row}});
      if (per_block) {
        fs.stages = schedule_block_fused(func, state.decisions[d.kernel_root].tilings.back(),
                                         fused ? fused->box : std::vector<double>{}, gpu,
                                         block_shape_of_root[d.kernel_root],
                                         tiles_end_simply(dag, d.kernel_root) &&
                                             region_follows_tile(dag, state, f, d.kernel_root) &&
                                             reads_affinely(dag, state, f),
                                         unrolls_block_fused_rows(dag, state, f), stage);
      } else {
        if (fused && fused->in_registers)
          fs.stages = schedule_thread_fused(func, *fused, at.fused_block_loops, stage);
        else fs.stages.push_back(stage);
      }
    }
    spec.funcs.push_back(std::move(fs));
    for (FuncSchedule &made : intermediates) spec.funcs.push_back(std::move(made));
  }
  return spec;
}

}  // namespace hlsched
