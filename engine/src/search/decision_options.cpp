#include "search/decision_options.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "cost/gpu_cost_model.h"
#include "cost/kernel_model.h"
#include "cost/learned_model.h"
#include "schedule/gpu_limits.h"
#include "search/atomic_lowering.h"
#include "util/int_math.h"

namespace hlsched {

namespace {

StageTiling empty_tiling(const StageNode &stage, int stage_index) {
  StageTiling t;
  for (const LoopDim &loop : stage.loops) {
    if (loop.is_rvar || (stage_index > 0 && !loop.is_pure)) continue;
    t.vars.push_back(loop.var);
    t.extents.push_back(std::max<int64_t>(1, loop.estimate.extent()));
  }
  t.threads.assign(t.vars.size(), 1);
  t.serial.assign(t.vars.size(), 1);
  t.in_thread.assign(t.vars.size(), false);
  t.single_thread = t.vars.empty();
  return t;
}

// The loops that get GPU threads: the innermost with extent > 1, and the next one.
std::vector<size_t> thread_loops(const StageTiling &t) {
  std::vector<size_t> loops;
  for (size_t i = 0; i < t.vars.size() && loops.size() < 2; i++)
    if (t.extents[i] > 1) loops.push_back(i);
  if (loops.empty() && !t.vars.empty()) loops.push_back(0);
  return loops;
}

bool inline_is_legal(const FuncNode &f) {
  return !f.is_output && !f.has_extern_definition && f.stages.size() == 1 && !f.consumers.empty();
}

// What inlining `f` recomputes per point of its consumers: its calls there, and the
// operations of each.
struct InlinedWork {
  int64_t calls = 0;
  bool pointwise = true;
  double ops = 0;
};
InlinedWork inlined_work(const PipelineDag &dag, const FuncNode &f) {
  InlinedWork w;
  for (const std::string &consumer : f.consumers)
    for (const StageNode &s : dag.find(consumer)->stages)
      for (const ProducerAccess &a : s.accesses)
        if (a.producer == f.name) {
          w.calls += a.calls_per_point;
          w.pointwise = w.pointwise && a.is_pointwise && a.calls_per_point == 1;
        }
  // A Func whose phase picks its branch costs its average branch where the kernel folds it
  // (cost/folded_phases.h: a demosaic inlined into a consumer tiled over whole Bayer quads).
  w.ops = std::min(double(f.stages[0].arithmetic_ops().total()), f.stages[0].arithmetic_with_phases_known());
  return w;
}

// Inlining a Func read at many points per consumer point recomputes it at each: only worth
// considering when it is cheap or read pointwise.
bool inline_is_sensible(const FuncNode &f, const InlinedWork &w) {
  return w.pointwise || f.is_boundary_condition || w.ops <= 6 || double(w.calls) * w.ops <= 40;
}
bool inline_is_sensible(const PipelineDag &dag, const FuncNode &f) {
  return inline_is_sensible(f, inlined_work(dag, f));
}

bool fusion_is_legal(const FuncNode &f, ComputeLevel level) {
  if (f.is_output || f.has_extern_definition || f.stages[0].has_rvars()) return false;
  if (f.stages.size() == 1) return true;
  // A reduction computed per thread keeps its accumulators in registers through the whole
  // reduction (register blocking): the thread's points unrolled inside the reduction loops.
  // Computed per block, every stage spreads its pure loops over the block's threads (each
  // thread runs the reduction loops of its own points, in shared memory), which needs each
  // update to write the points of its pure loops only, in place: then the block's region is
  // the same for every stage and no two threads touch one point.
  return updates_accumulate_in_place(f) && !f.args.empty();
}

// Storage per block or thread is sized from the consumers' index expressions; when those depend
// on data (a lookup, a slice at a computed depth) the size varies per block, which Halide's GPU
// lowering does not handle safely. Such Funcs stay at root.
bool accessed_affinely(const PipelineDag &dag, const FuncNode &f) {
  for (const std::string &consumer : f.consumers)
    for (const StageNode &s : dag.find(consumer)->stages)
      for (const ProducerAccess &a : s.accesses)
        if (a.producer == f.name && !a.is_affine) return false;
  return true;
}

// Which stages of `root` read `func`, directly or through Funcs inlined or fused into `root`'s
// kernels (bit k: stage k).
uint64_t root_stages_reading(const PipelineDag &dag, const ScheduleState &state, int func, int root, int depth = 0) {
  if (depth > 64) return ~uint64_t(0);
  uint64_t stages = 0;
  const std::string &name = dag.funcs[func].name;
  for (const std::string &consumer : dag.funcs[func].consumers) {
    const int c = dag.index_of(consumer);
    if (c == root) {
      for (const StageNode &s : dag.funcs[root].stages)
        for (const ProducerAccess &a : s.accesses)
          if (a.producer == name) stages |= s.index < 64 ? uint64_t(1) << s.index : ~uint64_t(0);
      continue;
    }
    if (c < 0 || !state.decided[c]) return ~uint64_t(0);
    const FuncDecision &d = state.decisions[c];
    if (d.level == ComputeLevel::Root) continue;  // another kernel (consuming_kernel rules it out)
    stages |= root_stages_reading(dag, state, c, root, depth + 1);
  }
  return stages;
}

// A kernel takes fused producers into its GPU blocks: the kernel of the root Func's last stage
// (Halide's compute_at(f, loop) means f's last stage), when only that stage reads them and its
// loops are tiled over blocks and threads (not one thread, not atomics over reduction loops).
bool kernel_accepts_fusion(const PipelineDag &dag, const ScheduleState &state, int root, int func) {
  const FuncDecision &d = state.decisions[root];
  if (d.level != ComputeLevel::Root || d.tilings.size() != dag.funcs[root].stages.size()) return false;
  const StageTiling &last = d.tilings.back();
  if (last.single_thread || last.atomic || last.privatized || last.partials) return false;
  // A loop run whole inside each thread puts the block's fused Funcs inside a condition that
  // Halide 14's loop partitioning rejects ("Unexpected construct inside if statement": random
  // pipeline 3009, searched).
  if (last.has_in_thread_loop()) return false;
  if (d.tilings.size() == 1) return true;
  return root_stages_reading(dag, state, func, root) == uint64_t(1) << (d.tilings.size() - 1);
}

// Whether Root Func `root` runs its pinned loop (pinned_reduction_loop) whole in each thread, and
// no other, and `func` is the reduction it copies along it.
bool holds_pinned_reduction(const PipelineDag &dag, const ScheduleState &state, int root, int func) {
  const FuncDecision &d = state.decisions[size_t(root)];
  if (d.level != ComputeLevel::Root || d.tilings.size() != 1 || pointwise_reduction(dag, root) != func) return false;
  const int loop = pinned_reduction_loop(dag, root);
  const StageTiling &t = d.tilings.front();
  if (loop < 0 || t.single_thread || t.atomic || t.privatized || t.partials) return false;
  for (size_t i = 0; i < t.in_thread.size(); i++)
    if (t.in_thread[i] != (int(i) == loop)) return false;
  return true;
}

// Whether a Func fused per slab reads `func` (directly or through inlined Funcs).
bool feeds_per_slab(const PipelineDag &dag, const ScheduleState &state, int func, int depth = 0) {
  if (depth > 64) return true;
  for (const std::string &name : dag.funcs[func].consumers) {
    const int c = dag.index_of(name);
    if (c < 0 || !state.decided[c]) continue;
    const FuncDecision &d = state.decisions[c];
    if (d.per_slab) return true;
    if (d.level == ComputeLevel::Inline && feeds_per_slab(dag, state, c, depth + 1)) return true;
  }
  return false;
}

double region_points(const FuncNode &f) {
  double n = 1;
  for (const Span &s : f.region) n *= double(std::max<int64_t>(1, s.extent()));
  return n;
}

// The loops state_to_spec gives the grid's x and y (innermost first): the tiled ones, or the
// first loop where none is.
std::vector<size_t> grid_tiled_loops(const StageTiling &t) {
  std::vector<size_t> tiled;
  for (size_t i = 0; i < t.vars.size(); i++)
    if (t.tiled(i) && !t.row_loop(i)) tiled.push_back(i);
  if (tiled.empty() && !t.vars.empty()) tiled.push_back(0);
  return tiled;
}

int64_t blocks_along(const StageTiling &t, size_t i) {
  const int64_t tile = t.tiled(i) ? t.tile(i) : 1;
  return (std::max<int64_t>(1, t.extents[i]) + tile - 1) / tile;
}

// The other parallel loops of more than one block, which state_to_spec fuses into the grid's
// next dimension (with row loops' blocks).
std::vector<size_t> grid_fused_loops(const StageTiling &t) {
  const std::vector<size_t> tiled = grid_tiled_loops(t);
  std::vector<size_t> fused;
  for (size_t i = 0; i < t.vars.size(); i++)
    if (std::find(tiled.begin(), tiled.end(), i) == tiled.end() && !t.in_thread[i] && blocks_along(t, i) > 1)
      fused.push_back(i);
  return fused;
}

// Whether the grid state_to_spec makes of this tiling launches: the tiled loops are the grid's x
// and y, the other parallel loops fused into its next dimension.
bool grid_fits(const StageTiling &t) {
  std::vector<int64_t> grid;
  for (size_t i : grid_tiled_loops(t)) grid.push_back(blocks_along(t, i));
  int64_t fused = 1;
  for (size_t i : grid_fused_loops(t)) fused *= blocks_along(t, i);
  if (fused > 1) grid.push_back(fused);
  for (size_t d = 0; d < grid.size(); d++)
    if (grid[d] > (d == 0 ? kMaxGridBlocksX : kMaxGridBlocksYZ)) return false;
  return true;
}

// The loop after the two thread loops that rows per thread may tile (StageTiling::row_loop): the
// next one of extent > 1, when it is longer than a few iterations (a short one is channels, run
// whole in the thread instead), or -1.
int third_loop(const StageTiling &t, const std::vector<size_t> &thread_loops) {
  if (thread_loops.size() < 2) return -1;
  for (size_t i = thread_loops[1] + 1; i < t.vars.size(); i++)
    if (t.extents[i] > 1) return t.extents[i] > 4 ? int(i) : -1;
  return -1;
}

}  // namespace

// Whether a stage (or, one level down, a Func it reads) reads some producer at a point that does
// not follow loop `var`: a value every iteration of `var` shares (unsharp's per-pixel ratio for
// each channel), computed once per thread when the loop runs inside it.
bool shares_values_across(const PipelineDag &dag, const StageNode &stage, const std::string &var, int depth = 0) {
  for (const ProducerAccess &a : stage.accesses) {
    // Calls each affine (interpolate's output reads its input at (x, y, c) and at (x, y, 3)):
    // one that ignores `var` reads a value its iterations share.
    for (const std::vector<AffineExpr> &call : a.call_args)
      if (std::none_of(call.begin(), call.end(), [&](const AffineExpr &e) { return e.coefficients.count(var) > 0; }))
        return true;
    bool follows = false;
    for (size_t d = 0; d < a.region_min.size(); d++) {
      const bool here = a.region_min[d].coefficients.count(var) || a.region_max[d].coefficients.count(var) ||
                        !a.region_min[d].is_affine || !a.region_max[d].is_affine;
      follows = follows || here;
      // One level down, through the producer's variable at this dimension.
      const FuncNode *p = dag.find(a.producer);
      if (here && depth == 0 && p && d < p->args.size() && p->stages.size() == 1 && a.region_min[d].is_affine &&
          shares_values_across(dag, p->stages[0], p->args[d], depth + 1))
        return true;
    }
    if (!follows) return true;
  }
  return false;
}

std::vector<StageTiling> tiling_options(const StageNode &stage, int stage_index, const GpuProfile &gpu, bool coarse,
                                        bool small_loops_in_thread, bool register_tiles, int whole_loop) {
  StageTiling base = empty_tiling(stage, stage_index);
  if (base.single_thread) return {base};
  const std::vector<size_t> loops = thread_loops(base);
  const size_t i0 = loops[0];
  const int64_t cap0 = ceil_pow2(base.extents[i0]);
  const int64_t cap1 = loops.size() > 1 ? ceil_pow2(base.extents[loops[1]]) : 1;

  std::vector<StageTiling> options;
  auto add = [&](int64_t t0, int64_t t1, int64_t s1, int small_loop, bool is_default = false, int64_t s0 = 1,
                 int row_loop = -1, int64_t rows = 1) {
    StageTiling t = base;
    t.threads[i0] = t0;
    t.serial[i0] = s0;
    if (loops.size() > 1) {
      t.threads[loops[1]] = t1;
      t.serial[loops[1]] = s1;
    }
    if (row_loop >= 0) t.serial[size_t(row_loop)] = rows;
    if (small_loop >= 0) t.in_thread[small_loop] = true;
    const int64_t threads = t.threads_per_block();
    if (threads > gpu.max_threads_per_block) return;
    // At least four warps per block when the loops allow it: on the H200, one-warp blocks ran
    // 5x5 stencils 3.5x slower than 256-thread ones (docs/PERFORMANCE.md, first GPU table).
    if (!is_default && threads < std::min<int64_t>(4 * gpu.warp_size, cap0 * cap1)) return;
    // Too many blocks along y (a very tall image): the default takes more rows per thread.
    while (is_default && !grid_fits(t) && loops.size() > 1 && t.tile(loops[1]) < cap1) t.serial[loops[1]] *= 2;
    if (!grid_fits(t) && !is_default) return;
    options.push_back(t);
  };

  // The default first (always legal, whatever the limits above): 32 wide along the coalescing
  // loop and up to 256 threads, or 256 wide when there is one loop.
  const int64_t d0 = std::min<int64_t>(loops.size() > 1 ? 32 : 256, cap0);
  const int64_t d1 = loops.size() > 1 ? std::min<int64_t>(256 / d0, cap1) : 1;
  add(d0, d1, 1, -1, /*is_default=*/true);
  if (coarse) return options;

  // A small loop (channels, taps) that could run whole inside each thread instead of as blocks.
  int small_loop = -1;
  for (size_t i = 0; i < base.vars.size(); i++)
    if (std::find(loops.begin(), loops.end(), i) == loops.end() && base.extents[i] > 1 && base.extents[i] <= 4)
      small_loop = int(i);
  if (whole_loop >= 0 && std::find(loops.begin(), loops.end(), size_t(whole_loop)) == loops.end()) {
    small_loop = whole_loop;
    small_loops_in_thread = true;
  }

  std::vector<int64_t> widths;
  for (int64_t t0 : {16, 32, 64, 128, 256})
    if (t0 <= cap0) widths.push_back(t0);
  if (widths.empty()) widths.push_back(cap0);
  std::vector<int> small_choices = {-1};
  if (small_loop >= 0 && small_loops_in_thread) small_choices.push_back(small_loop);
  // Points per thread (register blocking), along the second loop: rows of 1..8; along the
  // coalescing loop too (2x1, 4x1) and in two dimensions (2x2, 3x3 for 3x3 stencils), for
  // blocks at most 64 threads wide (wider ones make tiles of 512+ points along x). The thread's
  // points are consecutive and unrolled, so loads that neighbouring points share are issued
  // once. A short list: each entry multiplies the tilings the search weighs.
  struct PerThread {
    int64_t x, y, z = 1;  ///< z: rows along the third loop (StageTiling::row_loop)
  };
  std::vector<PerThread> per_thread = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 8}, {2, 1}, {4, 1}, {2, 2}, {3, 3}};
  // A kernel that holds a reduction in registers over its tile (register_tile_reduction): larger
  // tiles, each loaded value reused by a row or column of accumulators at every reduction step.
  // Where a third loop is long (channels x columns x rows), tiles along it too: each thread's
  // rows share the reduction's weights (a pointwise convolution's filter(c, r), loaded once
  // per step for 4 rows), while the block keeps its columns narrow (no tail along x).
  const int third = third_loop(base, loops);
  if (register_tiles) {
    per_thread.insert(per_thread.end(), {{2, 4}, {4, 2}, {4, 4}, {4, 8}, {8, 4}});
    // A 4x4x2 tile (channels x columns x rows: 32 accumulators) ran conv_layer's convolution in
    // 0.83 ms on the H200 against 1.14 ms for 4x4x1 (docs/PERFORMANCE.md, run s21-c).
    if (third >= 0)
      per_thread.insert(per_thread.end(), {{1, 1, 2}, {1, 1, 4}, {2, 1, 2}, {2, 1, 4}, {4, 4, 2}});
  }
  for (int64_t t0 : widths)
    for (int64_t t1 : {1, 2, 4, 8, 16, 32}) {
      if (t1 > cap1) continue;
      for (const PerThread &p : per_thread) {
        if (t1 * p.y > cap1 || t0 * p.x > cap0 || (p.y > 1 && loops.size() < 2)) continue;
        if (p.x > 1 && t0 > 64) continue;
        // Rows along the third loop beside one thread along the second would make it a row loop
        // too; the tiling keeps two loops of threads.
        if (p.z > 1 && t1 < 2) continue;
        for (int small : small_choices) add(t0, t1, p.y, small, false, p.x, third, p.z);
      }
    }
  // Drop duplicates (small extents collapse several choices into one).
  std::vector<StageTiling> unique;
  for (const StageTiling &t : options) {
    bool seen = std::any_of(unique.begin(), unique.end(), [&](const StageTiling &u) {
      return u.threads == t.threads && u.serial == t.serial && u.in_thread == t.in_thread;
    });
    if (!seen) unique.push_back(t);
  }
  return unique;
}

// A scatter into a commutative reduction (histograms): its reduction loops spread over the GPU,
// each update an atomic operation.
// A tiling over an update's reduction loops (innermost first), none of them spread yet.
StageTiling reduction_loops_tiling(const StageNode &update) {
  StageTiling t;
  for (const LoopDim &loop : update.loops) {
    if (!loop.is_rvar) continue;
    t.vars.push_back(loop.var);
    t.extents.push_back(std::max<int64_t>(1, loop.estimate.extent()));
  }
  t.threads.assign(t.vars.size(), 1);
  t.serial.assign(t.vars.size(), 1);
  t.in_thread.assign(t.vars.size(), false);
  return t;
}

StageTiling atomic_tiling(const StageNode &update) {
  StageTiling t = reduction_loops_tiling(update);
  t.atomic = true;
  const std::vector<size_t> loops = thread_loops(t);
  const int64_t t0 = std::min<int64_t>(32, ceil_pow2(t.extents[loops[0]]));
  t.threads[loops[0]] = t0;
  if (loops.size() > 1) t.threads[loops[1]] = std::min<int64_t>(256 / t0, ceil_pow2(t.extents[loops[1]]));
  return t;
}

// An atomic scatter whose update also has pure loops (a histogram per channel, hist(v, c)): its
// reduction loops spread as in atomic_tiling, each pure loop one more block dimension. Tiled
// over its pure loops instead, each of a few threads would run the whole reduction
// (lut_from_reduction's per-channel histogram: 3 threads over 2M pixels, 109 ms on the H100).
std::optional<StageTiling> atomic_tiling_over_pure_loops(const StageNode &update) {
  if (!update.atomic_safe || !update.has_rvars() || empty_tiling(update, update.index).single_thread)
    return std::nullopt;
  StageTiling t = atomic_tiling(update);
  for (const LoopDim &loop : update.loops) {
    if (loop.is_rvar) continue;
    if (!loop.is_pure) return std::nullopt;  // stored elsewhere than its own point: not parallel
    t.vars.push_back(loop.var);
    t.extents.push_back(std::max<int64_t>(1, loop.estimate.extent()));
    t.threads.push_back(1);
    t.serial.push_back(1);
    t.in_thread.push_back(false);
  }
  if (!grid_fits(t)) return std::nullopt;
  return t;
}

// The privatized form of an atomic scatter (see StageTiling::privatized): threads along the
// innermost reduction loop, each covering the whole loop in steps of the block's width; middle
// reduction loops whole inside each thread; `rows` of the outermost loop per block. Only for a
// histogram (one dimension of bins; each pure loop, a channel, one more block dimension whose
// blocks keep copies of their own bins) whose bins fit the block's shared memory.
std::optional<StageTiling> privatized_tiling(const FuncNode &f, const StageNode &update, const GpuProfile &gpu,
                                             int64_t rows) {
  if (!update.atomic_safe || !update.has_rvars()) return std::nullopt;
  const std::optional<StageTiling> atomic = empty_tiling(update, update.index).single_thread
                                                ? std::optional<StageTiling>(atomic_tiling(update))
                                                : atomic_tiling_over_pure_loops(update);
  if (!atomic) return std::nullopt;
  StageTiling t = *atomic;
  const size_t reductions = reduction_loops_in(t, update), outer = reductions - 1;
  if (reductions < 2 || f.args.size() != 1 + (t.vars.size() - reductions) || rows < 2 || rows > t.extents[outer])
    return std::nullopt;
  // A pure loop is the grid's x dimension and the strips its y (privatize_stage): one at most,
  // and no more strips than a y dimension holds.
  const int64_t strips = (t.extents[outer] + rows - 1) / rows;
  if (t.vars.size() - reductions > 1 || (t.vars.size() > reductions && strips > kMaxGridBlocksYZ))
    return std::nullopt;
  double copies = 1;  // one per point of the pure loops
  for (size_t i = reductions; i < t.vars.size(); i++) copies *= double(t.extents[i]);
  // Halide pads shared allocations; the kernel model rejects more than 80% of the limit too.
  if (region_points(f) / copies * double(f.bytes_per_point()) > 0.5 * gpu.shared_memory_per_block)
    return std::nullopt;
  const int64_t width = std::min<int64_t>(256, ceil_pow2(t.extents[0]));
  for (size_t i = 0; i < reductions; i++) {
    t.threads[i] = 1;
    t.serial[i] = 1;
    t.in_thread[i] = i > 0 && i < outer;
  }
  t.threads[0] = width;
  t.serial[0] = (t.extents[0] + width - 1) / width;
  t.serial[outer] = rows;
  t.privatized = true;
  return t;
}

// A histogram's partial results: at most this many bins per copy, and points in all copies
// (64 MB of floats).
constexpr double kMaxPartialHistogramBins = 4096, kMaxPartialResultPoints = 16.0 * 1024 * 1024;

// A total (a Func of no arguments) or a histogram without atomics (a one-dimensional Func
// scattered to, where Halide would lower an atomic update to a compare-and-swap loop, or the
// type has no atomic add) reduced over two or more loops, which would otherwise run in one GPU
// thread: its partial results along the innermost reduction loop, `threads` per block, each
// thread running the other loops whole (see StageTiling::partials). Consecutive threads read
// consecutive points; a histogram's partial results are a copy of the Func per thread.
std::optional<StageTiling> partials_tiling(const FuncNode &f, const StageNode &update, int64_t threads) {
  const bool total = f.args.empty();
  const bool histogram = f.args.size() == 1 && update.scatter && !update.atomic_safe;
  if (!(total || histogram) || update.index == 0 || !update.rfactor_safe ||
      !empty_tiling(update, update.index).single_thread)
    return std::nullopt;
  StageTiling t = reduction_loops_tiling(update);
  // Fewer partial results than a few warps' worth are not worth two more kernels.
  if (t.vars.size() < 2 || t.extents.front() < std::max<int64_t>(64, threads)) return std::nullopt;
  // A copy of a histogram per partial result: each thread zeroes its own (serially), and they
  // all stay within a modest allocation.
  if (histogram && (region_points(f) > kMaxPartialHistogramBins ||
                    region_points(f) * double(t.extents.front()) > kMaxPartialResultPoints))
    return std::nullopt;
  t.in_thread.assign(t.vars.size(), true);
  t.threads.front() = threads;
  t.in_thread.front() = false;
  t.partials = true;
  return t;
}

// A total's partial results combined in two levels only from this many: below, the two more
// kernels (~5 us of a pipeline's time each, launch included) cost about what the one thread's
// steps (~20 ns each) save. Measured on an H100 (session thirty-four): 640 partial results ran
// level (0.95x), 1,024 to 2,560 1.19-1.46x faster.
constexpr int64_t kMinPartialResultsToRegroup = 768;

// Partial results per point: only where the pure loop's points are too few to keep the GPU
// busy (a row of a 720-row image: 720 threads), and each partial result still takes several
// steps of the reduction.
constexpr int64_t kMaxPointsForPartialsPerPoint = 16384, kMinStepsPerPartialResult = 8;

// A row or column reduction (an update with one pure loop, associative and commutative, storing
// to its own point) whose pure loop has few points: its partial results per point along its
// innermost reduction loop (see StageTiling::partials), in blocks of 256 threads. Two layouts:
// the partial results innermost (consecutive threads read consecutive iterations: a row's sum),
// or the pure loop innermost (consecutive threads read consecutive points: a column's sum).
std::vector<StageTiling> partials_per_point_tilings(const StageNode &update, bool every) {
  const StageTiling pure = empty_tiling(update, update.index);
  if (update.index == 0 || !update.rfactor_safe || update.scatter || pure.vars.size() != 1) return {};
  const auto factored = std::find_if(update.loops.begin(), update.loops.end(), [](const LoopDim &l) { return l.is_rvar; });
  if (factored == update.loops.end()) return {};
  const int64_t points = pure.extents[0], steps = std::max<int64_t>(1, factored->estimate.extent());
  if (points > kMaxPointsForPartialsPerPoint) return {};
  std::vector<StageTiling> out;
  auto add = [&](bool partials_inner, int64_t partials) {
    if (steps < kMinStepsPerPartialResult * partials) return;
    const int64_t along_pure = std::min<int64_t>(256 / partials, ceil_pow2(points));
    if (!partials_inner && along_pure < 8) return;  // too few points for the pure loop to lead
    StageTiling t;
    t.partials = true;
    const size_t r = partials_inner ? 0 : 1, p = 1 - r;
    t.vars.assign(2, "");
    t.vars[r] = factored->var;
    t.vars[p] = pure.vars[0];
    t.extents = {0, 0};
    t.extents[r] = steps;
    t.extents[p] = points;
    t.threads = {1, 1};
    t.threads[r] = partials;
    t.threads[p] = along_pure;
    t.serial = {1, 1};
    t.serial[r] = (steps + partials - 1) / partials;  // one block spans the whole reduction loop
    t.in_thread = {false, false};
    out.push_back(t);
  };
  for (int64_t partials : every ? std::vector<int64_t>{16, 32, 64} : std::vector<int64_t>{32}) add(true, partials);
  for (int64_t partials : every ? std::vector<int64_t>{4, 8, 32} : std::vector<int64_t>{8}) add(false, partials);
  return out;
}

StageTiling update_tiling(const StageNode &update, const StageTiling &pure, const GpuProfile &gpu) {
  StageTiling t = empty_tiling(update, update.index);
  if (t.single_thread) {
    if (update.atomic_safe && update.has_rvars()) return atomic_tiling(update);
    return t;
  }
  bool any = false;
  for (size_t i = 0; i < t.vars.size(); i++)
    for (size_t j = 0; j < pure.vars.size(); j++)
      if (pure.vars[j] == t.vars[i] && pure.threads[j] > 1) {
        t.threads[i] = std::min(pure.threads[j], ceil_pow2(t.extents[i]));
        any = true;
      }
  if (!any || t.threads_per_block() < 2) return tiling_options(update, update.index, gpu, true).front();
  return t;
}

std::vector<StageTiling> own_update_tilings(const StageNode &update, const GpuProfile &gpu) {
  StageTiling base = empty_tiling(update, update.index);
  if (base.single_thread) return {};
  base.own_tiling = true;
  const std::vector<size_t> loops = thread_loops(base);
  const int64_t cap0 = ceil_pow2(base.extents[loops[0]]);
  const int64_t cap1 = loops.size() > 1 ? ceil_pow2(base.extents[loops[1]]) : 1;
  // One to eight warps: an update runs its reduction loops whole in each thread, so it has few
  // points to spread, and small blocks reach more SMs. A warp at least where the loops allow
  // (an inherited tiling can leave 16 or 2 threads per block).
  std::vector<StageTiling> out;
  for (int64_t t0 : {32, 64, 128, 256})
    for (int64_t t1 : {1, 2, 4, 8}) {
      if (t1 > cap1 || (t0 > cap0 && t0 > 32)) continue;
      StageTiling t = base;
      t.threads[loops[0]] = std::min(t0, cap0);
      if (loops.size() > 1) t.threads[loops[1]] = t1;
      const int64_t threads = t.threads_per_block();
      if (threads > std::min<int64_t>(256, gpu.max_threads_per_block) ||
          threads < std::min<int64_t>(gpu.warp_size, cap0 * cap1) || !grid_fits(t))
        continue;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const StageTiling &u) { return u.threads == t.threads; });
      if (!seen) out.push_back(t);
    }
  return out;
}

std::vector<int64_t> reduction_unroll_factors(const StageNode &update, const StageTiling &tiling) {
  if (tiling.atomic || tiling.privatized || tiling.partials) return {};
  for (const LoopDim &loop : update.loops) {
    if (!loop.is_rvar) continue;
    // The innermost reduction loop: whole when short (a convolution's taps), else in steps of
    // 4 or 8 (a scan). Split with a guard, so an extent that differs at run time stays correct.
    const int64_t extent = loop.estimate.extent();
    std::vector<int64_t> factors;
    if (extent >= 2 && extent <= 8) factors.push_back(extent);
    for (int64_t f : {4, 8})
      if (f < extent) factors.push_back(f);
    return factors;
  }
  return {};
}

std::vector<int64_t> slab_sizes(const StageNode &update, const StageTiling &tiling) {
  if (update.index == 0 || tiling.single_thread || tiling.atomic || tiling.privatized || tiling.partials) return {};
  // Fused Funcs never go into kernels with a loop whole inside each thread (kernel_accepts_fusion).
  if (tiling.has_in_thread_loop()) return {};
  int64_t extent = 0;  // of the outermost reduction loop
  for (const LoopDim &loop : update.loops)
    if (loop.is_rvar) extent = loop.estimate.extent();
  // A slab of a few steps (the taps of a short loop) or of many (a convolution's input
  // channels, a matrix product's depth): a deeper slab is fewer barriers, more shared memory.
  std::vector<int64_t> sizes;
  for (int64_t s : {2, 8, 32})
    if (s < extent) sizes.push_back(s);
  return sizes;
}

bool only_root_consumes(const PipelineDag &dag, const ScheduleState &state, int func, int root, int depth) {
  if (depth > 64) return false;
  for (const std::string &name : dag.funcs[func].consumers) {
    int c = dag.index_of(name);
    if (c == root) continue;
    if (!state.decided[c] || state.decisions[c].level != ComputeLevel::Inline) return false;
    if (!only_root_consumes(dag, state, c, root, depth + 1)) return false;
  }
  return true;
}

bool fusion_still_legal(const PipelineDag &dag, const ScheduleState &state, int func, const FuncDecision &d) {
  if (d.level != ComputeLevel::Block && d.level != ComputeLevel::Thread) return true;
  if (d.kernel_root < 0 || !state.decided[size_t(d.kernel_root)]) return false;
  // Per thread under a consumer fused per block since (a polish move), Halide refuses the
  // compute_at: the consumer reads it outside the thread loops (random pipeline 400247).
  if (d.level == ComputeLevel::Thread && !only_root_consumes(dag, state, func, d.kernel_root)) return false;
  if (consuming_kernel(dag, state, func) != d.kernel_root ||
      state.decisions[size_t(d.kernel_root)].level != ComputeLevel::Root)
    return false;
  // The kernel re-tiled since into partial results or a privatized update has no block loop of
  // its own to compute fused Funcs at (a matrix-vector product's dot, found by an unseen
  // generator: the emission failed); nor has one run in a single thread, and an atomic update's
  // block loop is a split of a reduction variable, which the schedule's text declared as a Var
  // ("Can't split RVar r_row_hist_10$x into Var": random pipeline 3001, searched). Other
  // kernel_accepts_fusion rules are left to the moves that check them: main's measured picks
  // (unsharp's channels in each thread beside Funcs per block) were reached past them.
  const StageTiling &last = state.decisions[size_t(d.kernel_root)].tilings.back();
  return !last.partials && !last.privatized && !last.atomic && !last.single_thread;
}

int consuming_kernel(const PipelineDag &dag, const ScheduleState &state, int func) {
  int kernel = -1;
  std::vector<int> pending = {func};
  std::vector<bool> seen(dag.funcs.size(), false);
  while (!pending.empty()) {
    int f = pending.back();
    pending.pop_back();
    for (const std::string &name : dag.funcs[f].consumers) {
      int c = dag.index_of(name);
      if (c < 0 || seen[c]) continue;
      seen[c] = true;
      if (!state.decided[c]) return -1;
      const FuncDecision &d = state.decisions[c];
      int k = -1;
      if (d.level == ComputeLevel::Inline) {
        pending.push_back(c);
        continue;
      }
      k = d.level == ComputeLevel::Root ? c : d.kernel_root;
      if (kernel >= 0 && kernel != k) return -1;
      kernel = k;
    }
  }
  return kernel;
}

namespace {

// One stage of `func` costed alone (its producers read from memory) with `decision`: how the
// search ranks an update's own tilings and unrolls. Nothing else runs in that stage's kernel
// but Funcs fused into the last stage, which come later and are weighed with every tiling then.
double stage_cost_alone(const PipelineDag &dag, int func, const FuncDecision &decision, size_t stage,
                        const GpuProfile &gpu, const LearnedCostModel *model) {
  ScheduleState scratch(dag);
  scratch.decide(func, decision);
  const KernelModel km = build_kernel_model(dag, scratch, func, int(stage), gpu);
  return km.valid ? predict_kernel_cost(model, dag, scratch, km, gpu).total_ms
                  : std::numeric_limits<double>::infinity();
}

// What each update stage of a Func may take instead of the tiling that follows its pure stage's:
// tilings of its own and unrolls of its innermost reduction loop.
struct UpdateChoices {
  std::vector<std::vector<StageTiling>> own;  ///< per stage (0: none)
  std::vector<std::vector<int64_t>> unrolls;  ///< per stage: reduction_unroll_factors
  std::vector<StageTiling> best_own;          ///< the search: the cheapest own tiling and unroll
  std::vector<int64_t> best_unroll;           ///< the search: the cheapest unroll of the inherited tiling
};

UpdateChoices update_choices(const PipelineDag &dag, int func, const FuncDecision &inherited, const GpuProfile &gpu,
                             bool rank, const LearnedCostModel *model) {
  const FuncNode &f = dag.funcs[func];
  UpdateChoices c;
  c.own.resize(f.stages.size());
  c.unrolls.resize(f.stages.size());
  c.best_own.resize(f.stages.size());
  c.best_unroll.assign(f.stages.size(), 1);
  for (size_t s = 1; s < f.stages.size(); s++) {
    const StageTiling &follow = inherited.tilings[s];
    if (follow.privatized || follow.atomic || follow.partials) continue;
    c.own[s] = own_update_tilings(f.stages[s], gpu);
    c.unrolls[s] = reduction_unroll_factors(f.stages[s], follow);
    if (!rank) continue;
    FuncDecision trial = inherited;
    double best = std::numeric_limits<double>::infinity();
    for (int64_t u : c.unrolls[s]) {
      trial.tilings[s] = follow;
      trial.tilings[s].reduction_unroll = u;
      const double ms = stage_cost_alone(dag, func, trial, s, gpu, model);
      if (ms < best) best = ms, c.best_unroll[s] = u;
    }
    trial.tilings[s] = follow;
    if (stage_cost_alone(dag, func, trial, s, gpu, model) <= best) c.best_unroll[s] = 1;
    best = std::numeric_limits<double>::infinity();
    for (const StageTiling &own : c.own[s]) {
      std::vector<int64_t> factors = {1};
      factors.insert(factors.end(), c.unrolls[s].begin(), c.unrolls[s].end());
      for (int64_t u : factors) {
        trial.tilings[s] = own;
        trial.tilings[s].reduction_unroll = u;
        const double ms = stage_cost_alone(dag, func, trial, s, gpu, model);
        if (ms < best) best = ms, c.best_own[s] = trial.tilings[s];
      }
    }
  }
  return c;
}

// A root decision's variants with other update tilings (`inherited`: its updates follow the pure
// stage, option number `index` of the Func): the search gets each update's best unroll, and each
// update's best own tiling; random walks one unroll and one own tiling per update, turning
// through the choices with `index` so that all of them come with some pure tiling.
void add_update_variants(const FuncDecision &inherited, size_t index, const UpdateChoices &c, bool every,
                         std::vector<FuncDecision> &options) {
  FuncDecision unrolled = inherited, own = inherited;
  bool any_unrolled = false, any_own = false;
  for (size_t s = 1; s < inherited.tilings.size(); s++) {
    const std::vector<int64_t> &factors = c.unrolls[s];
    int64_t unroll = c.best_unroll[s];
    if (every && !factors.empty()) unroll = factors[index % factors.size()];
    if (unroll > 1 && !factors.empty()) {
      unrolled.tilings[s].reduction_unroll = unroll;
      any_unrolled = true;
    }
    if (c.own[s].empty()) continue;
    StageTiling mine = c.best_own[s];
    if (every) {
      mine = c.own[s][(index + s) % c.own[s].size()];
      const size_t u = (index / c.own[s].size()) % (factors.size() + 1);
      mine.reduction_unroll = u == 0 ? 1 : factors[u - 1];
    }
    if (mine.vars.empty() || mine.threads == inherited.tilings[s].threads) continue;
    own.tilings[s] = mine;
    any_own = true;
  }
  if (any_unrolled) options.push_back(unrolled);
  if (any_own) options.push_back(own);
}

}  // namespace

std::vector<FuncDecision> standalone_options(const PipelineDag &dag, int func, const GpuProfile &gpu,
                                             const OptionLimits &limits) {
  const FuncNode &f = dag.funcs[func];
  std::vector<FuncDecision> options;
  if (f.has_extern_definition) {
    options.push_back(FuncDecision{ComputeLevel::Root, -1, {}});
    return options;
  }
  // Too large for global memory (32-bit device indices): inlined however costly, when it can be.
  const bool only_inline_or_fused = too_large_to_store_on_device(f) && inline_is_legal(f);
  if (inline_is_legal(f) && (only_inline_or_fused || inline_is_sensible(dag, f)))
    options.push_back(FuncDecision{ComputeLevel::Inline});

  // A small loop inside each thread pays where its iterations share values (measured faster on
  // the H200 for camera_pipe's and unsharp's outputs, slower for stages that reload per channel).
  bool small_loops = limits.small_loops_in_thread;
  const StageTiling plain = empty_tiling(f.stages[0], 0);
  for (size_t i = 2; i < plain.vars.size() && !small_loops; i++)
    small_loops = shares_values_across(dag, f.stages[0], plain.vars[i]);
  const std::vector<StageTiling> tilings =
      tiling_options(f.stages[0], 0, gpu, limits.coarse, small_loops, register_tile_reduction(dag, func) >= 0,
                     pinned_reduction_loop(dag, func));
  std::optional<UpdateChoices> updates;
  for (size_t index = 0; index < tilings.size(); index++) {
    const StageTiling &tiling = tilings[index];
    if (only_inline_or_fused) break;
    FuncDecision root{ComputeLevel::Root, -1, {tiling}};
    for (size_t s = 1; s < f.stages.size(); s++) root.tilings.push_back(update_tiling(f.stages[s], tiling, gpu));
    options.push_back(root);
    // The last stage's reduction in slabs, for producers copied per slab (fusion_options): the
    // search takes the deepest slab, random walks each in turn.
    if (f.stages.size() > 1 && !limits.coarse) {
      const std::vector<int64_t> slabs = slab_sizes(f.stages.back(), root.tilings.back());
      if (!slabs.empty()) {
        FuncDecision staged = root;
        staged.tilings.back().slab = limits.every_update_option ? slabs[index % slabs.size()] : slabs.back();
        options.push_back(staged);
      }
    }
    if (f.stages.size() > 1 && !limits.coarse) {
      if (!updates) updates = update_choices(dag, func, root, gpu, /*rank=*/!limits.every_update_option, limits.model);
      const size_t first_variant = options.size();
      add_update_variants(root, index, *updates, limits.every_update_option, options);
      // Random walks: the update variants in slabs too (a slab split composed with the unroll's).
      for (size_t v = first_variant, end = options.size(); v < end && limits.every_update_option; v++) {
        const std::vector<int64_t> slabs = slab_sizes(f.stages.back(), options[v].tilings.back());
        if (slabs.empty()) continue;
        FuncDecision staged = options[v];
        staged.tilings.back().slab = slabs[(index + v) % slabs.size()];
        options.push_back(staged);
      }
    }
    // Scatters with few points and many updates (histograms) contend on their atomics: the
    // same kernel privatized per block, with a few strip heights. Only the last stage: the copy
    // is computed at a loop of f, and Halide's compute_at(f, loop) means f's last stage.
    // A total run in one thread: its first such update factored into partial results, a warp per
    // block (more SMs busy); random walks also a warp to four.
    const std::vector<int64_t> partial_threads =
        limits.every_update_option ? std::vector<int64_t>{32, 64, 128} : std::vector<int64_t>{32};
    // A total's many partial results are also combined in two levels (StageTiling::partials_regroup).
    const std::vector<int64_t> regroups =
        limits.every_update_option ? std::vector<int64_t>{16, 32, 64} : std::vector<int64_t>{32};
    for (size_t s = 1; s < f.stages.size(); s++) {
      bool any = false;
      for (int64_t threads : partial_threads)
        if (auto p = partials_tiling(f, f.stages[s], threads)) {
          FuncDecision variant = root;
          variant.tilings[s] = *p;
          options.push_back(variant);
          any = true;
          if (!f.args.empty() || p->extents.front() < kMinPartialResultsToRegroup) continue;
          for (int64_t regroup : regroups) {
            variant.tilings[s].partials_regroup = regroup;
            options.push_back(variant);
          }
        }
      if (any) break;
    }
    // A row or column reduction with few rows: its first such update's partial results per point.
    for (size_t s = 1; s < f.stages.size() && !limits.coarse; s++) {
      const std::vector<StageTiling> per_point = partials_per_point_tilings(f.stages[s], limits.every_update_option);
      for (const StageTiling &p : per_point) {
        FuncDecision variant = root;
        variant.tilings[s] = p;
        options.push_back(variant);
      }
      if (!per_point.empty()) break;
    }
    // A scatter with pure loops: its updates atomic over the reduction loops.
    for (size_t s = 1; s < f.stages.size(); s++)
      if (auto atomic = atomic_tiling_over_pure_loops(f.stages[s])) {
        FuncDecision variant = root;
        variant.tilings[s] = *atomic;
        options.push_back(variant);
      }
    const size_t last = f.stages.size() - 1;
    for (int64_t rows : limits.coarse ? std::vector<int64_t>{16} : std::vector<int64_t>{4, 16, 64})
      if (auto p = last > 0 ? privatized_tiling(f, f.stages[last], gpu, rows) : std::nullopt) {
        FuncDecision variant = root;
        variant.tilings[last] = *p;
        options.push_back(variant);
      }
  }
  return options;
}

namespace {

// The DAG's edges by index: consumers[i] are the Funcs that read Func i.
std::vector<std::vector<int>> consumer_indices(const PipelineDag &dag) {
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < dag.funcs.size(); i++) index.emplace(dag.funcs[i].name, int(i));
  std::vector<std::vector<int>> consumers(dag.funcs.size());
  for (size_t i = 0; i < dag.funcs.size(); i++)
    for (const std::string &name : dag.funcs[i].consumers)
      if (auto it = index.find(name); it != index.end()) consumers[i].push_back(it->second);
  return consumers;
}

// The Funcs computed after `start` because they read it, directly or through others, where a
// pair (`partner`: each paired Func's sibling, or -1) is computed at once: what reaches one
// Func of a pair reaches its sibling too.
std::vector<bool> downstream(const std::vector<std::vector<int>> &consumers, const std::vector<int> &partner, int start) {
  std::vector<bool> reached(consumers.size(), false);
  std::vector<int> pending = {start};
  while (!pending.empty()) {
    const int n = pending.back();
    pending.pop_back();
    std::vector<int> next = consumers[size_t(n)];
    if (n != start && partner[size_t(n)] >= 0) next.push_back(partner[size_t(n)]);
    for (int c : next)
      if (!reached[size_t(c)]) {
        reached[size_t(c)] = true;
        pending.push_back(c);
      }
  }
  return reached;
}

// One pure definition over the loops of its arguments, computed by a kernel of its own: what
// Halide's compute_with can merge (an output keeps its own kernel: it may be specialized).
bool can_share_a_kernel(const FuncNode &f) {
  return f.stages.size() == 1 && !f.is_output && !f.has_extern_definition && !f.args.empty();
}

bool same_loops(const FuncNode &a, const FuncNode &b) {
  if (a.args != b.args || a.region.size() != b.region.size()) return false;
  for (size_t d = 0; d < a.region.size(); d++)
    if (a.region[d].min != b.region[d].min || a.region[d].extent() != b.region[d].extent()) return false;
  return true;
}

// Whether state_to_spec fuses two or more of this tiling's loops into one grid dimension
// (grid_fits). Halide 14's compute_with splits a fused loop back by the first Func's extents, and
// the second Func's region came out wrong: bgu's lowres_input_im computed with lowres_output_im
// over fused (y, c) blocks read its input at c = -404 (H100, session 41).
bool fuses_block_loops(const StageTiling &t) { return grid_fused_loops(t).size() > 1; }

}  // namespace

bool same_tiling(const StageTiling &a, const StageTiling &b) {
  return a.vars == b.vars && a.extents == b.extents && a.threads == b.threads && a.serial == b.serial &&
         a.in_thread == b.in_thread && a.single_thread == b.single_thread && a.atomic == b.atomic &&
         a.privatized == b.privatized && a.reduction_unroll == b.reduction_unroll && a.slab == b.slab;
}

std::vector<FuncDecision> sibling_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                          const GpuProfile &gpu, const OptionLimits &limits) {
  const FuncNode &f = dag.funcs[size_t(func)];
  std::vector<FuncDecision> options;
  if (limits.coarse || !can_share_a_kernel(f)) return options;
  std::vector<int> candidates;
  for (size_t s = 0; s < dag.funcs.size(); s++) {
    if (int(s) == func || !state.decided[s]) continue;
    const FuncDecision &d = state.decisions[s];
    if (d.level != ComputeLevel::Root || d.computed_with >= 0 || d.tilings.size() != 1) continue;
    const StageTiling &t = d.tilings[0];
    if (t.single_thread || t.atomic || t.privatized || t.partials || t.slab > 0 || fuses_block_loops(t)) continue;
    if (can_share_a_kernel(dag.funcs[s]) && same_loops(f, dag.funcs[s])) candidates.push_back(int(s));
  }
  if (candidates.empty()) return options;
  // Pairs only: a Func already sharing its kernel takes no second sibling.
  std::vector<int> partner(dag.funcs.size(), -1);
  for (size_t g = 0; g < dag.funcs.size(); g++)
    if (state.decided[g] && state.decisions[g].level == ComputeLevel::Root && state.decisions[g].computed_with >= 0) {
      partner[g] = state.decisions[g].computed_with;
      partner[size_t(state.decisions[g].computed_with)] = int(g);
    }
  // Halide realizes a pair at once: no path may lead from one of the two to the other, through
  // other Funcs or through the pairs already made (random pipeline 1153: lambda_0 feeds
  // mirror_interior and repeat_edge feeds constant_exterior, so pairing lambda_0 with
  // constant_exterior and mirror_interior with repeat_edge leaves no order to compute them in).
  const std::vector<std::vector<int>> consumers = consumer_indices(dag);
  const std::vector<bool> after_func = downstream(consumers, partner, func);
  for (int s : candidates) {
    if (partner[size_t(s)] >= 0 || after_func[size_t(s)] || downstream(consumers, partner, s)[size_t(func)]) continue;
    FuncDecision with{ComputeLevel::Root, -1, {state.decisions[s].tilings[0]}};
    with.computed_with = s;
    ScheduleState trial = state;
    trial.decide(func, with);
    if (!build_kernel_model(dag, trial, func, 0, gpu).valid) continue;
    options.push_back(std::move(with));
  }
  return options;
}

std::vector<FuncDecision> fusion_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                         const GpuProfile &gpu, const OptionLimits &limits) {
  std::vector<FuncDecision> options = sibling_options(dag, state, func, gpu, limits);
  for (FuncDecision &d : consumer_fusion_options(dag, state, func, gpu, limits)) options.push_back(std::move(d));
  return options;
}

std::vector<FuncDecision> consumer_fusion_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                                  const GpuProfile &gpu, const OptionLimits &limits) {
  const FuncNode &f = dag.funcs[func];
  std::vector<FuncDecision> options;
  if (limits.coarse || f.has_extern_definition || !accessed_affinely(dag, f)) return options;

  const int kernel = consuming_kernel(dag, state, func);
  if (kernel < 0) return options;
  // The reduction a kernel copies along its pinned loop, run whole in each thread
  // (pinned_reduction_loop), goes into that thread's registers: Halide 14 bounds it there.
  const bool pinned = holds_pinned_reduction(dag, state, kernel, func);
  if (!pinned && !kernel_accepts_fusion(dag, state, kernel, func)) return options;
  // A Func read by one copied per slab stays at root or inline: computed per block it would
  // cover every slab's reads at once, which the kernel model does not propagate.
  if (feeds_per_slab(dag, state, func)) return options;
  const int stage = int(state.decisions[kernel].tilings.size()) - 1;
  const double needed = region_points(f);
  // Per slab: a single-stage Func read only by the kernel's staged reduction (through inlined
  // Funcs), computed at its loop over slabs.
  const bool slab_option = state.decisions[kernel].tilings.back().slab > 0 && f.stages.size() == 1 &&
                           only_root_consumes(dag, state, func, kernel);
  for (int choice = 0; choice < 3; choice++) {
    const ComputeLevel level = choice == 1 ? ComputeLevel::Thread : ComputeLevel::Block;
    const bool per_slab = choice == 2;
    if (per_slab && !slab_option) continue;
    if (pinned && level != ComputeLevel::Thread) continue;
    if (!fusion_is_legal(f, level)) continue;
    if (level == ComputeLevel::Thread && !only_root_consumes(dag, state, func, kernel)) continue;
    ScheduleState trial = state;
    FuncDecision candidate{level, kernel, {}};
    candidate.per_slab = per_slab;
    trial.decide(func, candidate);
    KernelModel km = build_kernel_model(dag, trial, kernel, stage, gpu);
    if (!km.valid) continue;
    bool acceptable = true;
    for (const FusedFunc &fused : km.fused) {
      if (fused.func != func) continue;
      // Per thread means in registers: otherwise Halide gives every thread's copy storage in a
      // global buffer allocated at each launch (measured 3x slower on interpolate's first stage),
      // and a reduction's accumulators would go to memory at each step.
      if (level == ComputeLevel::Thread && !fused.in_registers) acceptable = false;
      const double recompute = fused.points_per_block * km.blocks / std::max(1.0, needed);
      // A copy (an input's wrapper) staged per slab is re-read by every block along the other
      // dimensions, which is the point: no arithmetic is recomputed.
      const bool copy = per_slab && f.stages[0].arithmetic_ops().total() == 0;
      if (recompute > limits.max_recompute && !copy) acceptable = false;
      if (level == ComputeLevel::Thread && fused.points_per_block / km.threads_per_block > limits.max_thread_points)
        acceptable = false;
    }
    if (acceptable) options.push_back(trial.decisions[func]);
  }
  return options;
}

std::vector<FuncDecision> decision_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                           const GpuProfile &gpu, const OptionLimits &limits) {
  std::vector<FuncDecision> options = standalone_options(dag, func, gpu, limits);
  for (FuncDecision &d : fusion_options(dag, state, func, gpu, limits)) options.push_back(std::move(d));
  // Halide 14 would lower an atomic scatter to a compare-and-swap loop (search/atomic_lowering.h).
  return keep_atomic_adds(dag, state, func, std::move(options),
                          [](const FuncDecision &d) -> const FuncDecision & { return d; });
}

bool inline_left_to_polish(const PipelineDag &dag, int func) {
  const FuncNode &f = dag.funcs[size_t(func)];
  if (!inline_is_legal(f)) return false;
  const InlinedWork w = inlined_work(dag, f);
  return !inline_is_sensible(f, w) && !too_large_to_store_on_device(f) &&
         double(w.calls) * w.ops <= kPolishInlineMaxWork;
}

}  // namespace hlsched
