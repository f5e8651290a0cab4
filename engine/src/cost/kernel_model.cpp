#include "cost/kernel_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "cost/coordinate_paths.h"
#include "cost/folded_phases.h"
#include "cost/warp_lanes.h"
#include "search/atomic_lowering.h"
#include "hlsched/engine/gpu_profile.h"

namespace hlsched {

namespace {

// Whether an update's reads of its own Func are its own point and the point one step back along
// one of its reduction loops, which steps forward: every dimension read at one point, except one
// read at [r - 1, r] (coefficient +1 on reduction loop r, nothing else varying).
bool reads_own_and_previous_step(const ProducerAccess &a, const StageNode &stage) {
  if (a.calls_per_point != 2 || !a.is_affine || a.region_min.size() != a.region_max.size()) return false;
  int stepped = 0;
  for (size_t d = 0; d < a.region_min.size(); d++) {
    const AffineExpr &lo = a.region_min[d], &hi = a.region_max[d];
    if (!lo.is_affine || !hi.is_affine || lo.coefficients != hi.coefficients) return false;
    if (hi.constant == lo.constant) continue;
    if (hi.constant - lo.constant != 1 || lo.coefficients.size() != 1) return false;
    const auto &[var, coefficient] = *lo.coefficients.begin();
    const bool rvar = std::any_of(stage.loops.begin(), stage.loops.end(),
                                  [&](const LoopDim &l) { return l.is_rvar && l.var == var; });
    if (!rvar || coefficient != 1) return false;
    stepped++;
  }
  return stepped == 1;
}

// A shared-memory row padded against bank conflicts (pad_rows).
struct RowPadding {
  int64_t row = 0;  ///< the padded row's length in elements (FusedFunc::storage_row); 0: unpadded
  double ways = 1;  ///< bank conflict ways of the reads down its columns
};

// How the innermost GPU thread index moves through a Func's coordinates: along `dim` by `coef`
// elements per thread (dim -1: it does not move, a broadcast).
struct ThreadStride {
  int dim = -1;
  double coef = 0;
};

// What the propagation knows about one Func within one kernel.
struct FuncInKernel {
  std::vector<double> box;  ///< extent per dim needed by the kernel's block (or thread)
  double evals = 0;         ///< evaluations per block (inlined Funcs: once per call)
  /// Inlined Funcs: the part of `evals` called from unrolled passes (inlined_passes_), whose
  /// copies merge; calls from elsewhere in the kernel (a Func fused per thread) do not.
  double evals_in_passes = 0;
  ThreadStride stride;
  bool reached = false;
  std::vector<DimPaths> paths;  ///< per dim: how the kernel's reads of it follow its loops
  bool in_block_func = false;   ///< computed per block, or inlined into a Func computed per block
  bool divided_unevenly = false;  ///< reached through an index divided unevenly (ProducerAccess::divides_unevenly)
};

// Halide 14's CUDA runtime loads every module with a cap of 64 registers per thread
// (CU_JIT_MAX_REGISTERS): the H200's CUPTI traces show 64 for every heavy kernel, whatever ptxas
// would use uncapped. Past it, ptxas spills to local memory.
constexpr double kHalideCudaRegisterCap = 64;
// Registers a thread holds besides the values of its loads: indices, pointers, loop state.
constexpr double kBaseRegisters = 24;

double full_extent_of(const PipelineDag &dag, const std::string &name, size_t dim) {
  if (const FuncNode *f = dag.find(name)) return dim < f->region.size() ? double(f->region[dim].extent()) : 1.0;
  for (const InputNode &in : dag.inputs)
    if (in.name == name) return dim < in.estimate.size() ? double(std::max<int64_t>(1, in.estimate[dim].extent())) : 1.0;
  return 1.0;
}

int bytes_of(const PipelineDag &dag, const std::string &name) {
  if (const FuncNode *f = dag.find(name)) return int(f->bytes_per_point());
  for (const InputNode &in : dag.inputs)
    if (in.name == name) return in.type.bytes();
  return 4;
}

// How many ways a warp's shared-memory request splits when lane i reads the element
// i * `step_elements` away (32 banks of 4 bytes; lanes reading one word share it).
double bank_ways(double step_elements, double bytes) {
  std::map<int64_t, std::set<int64_t>> words_per_bank;
  for (int lane = 0; lane < 32; lane++) {
    const int64_t word = int64_t(std::floor(lane * step_elements * bytes / 4.0));
    words_per_bank[word % 32].insert(word);
  }
  size_t ways = 1;
  for (const auto &[bank, words] : words_per_bank) ways = std::max(ways, words.size());
  return double(ways);
}

// A Func per block that consecutive threads read down its columns (a transpose) steps `rows` x
// its row per lane; an even row puts lanes in the same banks (32 ways for a 32-element row of
// 32-bit values). The row is padded to the first length up to 4 more whose steps conflict least
// (`align_storage`), as experts pad a shared tile's rows by one.
RowPadding pad_rows(double row, double rows, double bytes) {
  RowPadding best{0, bank_ways(rows * row, bytes)};
  for (double padded = row + 1; padded <= row + 4 && best.ways > 1; padded++) {
    const double ways = bank_ways(rows * padded, bytes);
    if (ways < best.ways) best = RowPadding{int64_t(padded), ways};
  }
  return best;
}

// Fraction of the bytes moved in 32-byte sectors that a warp actually uses.
double coalescing_efficiency(const ThreadStride &stride, int bytes, double threads_along_x) {
  if (stride.dim < 0 || stride.coef == 0) return 1.0;  // every lane reads the same element
  if (stride.dim > 0) return std::min(1.0, bytes / 32.0);  // each lane in its own row
  const double lanes = std::min(32.0, std::max(1.0, threads_along_x));
  const double span = lanes * std::fabs(stride.coef) * bytes;
  const double useful = lanes * std::min(1.0, std::fabs(stride.coef)) * bytes;
  const double moved = std::ceil(span / 32.0) * 32.0;
  return std::clamp(useful / moved, 1.0 / 32, 1.0);
}

// Extent of a producer dimension needed by a box of the consumer's loops.
double region_extent(const ProducerAccess &a, size_t d, const std::map<std::string, double> &loop_extent,
                     double full) {
  const AffineExpr &lo = a.region_min[d], &hi = a.region_max[d];
  if (!lo.is_affine || !hi.is_affine) {
    // Not affine (a clamp, a data-dependent index): one consumer point reads `per_point`
    // elements, a window that slides with each loop its bounds mention (a boundary condition's
    // clamp(x) moves one element per x), so a box reads the window swept over those loops.
    const int64_t per_point = a.points_per_consumer_point[d];
    if (per_point <= 0) return full;
    double extent = double(per_point);
    for (const auto &[var, e] : loop_extent)
      if (text_mentions(lo.text, var) || text_mentions(hi.text, var)) extent += e - 1;
    return std::min(extent, full);
  }
  double extent = hi.constant - lo.constant + 1;
  for (const auto &[var, coef] : hi.coefficients) {
    auto it = loop_extent.find(var);
    extent += std::fabs(coef) * ((it == loop_extent.end() ? 1.0 : it->second) - 1);
  }
  return std::clamp(std::ceil(extent), 1.0, std::max(1.0, full));
}

// A boundary condition: a clamped index (not affine, a constant window per point).
bool reads_clamped_window(const ProducerAccess &a) {
  return !a.is_affine && std::all_of(a.points_per_consumer_point.begin(), a.points_per_consumer_point.end(),
                                     [](int64_t n) { return n > 0; });
}

class KernelBuilder {
public:
  KernelBuilder(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu, int root, int stage)
      : dag_(dag), state_(state), gpu_(gpu), root_(root), stage_(stage) {}

  KernelModel build() {
    register_tile_ = stage_ + 1 == int(state_.decisions[root_].tilings.size()) ? register_tile_reduction(dag_, root_) : -1;
    KernelModel km;
    km.root = root_;
    km.stage = stage_;
    const StageTiling &tiling = state_.decisions[root_].tilings.at(stage_);
    km.tiling = &tiling;
    km.blocks = double(tiling.single_thread ? 1 : tiling.blocks());
    km.threads_per_block = double(tiling.single_thread ? 1 : tiling.threads_per_block());

    unrolled_root_ = root_unrolled(tiling);
    const int per_point = partial_loop_per_point(tiling, dag_.funcs[root_].stages[stage_]);
    if (per_point >= 0 && per_point == tiling.innermost_thread_loop()) partials_thread_loop_ = tiling.vars[size_t(per_point)];
    unrolls_in_thread_ = unrolls_in_thread_loops(dag_, state_, root_, stage_);
    km.guarded_block_fraction = guarded_fraction_ = guarded_block_fraction(tiling);
    follows_.assign(dag_.funcs.size(), {});
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (!tiling.single_thread && tiling.in_thread[i]) follows_[size_t(root_)][tiling.vars[i]] = {tiling.vars[i]};
    phases_ = folded_phases(dag_, state_, root_, stage_);
    if (auto own = phases_.masks.find(root_); own != phases_.masks.end()) {
      const StageNode &s = dag_.funcs[root_].stages[stage_];
      const unsigned mask = own->second;
      for (size_t k = 0; k < s.phase_loops.size(); k++)
        if ((mask & (1u << k)) && s.phase_loops[k].by_value) folded_by_value_.insert(s.phase_loops[k].var);
    }
    per_thread_ = propagate(tiling, /*per_thread=*/true, km);
    std::vector<FuncInKernel> per_block = propagate(tiling, /*per_thread=*/false, km);
    // A mirrored boundary condition (FuncNode::mirrors_at_boundary, e.g. mirror_interior): outside
    // the image, the index reflected through abs() and %; inside, a clamp marked likely(). Computed in a
    // Func per GPU block (itself or inlined into it), Halide 14's CUDA code computed wrong values
    // where every CPU twin was exact: random pipelines 400151, 500092 (a walk each; right with the
    // boundary condition at root) and 500064 (the beam: 2,326 of 4 M values), on the H200. No
    // schedule of those Funcs (rows not unrolled, RoundUp tails) made all three right; at root, or
    // inlined into a kernel's own stage, they are.
    for (size_t f = 0; f < per_block.size(); f++)
      if (per_block[f].reached && per_block[f].in_block_func && dag_.funcs[f].mirrors_at_boundary) {
        km.valid = false;
        km.invalid_reason = "a mirrored boundary condition computed in a Func per GPU block";
      }
    // A block touches no more distinct elements than its loads read. Only a footprint guessed
    // too large meets this bound: a read through a boundary condition or a gather whose window
    // is unknown counts the whole producer per block (the mirror_interior kernels of the H200
    // dataset: 1.3e8 bytes per block, predicted 4,344 ms, measured 0.13 ms).
    for (GlobalRead &g : km.global_reads) g.footprint_per_block = std::min(g.footprint_per_block, std::max(1.0, g.loads_per_block));
    summarize(tiling, per_block, per_thread_, km);
    mark_sibling_reads(km);
    return km;
  }

private:
  // Computed with a sibling (FuncDecision::computed_with): what both read from global memory. If
  // this kernel reads a producer from memory, the producer is inlined into neither, and the
  // sibling reads it from memory too wherever it reads it directly.
  void mark_sibling_reads(KernelModel &km) const {
    km.computed_with = state_.decisions[root_].computed_with;
    if (km.computed_with < 0) return;
    std::set<std::string> sibling_reads;
    for (const StageNode &s : dag_.funcs[size_t(km.computed_with)].stages)
      for (const ProducerAccess &a : s.accesses) sibling_reads.insert(a.producer);
    for (GlobalRead &g : km.global_reads) g.read_by_sibling = sibling_reads.count(g.name) > 0;
  }

  // GuardWithIf tails of register blocking: Halide splits the block loop of a loop run as
  // unrolled points per thread into full tiles and a tail, and compiles the tail's blocks as a
  // copy of the kernel where each unrolled point sits in an `if` of its own. There no load is
  // shared between points (each point reloads what its neighbours read) and each point branches.
  // The fraction of blocks that run that copy: those with a partial tile along any such loop.
  // A tile longer than the loop's extent makes every block a tail (conv_layer's 64 columns per
  // block over 56: 120 loads and 158 branches per 96 multiply-adds in the PTX of the copy that
  // ran, 22 loads and 1 branch in the unused one; measured 4.5 ms on the H200, docs/PERFORMANCE.md).
  static double guarded_block_fraction(const StageTiling &tiling) {
    if (tiling.single_thread || tiling.atomic || tiling.privatized) return 0;
    double full_tiles = 1;
    for (size_t i = 0; i < tiling.vars.size(); i++) {
      // Row loops of a pure stage shift their last rows inwards: no guarded copy.
      if (!tiling.tiled(i) || tiling.serial[i] <= 1 || tiling.row_loop(i)) continue;
      const double extent = double(std::max<int64_t>(1, tiling.extents[i])), tile = double(tiling.tile(i));
      full_tiles *= std::floor(extent / tile) / std::ceil(extent / tile);
    }
    return 1.0 - full_tiles;
  }

  // Extent of each loop of the root stage per block (or per thread).
  std::map<std::string, double> root_loop_extents(const StageTiling &tiling, bool per_thread) const {
    const StageNode &stage = dag_.funcs[root_].stages[stage_];
    std::map<std::string, double> extent;
    for (const LoopDim &loop : stage.loops) extent[loop.var] = double(std::max<int64_t>(1, loop.estimate.extent()));
    if (tiling.single_thread) return extent;
    for (size_t i = 0; i < tiling.vars.size(); i++) {
      double e;
      if (tiling.in_thread[i]) e = double(tiling.extents[i]);
      else if (per_thread) e = double(tiling.serial[i]);
      else e = double(tiling.tiled(i) ? tiling.tile(i) : 1);
      extent[tiling.vars[i]] = std::min(e, double(std::max<int64_t>(1, tiling.extents[i])));
    }
    return extent;
  }

  std::vector<FuncInKernel> propagate(const StageTiling &tiling, bool per_thread, KernelModel &km) {
    std::vector<FuncInKernel> info(dag_.funcs.size());
    const FuncNode &root = dag_.funcs[root_];
    std::map<std::string, double> extents = root_loop_extents(tiling, per_thread);
    set_slabs(tiling, extents);
    FuncInKernel &r = info[root_];
    r.reached = true;
    r.evals = 1;
    for (const auto &[var, e] : extents) r.evals *= e;
    r.box.resize(root.args.size(), 1);
    r.paths = identity_paths(root.args);
    for (size_t d = 0; d < root.args.size(); d++)
      if (extents.count(root.args[d])) r.box[d] = extents[root.args[d]];
    int inner = tiling.single_thread ? -1 : tiling.innermost_thread_loop();
    // Consecutive points per thread along the coalescing loop: neighbouring threads are that
    // many points apart.
    if (inner >= 0)
      for (size_t d = 0; d < root.args.size(); d++)
        if (root.args[d] == tiling.vars[inner]) r.stride = {int(d), double(tiling.serial[inner])};

    visit_stage(root_, root.stages[stage_], extents, r.evals, unrolled_root_ ? &*unrolled_root_ : nullptr, info,
                per_thread, km);
    // The block as Funcs fused per block shape it, consumers first (charge_idle_lanes).
    std::vector<double> block_shape, root_threads;
    root_block(tiling, block_shape, root_threads);
    for (int c = root_ - 1; c >= 0; c--) {
      if (!info[c].reached) continue;
      const FuncNode &f = dag_.funcs[c];
      if (f.stages.empty()) continue;
      const FuncDecision &decision = state_.decisions[c];
      if (decision.level == ComputeLevel::Inline) {
        // Unrolled points of the kernel that read one point of an inlined Func compute it once:
        // the compiler merges the copies' common subexpressions once their loads are merged
        // (distinct_per_pass). Harris's 4 rows per thread of 3x3 box sums of products compute
        // 6 rows of products, not 12.
        if (const Unrolled *passes = per_thread ? nullptr : inlined_passes(c)) {
          const double merged = std::min(info[c].evals_in_passes, points_of(passes->extents) * passes->passes_per_block);
          info[c].evals = info[c].evals - info[c].evals_in_passes + merged;
          info[c].evals_in_passes = merged;
        }
        visit_stage(c, f.stages[0], stage_loop_extents(f, 0, info[c].box), info[c].evals, nullptr, info, per_thread, km);
        continue;
      }
      // Fused Funcs are computed once per point of their box (with recompute at borders), every
      // stage of it: an update runs its reduction loops whole for each point.
      // A Func fused per slab covers its box once per slab of the kernel's reduction loop.
      info[c].evals = repeats(c);
      for (double e : info[c].box) info[c].evals *= e;
      std::optional<BlockFusedLayout> layout;
      if (decision.level == ComputeLevel::Block && !per_thread) {
        layout = block_fused_layout(info[c].box, block_shape, root_threads, gpu_.max_threads_per_block, rows_round_up(f));
        block_shape = layout->block_shape;
      }
      for (const StageNode &s : f.stages) {
        const std::map<std::string, double> extents_s = stage_loop_extents(f, s.index, info[c].box);
        std::optional<Unrolled> unrolled;
        if (decision.level == ComputeLevel::Thread && !per_thread && in_registers(c)) unrolled = thread_fused_unrolled(c, s);
        if (layout && s.index == 0)
          unrolled = block_fused_unrolled(c, *layout, points_of(extents_s) * repeats(c),
                                          unrolls_block_fused_rows(dag_, state_, c));
        // Computed per thread with a halo, each thread covers its own box: a block computes (and
        // loads for) threads x the per-thread box, not its own box once (unsharp's blur_x per
        // thread over 3 rows re-reads 7 rows of gray per thread).
        double evals = points_of(extents_s) * repeats(c);
        if (decision.level == ComputeLevel::Thread && !per_thread && has_thread_halo(c))
          evals = std::max(evals, points_of(stage_loop_extents(f, s.index, per_thread_[c].box)) * tiling_threads());
        visit_stage(c, s, extents_s, evals, unrolled ? &*unrolled : nullptr, info, per_thread, km);
      }
    }
    return info;
  }

  // Whether Func `c`, computed per thread, covers more points per thread than the kernel's own
  // stage computes there (a halo that neighbouring threads recompute).
  bool has_thread_halo(int c) const {
    double box = 1;
    for (double e : per_thread_[c].box) box *= e;
    return box > double(state_.decisions[root_].tilings.at(stage_).points_per_thread());
  }

  // A staged reduction (StageTiling::slab): its outermost reduction loop runs in slabs; a Func
  // fused per slab covers what one slab of the kernel's loops reads (`slab_extents_`), once per
  // slab (`slabs_` times per block).
  void set_slabs(const StageTiling &tiling, const std::map<std::string, double> &extents) {
    slabs_ = 1;
    slab_extents_.clear();
    if (tiling.slab <= 0) return;
    std::string outermost;
    for (const LoopDim &loop : dag_.funcs[root_].stages[stage_].loops)
      if (loop.is_rvar) outermost = loop.var;
    if (outermost.empty() || !extents.count(outermost)) return;
    const double extent = extents.at(outermost);
    slabs_ = std::ceil(extent / double(tiling.slab));
    slab_extents_ = extents;
    slab_extents_[outermost] = std::min(extent, double(tiling.slab));
  }

  bool per_slab(int c) const {
    return c >= 0 && c != root_ && state_.decided[c] && state_.decisions[c].level == ComputeLevel::Block &&
           state_.decisions[c].per_slab && !slab_extents_.empty();
  }
  double repeats(int c) const { return per_slab(c) ? slabs_ : 1.0; }

  // A stage's loop extents when its pure loops cover `box` (the rest at their full extent).
  std::map<std::string, double> stage_loop_extents(const FuncNode &f, int stage, const std::vector<double> &box) const {
    std::map<std::string, double> extent;
    for (const LoopDim &loop : f.stages[stage].loops) extent[loop.var] = double(std::max<int64_t>(1, loop.estimate.extent()));
    for (size_t d = 0; d < f.args.size() && d < box.size(); d++)
      if (extent.count(f.args[d]) || stage == 0) extent[f.args[d]] = box[d];
    return extent;
  }

  static double points_of(const std::map<std::string, double> &extents) {
    double n = 1;
    for (const auto &[var, e] : extents) n *= e;
    return n;
  }

  // Register blocking: the loops a thread runs unrolled, where the compiler loads each distinct
  // address once per pass through them (the same value serves every unrolled point that reads
  // it), and how many such passes a block makes.
  struct Unrolled {
    std::map<std::string, double> extents;  ///< per pass: unrolled loops, the others at 1
    double passes_per_block = 1;
    int inlined_depth = 0;  ///< inlined_passes_: calls between the kernel's stage and this Func
  };
  /// How deep through inlined Funcs the unrolled copies' common subexpressions are counted as
  /// merged. Deeper chains stay counted per call: many_stages' 120-stage DAG, its chains inlined
  /// under 8 unrolled rows, took Halide 14 six minutes to compile (25 s with this limit); harris
  /// needs 4 (its output, det, Sxy, Ixy).
  static constexpr int kMergedInliningDepth = 4;

  // The root stage: its points per thread along tiled loops are unrolled (state_to_spec), with
  // nothing between them when the stage has no reduction or in-thread loop inside them.
  std::optional<Unrolled> root_unrolled(const StageTiling &tiling) const {
    const StageNode &stage = dag_.funcs[root_].stages[stage_];
    if (tiling.single_thread || tiling.atomic || tiling.privatized || stage.has_rvars()) return std::nullopt;
    if (tiling.has_in_thread_loop()) return std::nullopt;
    Unrolled u;
    for (const LoopDim &loop : stage.loops) u.extents[loop.var] = 1;
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (tiling.tiled(i)) u.extents[tiling.vars[i]] = double(tiling.serial[i]);
    u.passes_per_block = double(tiling.threads_per_block());
    return u;
  }

  // A Func computed per thread: its pure loops over the thread's box are unrolled, inside its
  // reduction loops (state_to_spec), so each reduction step loads what the box needs once. The
  // innermost reduction loops' few taps (unrolled_tap_loops) are unrolled with them: a 3x3
  // convolution's 4 columns per thread read 6 input columns per row of taps, not 4 per tap.
  Unrolled thread_fused_unrolled(int c, const StageNode &s) const {
    const FuncNode &f = dag_.funcs[c];
    Unrolled u;
    u.passes_per_block = double(tiling_threads());
    const std::vector<int64_t> taps = unrolled_tap_loops(s);
    size_t k = 0;  // the reduction loop's position, innermost first
    for (const LoopDim &loop : s.loops) {
      if (loop.is_rvar) {
        const double extent = double(std::max<int64_t>(1, loop.estimate.extent()));
        const double unrolled = k < taps.size() ? double(taps[k]) : 1.0;
        u.extents[loop.var] = unrolled;
        u.passes_per_block *= std::ceil(extent / unrolled);
        k++;
      }
    }
    const std::vector<double> &box = per_thread_[c].box;
    for (size_t d = 0; d < f.args.size(); d++) u.extents[f.args[d]] = d < box.size() ? box[d] : 1.0;
    return u;
  }

  // A Func fused per block: the points each thread computes unrolled (its rows and its third
  // dimension's points, block_fused_layout) load what they share once, as a root's points per
  // thread do. nullopt where each thread computes one point at a time.
  std::optional<Unrolled> block_fused_unrolled(int c, const BlockFusedLayout &layout, double evals,
                                               bool rows_unrolled) const {
    const FuncNode &f = dag_.funcs[size_t(c)];
    Unrolled u;
    for (const LoopDim &loop : f.stages[0].loops) u.extents[loop.var] = 1;
    double per_pass = 1;
    for (size_t k = 0; k < layout.dims.size() && rows_unrolled; k++) {
      u.extents[f.args[layout.dims[k]]] = double(layout.rows[k]);
      per_pass *= double(layout.rows[k]);
    }
    if (layout.inner_dim >= 0) {
      u.extents[f.args[size_t(layout.inner_dim)]] = double(layout.inner_points);
      per_pass *= double(layout.inner_points);
    }
    if (per_pass <= 1) return std::nullopt;
    u.passes_per_block = std::ceil(evals / per_pass);
    return u;
  }

  // Per dimension of Func `c` (read by translations), the loop of the kernel's stage whose
  // position it follows: "" when none (a constant index), "*" when it cannot be told (several
  // loops, or consumers that disagree).
  std::vector<std::string> root_loops_of(int c, int depth = 0) const {
    const FuncNode &f = dag_.funcs[c];
    if (c == root_) return f.args;
    if (depth > 64) return std::vector<std::string>(f.args.size(), "*");
    if (auto known = root_loops_.find(c); known != root_loops_.end()) return known->second;
    std::vector<std::string> loops(f.args.size(), "?");
    for (const std::string &name : f.consumers) {
      const int consumer = dag_.index_of(name);
      if (consumer < 0 || (consumer != root_ && !computed_here(consumer))) continue;
      const FuncNode &cf = dag_.funcs[consumer];
      const std::vector<std::string> consumer_loops = root_loops_of(consumer, depth + 1);
      for (const StageNode &s : cf.stages)
        for (const ProducerAccess &a : s.accesses) {
          if (a.producer != f.name) continue;
          for (size_t d = 0; d < loops.size() && d < a.region_min.size(); d++) {
            std::string loop;
            for (const auto &[var, coef] : a.region_min[d].coefficients) {
              if (coef == 0) continue;
              const auto at = std::find(cf.args.begin(), cf.args.end(), var);
              const std::string follows = at == cf.args.end() ? "*" : consumer_loops[size_t(at - cf.args.begin())];
              loop = loop.empty() ? follows : "*";
            }
            loops[d] = loops[d] == "?" || loops[d] == loop ? loop : "*";
          }
        }
    }
    for (std::string &l : loops)
      if (l == "?") l.clear();
    root_loops_[c] = loops;
    return loops;
  }

  // Every loop of the root stage inside a thread runs unrolled: its points per thread or, where
  // state_to_spec unrolls them, its in-thread loops (bgu's output: 3 channels of a pixel read its
  // 12 per-pixel model coefficients, computed per thread, as registers).
  bool thread_loops_unrolled(const StageTiling &tiling) const {
    if (unrolled_root_.has_value()) return true;
    return unrolls_in_thread_ && !tiling.atomic && !tiling.privatized && !dag_.funcs[root_].stages[stage_].has_rvars();
  }

  // A Func computed per thread lives in registers when every access to it is at a constant index
  // once unrolled: the kernel's loops inside each thread are unrolled (thread_loops_unrolled),
  // and it is read at translations of them.
  bool in_registers(int c) const {
    const StageTiling &tiling = state_.decisions[root_].tilings.at(stage_);
    if (!thread_loops_unrolled(tiling) || !read_by_translations(c)) return false;
    // Points per thread along a loop end in a GuardWithIf tail, which clamps the per-thread
    // region to the kernel's own region: for an output that is its buffer's extent and Halide
    // bounds the clamp by a constant, but an intermediate's region is whatever its consumers
    // need, and Halide could not bound it (random pipeline 3044: "Can only unroll for loops
    // over a constant extent"). So intermediates keep fused Funcs in registers only with one
    // point per thread.
    const bool rows_per_thread =
        std::any_of(tiling.serial.begin(), tiling.serial.end(), [](int64_t s) { return s > 1; });
    if (rows_per_thread && !dag_.funcs[root_].is_output) return false;
    // Nor where those points are a whole block's extent along their loop (one thread along it):
    // Halide 14 then could not bound the region even of an output's fused Func (camera_pipe's
    // demosaiced over 256x1 threads of 3 rows; channel_models_small in the tests).
    // A row loop (StageTiling::row_loop) is split outside gpu_tile, so Halide bounds it as it
    // bounds rows per thread; a register tile reduction takes it (its region is the thread's tile).
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (tiling.tiled(i) && tiling.serial[i] > 1 && tiling.threads[i] == 1 &&
          !(tiling.row_loop(i) && c == register_tile_))
        return false;
    // Even in an output, Halide 14 bounds the tail only of rows per thread: with points per
    // thread along x or in two dimensions it could not bound the fused Func's per-thread region
    // ("unable to infer constant upper bound on extent of realization": random pipelines 3080,
    // 3160s and 1018's walk 4).
    // Not so for a register tile reduction (register_tile_reduction): read only at the kernel's
    // own points, its per-thread region is the thread's tile, which Halide 14 bounds (checked on
    // conv_layer and mat_mul with 4x4 tiles: their accumulators in registers, no local memory).
    const int blocked_loops = int(std::count_if(tiling.serial.begin(), tiling.serial.end(), [](int64_t s) { return s > 1; }));
    const bool blocked_in_x = !tiling.serial.empty() && tiling.serial[0] > 1;
    if ((blocked_loops > 1 || blocked_in_x) && c != register_tile_) return false;
    const std::vector<std::string> loops = root_loops_of(c);
    if (std::find(loops.begin(), loops.end(), "*") != loops.end()) return false;
    // An in-thread loop ends in a GuardWithIf tail too (split by its estimated extent): a Func
    // that follows it would have its per-thread extent clamped there, which Halide cannot bound
    // by a constant (as for an intermediate's rows above). bgu's sliced models and
    // channel_models_small's model follow no channel loop. Where the loop runs over a region
    // known when the pipeline compiles (pinned_loop), the thread holds all of it, and the
    // schedule states the extent (bound_extent): bgu's splat, its 22 sums per grid cell.
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (tiling.in_thread[i] && std::find(loops.begin(), loops.end(), tiling.vars[i]) != loops.end() &&
          !pinned_loop(tiling, i))
        return false;
    return true;
  }

  // An in-thread loop of the kernel's stage over a whole dim of the root whose region is the same
  // whatever the pipeline's sizes (FuncNode::constant_dims): no tail, every thread runs it whole.
  bool pinned_loop(const StageTiling &tiling, size_t i) const {
    const FuncNode &root = dag_.funcs[root_];
    if (!tiling.in_thread[i] || stage_ != 0) return false;
    const auto arg = std::find(root.args.begin(), root.args.end(), tiling.vars[i]);
    if (arg == root.args.end()) return false;
    const size_t d = size_t(arg - root.args.begin());
    return d < root.constant_dims.size() && root.constant_dims[d] && d < root.region.size() &&
           root.region[d].extent() == tiling.extents[i];
  }

  // A reduction fused per thread in registers runs its updates' points unrolled inside every
  // reduction step; over a constant dim whose whole region each thread holds (pinned_loop), the
  // copies share what does not depend on it (StageNode::unrolled_jointly), or nullptr.
  const FoldedStage *unrolled_jointly(int c, const StageNode &stage) const {
    if (c == root_ || stage.index == 0 || stage.unrolled_jointly.empty()) return nullptr;
    if (state_.decisions[size_t(c)].level != ComputeLevel::Thread || size_t(c) >= per_thread_.size()) return nullptr;
    const FuncNode &f = dag_.funcs[size_t(c)];
    const std::vector<double> &box = per_thread_[size_t(c)].box;
    const FoldedStage *found = nullptr;
    for (size_t d = 0; d < f.args.size() && d < box.size(); d++) {
      if (box[d] <= 1) continue;
      auto it = stage.unrolled_jointly.find(f.args[d]);
      if (found || it == stage.unrolled_jointly.end() || double(it->second.phases) != box[d]) return nullptr;
      found = &it->second;
    }
    return found && in_registers(c) ? found : nullptr;
  }

  static bool is_block_loop(const StageTiling &tiling, const std::string &var) {
    for (size_t i = 0; i < tiling.vars.size(); i++)
      if (tiling.vars[i] == var) return !tiling.tiled(i) && !tiling.in_thread[i];
    return false;
  }

  // Whether every read of Func `c` on its way to the kernel's stage (through inlined Funcs) is at
  // the reader's point plus a constant: then Halide can bound its per-thread storage by a
  // constant, which registers need (a downsample's x/2 leaves the size symbolic).
  bool read_by_translations(int c, int depth = 0) const {
    if (c == root_) return true;
    if (depth > 64) return false;
    // Memoized: Funcs inlined into one another can reach the kernel's stage by many paths.
    if (auto known = translations_.find(c); known != translations_.end()) return known->second;
    const bool result = reads_are_translations(c, depth);
    translations_[c] = result;
    return result;
  }

  bool reads_are_translations(int c, int depth) const {
    const FuncNode &f = dag_.funcs[c];
    for (const std::string &name : f.consumers) {
      const int consumer = dag_.index_of(name);
      if (consumer < 0 || (consumer != root_ && !computed_here(consumer))) continue;
      for (const StageNode &s : dag_.funcs[consumer].stages)
        for (const ProducerAccess &a : s.accesses) {
          if (a.producer != f.name) continue;
          if (!a.is_affine) return false;
          for (const std::vector<AffineExpr> *bounds : {&a.region_min, &a.region_max})
            for (const AffineExpr &e : *bounds)
              for (const auto &[var, coef] : e.coefficients)
                if (coef != 0 && coef != 1 && coef != -1) return false;
        }
      if (!read_by_translations(consumer, depth + 1)) return false;
    }
    return true;
  }

  double tiling_threads() const {
    const StageTiling &t = state_.decisions[root_].tilings.at(stage_);
    return t.single_thread ? 1.0 : double(t.threads_per_block());
  }

  bool computed_here(int p) const {
    if (p < 0 || !state_.decided[p]) return false;
    const FuncDecision &d = state_.decisions[p];
    // Inlined into this kernel, not merely inlined somewhere: random pipeline 710034's down_5
    // was costed differently as a sibling Func was inlined into another kernel or not.
    if (d.level == ComputeLevel::Inline) return reached_inline(p);
    return (d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread) && d.kernel_root == root_;
  }

  // Whether inlined Func `p` is called from the root or from a Func computed in this kernel.
  bool reached_inline(int p) const {
    if (inlined_here_.empty()) {
      inlined_here_.assign(dag_.funcs.size(), false);
      for (int f : funcs_in_kernel(dag_, state_, root_))
        if (f != root_) inlined_here_[size_t(f)] = state_.decisions[f].level == ComputeLevel::Inline;
    }
    return inlined_here_[size_t(p)];
  }

  // The kernel's in-thread loops (StageTiling::in_thread: run unrolled) that coordinate `dim` of
  // access `a` from Func `c` follows, through c's own coordinates (follows_); all of c's where the
  // index is not affine.
  std::set<std::string> loops_followed(int c, const ProducerAccess &a, size_t dim) const {
    std::set<std::string> out;
    const std::map<std::string, std::set<std::string>> &mine = follows_[size_t(c)];
    for (const AffineExpr *b : {&a.region_min[dim], &a.region_max[dim]}) {
      if (!b->is_affine) {
        for (const auto &[var, loops] : mine) out.insert(loops.begin(), loops.end());
        return out;
      }
      for (const auto &[var, k] : b->coefficients) {
        auto it = mine.find(var);
        if (k != 0 && it != mine.end()) out.insert(it->second.begin(), it->second.end());
      }
    }
    return out;
  }

  // How many iterations of the kernel's in-thread loops read the same value through access `a`
  // of Func `c`: the product of the extents of those loops c's point follows and the access does
  // not. The unrolled copies' common subexpressions are computed and loaded once per thread: the
  // kernel's own reads (unsharp's per-pixel ratio for its three channels) and those of Funcs
  // inlined into it (camera_pipe's corrected reads demosaiced(x, y, 0..2) for each channel).
  // Not unrolled (a boundary condition read in the stage, unrolls_in_thread_loops), the loop
  // still shares them: Halide hoists what does not depend on it out of the loop (local_laplacian's
  // output, its channels a loop around the clamped input, read its 3-channel-invariant
  // out_g_pyr_0 once per pixel; charged once per channel, the search kept the clamp in a kernel
  // of its own, 0.016 ms of 0.33 that its manual schedule does not spend).
  double shared_across_in_thread_loops(int c, const ProducerAccess &a) const {
    const StageTiling &t = state_.decisions[root_].tilings.at(stage_);
    if (t.single_thread || !t.has_in_thread_loop()) return 1;
    std::set<std::string> own, followed;
    for (const auto &[var, loops] : follows_[size_t(c)]) own.insert(loops.begin(), loops.end());
    for (size_t d = 0; d < a.region_min.size(); d++) {
      const std::set<std::string> f = loops_followed(c, a, d);
      followed.insert(f.begin(), f.end());
    }
    double shared = 1;
    for (size_t i = 0; i < t.vars.size(); i++)
      // A loop folded by value: its copies' calls are already counted per copy (phases_).
      if (t.in_thread[i] && own.count(t.vars[i]) && !followed.count(t.vars[i]) && !folded_by_value_.count(t.vars[i]))
        shared *= double(std::max<int64_t>(1, t.extents[i]));
    return shared;
  }

  // Records which in-thread loops a Func inlined into the kernel follows, from a call to it.
  void note_inlined_coordinates(int c, const ProducerAccess &a, int p) {
    const FuncNode &producer = dag_.funcs[size_t(p)];
    for (size_t d = 0; d < producer.args.size() && d < a.region_min.size(); d++) {
      const std::set<std::string> f = loops_followed(c, a, d);
      follows_[size_t(p)][producer.args[d]].insert(f.begin(), f.end());
    }
  }

  // Func `c`'s stage's counts with the phases it folds in this kernel (cost/folded_phases.h; a
  // Func fused per block: block_fused_folded_phases over its box), or nullptr.
  const FoldedStage *folded_counts(int c, const StageNode &stage, const std::vector<double> &box) const {
    if (stage.index != 0) return nullptr;
    const FuncDecision &d = state_.decisions[c];
    if (c != root_ && d.level == ComputeLevel::Block) {
      const unsigned mask = block_fused_folded_phases(dag_.funcs[c], box);
      return mask ? &stage.folded.at(mask) : nullptr;
    }
    if (c != root_ && d.level != ComputeLevel::Inline) return nullptr;
    return phases_.counts(dag_, c);
  }

  // Call sites of access `a` per point of Func `c`'s stage: with its phases known in the kernel
  // (the kernel's own stage, a Func inlined into it), the average phase's.
  double calls_per_point(int c, const ProducerAccess &a, const StageNode &stage, const std::vector<double> &box) const {
    const FoldedStage *folded = folded_counts(c, stage, box);
    if (!folded) folded = unrolled_jointly(c, stage);
    if (!folded) return double(a.calls_per_point);
    auto it = folded->calls_total.find(a.producer);
    return it == folded->calls_total.end() ? 0.0 : double(it->second) / double(folded->phases);
  }

  // Records what one stage of Func `c`, evaluated `evals` times per block (or thread) over loops
  // of `loop_extent`, reads. With `unrolled`, global loads count distinct addresses per unrolled
  // pass instead of one per call.
  void visit_stage(int c, const StageNode &stage, const std::map<std::string, double> &loop_extent, double evals,
                   const Unrolled *unrolled, std::vector<FuncInKernel> &info, bool per_thread, KernelModel &km) {
    const FuncNode &consumer = dag_.funcs[c];
    if (unrolled && !per_thread) guard_branches_per_block_ += guarded_fraction_ * evals;
    std::string thread_var;
    double thread_step = info[c].stride.coef;
    if (info[c].stride.dim >= 0 && info[c].stride.dim < int(consumer.args.size()))
      thread_var = consumer.args[info[c].stride.dim];
    else if (c == root_ && !partials_thread_loop_.empty()) {
      // Partial results per point: consecutive threads take consecutive iterations of the loop.
      thread_var = partials_thread_loop_;
      thread_step = 1;
    }
    for (const ProducerAccess &a : stage.accesses) {
      const int p = dag_.index_of(a.producer);
      if (p == c && c != root_) continue;  // a fused reduction's accumulator: registers or shared memory
      // The kernel's loops that run whole in each thread (unrolled: a few channels) share what
      // does not follow them: the unrolled copies' common subexpressions are computed and loaded
      // once per thread (unsharp's per-pixel ratio for its three channels).
      const bool inlined_here = p >= 0 && p != c && state_.decided[size_t(p)] &&
                                state_.decisions[size_t(p)].level == ComputeLevel::Inline;
      const bool shares = c == root_ || state_.decisions[size_t(c)].level == ComputeLevel::Inline;
      const double loads = evals * calls_per_point(c, a, stage, info[c].box) / (shares ? shared_across_in_thread_loops(c, a) : 1.0);
      if (inlined_here && shares) note_inlined_coordinates(c, a, p);
      // A boundary condition in the kernel's own stage or a Func inlined into it (charge_join_spills).
      if (!per_thread && reads_clamped_window(a) && (c == root_ || state_.decisions[c].level == ComputeLevel::Inline))
        reads_through_clamp_ = true;
      // The kernel's stage reads a Func fused per slab: its box is one slab's.
      const std::map<std::string, double> &extents = c == root_ && per_slab(p) ? slab_extents_ : loop_extent;
      std::vector<double> box(a.region_min.size());
      double footprint = repeats(c);  // a Func computed per slab reads its producers once per slab
      for (size_t d = 0; d < box.size(); d++) {
        box[d] = region_extent(a, d, extents, full_extent_of(dag_, a.producer, d));
        footprint *= box[d];
      }
      ThreadStride stride;
      if (!thread_var.empty())
        for (size_t d = 0; d < a.region_min.size(); d++) {
          // Through a clamp, the coefficients inside it: a boundary condition's reads coalesce
          // as its index does away from the edges (a transposed read through repeat_edge, taken
          // for a broadcast, was priced 17x under its 0.19 ms on the H200: random pipeline 710015).
          const AffineExpr &lo = a.region_min[d];
          const std::map<std::string, double> &coefficients = lo.is_affine ? lo.coefficients : lo.clamped_coefficients;
          auto it = coefficients.find(thread_var);
          if ((lo.is_affine || lo.clamped_affine) && it != coefficients.end() && it->second != 0) {
            stride = {int(d), thread_step * it->second};
            break;
          }
        }
      if (p != c && computed_here(p)) {
        FuncInKernel &pi = info[p];
        const ComputeLevel level_p = state_.decisions[size_t(p)].level;
        pi.in_block_func = pi.in_block_func || level_p == ComputeLevel::Block ||
                           (level_p == ComputeLevel::Inline && c != root_ && info[c].in_block_func);
        pi.divided_unevenly = pi.divided_unevenly || a.divides_unevenly || (c != root_ && info[c].divided_unevenly);
        const std::vector<DimPaths> via = compose_paths(consumer, c == root_, info[c].paths, a);
        if (pi.paths.size() < via.size()) pi.paths.resize(via.size());
        for (size_t d = 0; d < via.size(); d++) pi.paths[d].merge(via[d]);
        // Stored per block or thread, a Func read along paths that drift apart from block to
        // block is allocated the box of the farthest block (cost/coordinate_paths.h).
        if (state_.decisions[p].level != ComputeLevel::Inline)
          for (size_t d = 0; d < box.size() && d < pi.paths.size(); d++)
            if (pi.paths[d].drifts()) box[d] = full_extent_of(dag_, a.producer, d);
        if (pi.box.size() < box.size()) pi.box.resize(box.size(), 0);
        for (size_t d = 0; d < box.size(); d++) pi.box[d] = std::max(pi.box[d], box[d]);
        if (state_.decisions[p].level == ComputeLevel::Inline) pi.evals += loads;
        if (!pi.reached || pi.stride.dim < 0) pi.stride = stride;
        pi.reached = true;
        // Unrolled points of the kernel's stage load each distinct shared-memory address once per
        // pass, as they do global ones (harris's 4 rows per thread over its 3x3 box sums of
        // products of Ix and Iy per block: 36 shared loads per point as written, 9 issued).
        // The same holds for Funcs inlined into those points (inlined_passes_), whose coordinates
        // per pass follow from their callers'.
        // A Func in registers (thread_fused_unrolled) or per block over unrolled points
        // (block_fused_unrolled) shares its unrolled points' loads too, but of inlined Funcs only
        // copies: inlining arithmetic into such a tile was measured slower than the model's merged
        // count said (unsharp's ratio per thread, 0.0772 ms for 0.0423 predicted on the H200,
        // docs/PERFORMANCE.md run C), and under a per-block Func's unrolled rows it chose
        // pyramid_small's whole chain of up- and downsamplings, which Halide 14 took minutes to
        // compile.
        const Unrolled *passes = c == root_ ? unrolled : inlined_passes(c);
        if (!passes && unrolled && (state_.decisions[p].level == ComputeLevel::Block || is_copy(dag_.funcs[size_t(p)])))
          passes = unrolled;
        double issued = loads;
        if (passes && !per_thread && state_.decisions[p].level == ComputeLevel::Block) {
          issued = std::min(loads, distinct_per_pass(a, *passes));
          issued += guarded_fraction_ * (loads - issued);  // guarded tail blocks load per point
        }
        if (passes && !per_thread && state_.decisions[p].level == ComputeLevel::Inline &&
            passes->inlined_depth < kMergedInliningDepth) {
          // Of an inlined caller's calls, those made from its own passes.
          const bool caller_inlined = c != root_ && state_.decisions[size_t(c)].level == ComputeLevel::Inline;
          pi.evals_in_passes += caller_inlined && info[c].evals > 0 ? loads * info[c].evals_in_passes / info[c].evals : loads;
          Unrolled &mine = inlined_passes_[p];
          mine.passes_per_block = passes->passes_per_block;
          mine.inlined_depth = std::max(mine.inlined_depth, passes->inlined_depth + 1);
          const FuncNode &producer = dag_.funcs[size_t(p)];
          for (size_t d = 0; d < producer.args.size() && d < a.region_min.size(); d++) {
            double &e = mine.extents[producer.args[d]];
            e = std::max(e, region_extent(a, d, passes->extents, full_extent_of(dag_, a.producer, d)));
          }
        }
        if (!per_thread && state_.decisions[p].level != ComputeLevel::Inline) fused_loads_[p] += issued;
        // An inlined Func is substituted, not loaded, and a Func in registers has no address:
        // only shared-memory loads compute one.
        if (!per_thread && state_.decisions[p].level == ComputeLevel::Block) address_ops_per_block_ += 2.0 * issued;
        if (!per_thread && state_.decisions[p].level == ComputeLevel::Block && stride.dim == 0)
          bank_conflicts_[p] = std::max(bank_conflicts_[p], std::fabs(stride.coef) >= 2 ? std::fabs(stride.coef) : 1.0);
        if (!per_thread && state_.decisions[p].level == ComputeLevel::Block && stride.dim == 1)
          row_steps_[p] = std::max(row_steps_[p], std::fabs(stride.coef));
        continue;
      }
      if (per_thread) continue;
      // A global read: a Func stored at root (or not decided yet), an input, or the Func itself.
      GlobalRead *read = nullptr;
      for (GlobalRead &g : km.global_reads)
        if (g.name == a.producer) read = &g;
      if (!read) {
        km.global_reads.push_back(GlobalRead{a.producer, bytes_of(dag_, a.producer)});
        read = &km.global_reads.back();
        read->coalescing_efficiency = 1;
        read->sector_efficiency = 1;
        read->full_region = 1;
        for (size_t d = 0; d < box.size(); d++) read->full_region *= full_extent_of(dag_, a.producer, d);
      }
      read->footprint_per_block = std::max(read->footprint_per_block, footprint);
      double issued = loads;
      if (unrolled) {
        issued = std::min(loads, distinct_per_pass(a, *unrolled));
        // Guarded tail blocks load per point (guarded_block_fraction).
        issued += guarded_fraction_ * (loads - issued);
      }
      read->loads_per_block += issued;
      address_ops_per_block_ += 2.0 * issued;

      const double threads_x = km.tiling && km.tiling->innermost_thread_loop() >= 0
                                   ? double(km.tiling->threads[km.tiling->innermost_thread_loop()])
                                   : 1.0;
      read->coalescing_efficiency =
          std::min(read->coalescing_efficiency, coalescing_efficiency(stride, read->bytes_per_element, threads_x));
      ThreadStride group = stride;
      group.coef /= points_along_x();
      read->sector_efficiency =
          std::min(read->sector_efficiency, coalescing_efficiency(group, read->bytes_per_element, threads_x));
    }
  }

  // A Func whose point is one load of another at the same point (an input's `_im` wrapper, a
  // cast): inlined, it is that load.
  static bool is_copy(const FuncNode &f) {
    if (f.stages.size() != 1 || f.stages[0].accesses.size() != 1) return false;
    const ProducerAccess &a = f.stages[0].accesses[0];
    if (a.calls_per_point != 1 || a.region_min.size() != f.args.size() || f.stages[0].arithmetic_ops().total() > 1)
      return false;
    for (size_t d = 0; d < f.args.size(); d++)
      for (const AffineExpr *e : {&a.region_min[d], &a.region_max[d]})
        if (!e->is_affine || e->constant != 0 || e->coefficients != std::map<std::string, double>{{f.args[d], 1.0}})
          return false;
    return true;
  }

  // A Func inlined into the kernel's unrolled points: its extents per pass, or nullptr.
  const Unrolled *inlined_passes(int c) const {
    if (c == root_ || state_.decisions[size_t(c)].level != ComputeLevel::Inline) return nullptr;
    auto it = inlined_passes_.find(c);
    return it == inlined_passes_.end() ? nullptr : &it->second;
  }

  // Distinct elements access `a` reads over a block's unrolled passes.
  double distinct_per_pass(const ProducerAccess &a, const Unrolled &unrolled) const {
    double distinct = 1;
    for (size_t d = 0; d < a.region_min.size(); d++)
      distinct *= region_extent(a, d, unrolled.extents, full_extent_of(dag_, a.producer, d));
    return distinct * unrolled.passes_per_block;
  }

  // The kernel's consecutive points per thread along its coalescing loop. Partial results and a
  // privatized scatter step a thread through points a block's width apart (the rfactor's split
  // puts each thread's steps there), not neighbouring points as a register tile does.
  double points_along_x() const {
    const StageTiling &t = state_.decisions[root_].tilings.at(stage_);
    if (t.partials || t.privatized) return 1.0;
    const int inner = t.single_thread ? -1 : t.innermost_thread_loop();
    return inner >= 0 ? double(std::max<int64_t>(1, t.serial[inner])) : 1.0;
  }

  void summarize(const StageTiling &tiling, const std::vector<FuncInKernel> &per_block,
                 const std::vector<FuncInKernel> &per_thread, KernelModel &km) {
    const FuncNode &root = dag_.funcs[root_];
    const StageNode &stage = root.stages[stage_];
    km.points_per_block = per_block[root_].evals;
    // Points of the tiles beyond the region run idle (GuardWithIf).
    double covered = km.blocks * km.points_per_block, needed = double(std::max<int64_t>(1, stage.points));
    km.wasted_points_fraction = covered > needed ? 1.0 - needed / covered : 0.0;

    double shared_bytes = 0, thread_points = 0;
    double thread_reduction_steps = 0, thread_reduction_bytes = 0, thread_reduction_taps = 1;  ///< reductions fused per thread
    // Address arithmetic: about two integer operations per global or shared-memory load (counted
    // by visit_stage; none for inlined Funcs or registers).
    km.ops_per_block += address_ops_per_block_;
    // A compare and branch per guarded point (and reduction step) in the tail blocks.
    km.ops_per_block += 2.0 * guard_branches_per_block_;
    for (int c = root_; c >= 0; c--) {
      if (!per_block[c].reached) continue;
      const FuncDecision &d = state_.decisions[c];
      const bool fused_here = c != root_ && d.level != ComputeLevel::Inline;
      double evals = per_block[c].evals;
      if (c != root_ && d.level == ComputeLevel::Thread) evals = per_thread[c].evals * km.threads_per_block;
      // The stages computed here: the root's; a fused Func's every stage, its updates once per
      // point and reduction step; an inlined Func's expression.
      std::vector<const StageNode *> stages = {c == root_ ? &stage : &dag_.funcs[c].stages[0]};
      for (size_t k = 1; fused_here && k < dag_.funcs[c].stages.size(); k++) stages.push_back(&dag_.funcs[c].stages[k]);
      double accumulator_updates = 0;
      for (const StageNode *s : stages) {
        double steps = 1;
        for (const LoopDim &loop : s->loops)
          if (c != root_ && loop.is_rvar) steps *= double(std::max<int64_t>(1, loop.estimate.extent()));
        const FoldedStage *folded = folded_counts(c, *s, per_block[c].box);
        if (!folded) folded = unrolled_jointly(c, *s);
        const ArithmeticOps ops = folded ? arithmetic_ops_of(folded->ops_total) : s->arithmetic_ops();
        const double per_phase = folded ? 1.0 / double(folded->phases) : 1.0;
        km.ops_per_block += evals * steps * double(ops.basic) * per_phase;
        km.math_ops_per_block += evals * steps * double(ops.math) * per_phase;
        if (s->index > 0) accumulator_updates += evals * steps;
        if (c != root_ && d.level == ComputeLevel::Block) block_fused_ops_[c] += evals * steps * double(ops.total());
      }
      if (!fused_here) continue;
      FusedFunc fused;
      fused.func = c;
      fused.level = d.level;
      fused.stages = int(dag_.funcs[c].stages.size());
      fused.accumulator_updates_per_block = accumulator_updates;
      fused.points_per_block = evals;
      fused.loads_by_consumers = fused_loads_[c];
      fused.bank_conflict_ways = std::max(1.0, bank_conflicts_[c]);
      fused.max_threads_needed = per_block[c].evals / repeats(c);
      fused.slabs = repeats(c);
      fused.box = per_block[c].box;
      fused.thread_box = per_thread[c].box;
      fused.in_registers = d.level == ComputeLevel::Thread && in_registers(c);
      if (d.level == ComputeLevel::Block && per_block[c].divided_unevenly) {
        // Its thread loops span what Halide 14 bounds its region by: with an index divided by
        // 3, 5, 9... the whole image's (random pipeline 640032's per-block down_11, read at
        // (x * 11 / 8, y * 7 / 9): launched with hundreds of rows of threads, CUDA refused it).
        km.valid = false;
        km.invalid_reason = "a Func per GPU block read through a division by a constant other than a power of two";
      }
      if (d.level == ComputeLevel::Thread && !fused.in_registers) {
        // Decided while it could be in registers, then not (the kernel changed around it). Halide
        // 14 then packs every thread's copy into one buffer, and random pipeline 600171's was
        // overrun: wrong values on the H200, different from run to run.
        km.valid = false;
        km.invalid_reason = "a Func computed per GPU thread that cannot be kept in registers";
      }
      if (fused.in_registers) {
        // Dimensions that follow a loop the kernel runs as GPU blocks have the same extent in
        // every thread; Halide cannot prove it once those loops are fused into one grid
        // dimension, so the schedule states it (bound_extent).
        const std::vector<std::string> loops = root_loops_of(c);
        for (size_t k = 0; k < loops.size(); k++)
          if (!loops[k].empty() && loops[k] != "*" && is_block_loop(tiling, loops[k])) fused.block_dims.push_back(int(k));
        for (size_t k = 0; k < loops.size(); k++)
          for (size_t i = 0; i < tiling.vars.size(); i++)
            if (loops[k] == tiling.vars[i] && pinned_loop(tiling, i)) fused.pinned_dims.push_back(int(k));
      }
      const double bytes = double(dag_.funcs[c].bytes_per_point());
      if (d.level == ComputeLevel::Thread && fused.stages > 1) {
        // A reduction computed per thread: the thread runs its reduction steps one after another,
        // all of its points unrolled inside each step (their accumulators independent, their
        // loads issued together), so its chain is the reduction's steps, not steps x points.
        // In registers, its taps are unrolled too (unrolled_taps): their steps overlap as a root
        // update's unrolled steps do (the accumulators never go to memory, so no step's loads
        // wait on another's stores).
        double steps = 0, taps = 1;
        for (size_t k = 1; k < dag_.funcs[c].stages.size(); k++) {
          double n = 1;
          for (const LoopDim &loop : dag_.funcs[c].stages[k].loops)
            if (loop.is_rvar) n *= double(std::max<int64_t>(1, loop.estimate.extent()));
          steps += n;
          if (fused.in_registers) taps = std::max(taps, double(unrolled_taps(dag_.funcs[c].stages[k])));
        }
        if (steps > 1 && steps >= thread_reduction_steps) {
          thread_reduction_steps = steps;
          thread_reduction_taps = taps;
        }
        double region = 1;
        for (const Span &sp : dag_.funcs[c].region) region *= double(std::max<int64_t>(1, sp.extent()));
        thread_reduction_bytes += region * bytes;
      }
      if (d.level == ComputeLevel::Block && row_steps_.count(c) && !fused.box.empty()) {
        const RowPadding padding = pad_rows(std::ceil(fused.box[0]), row_steps_[c], bytes);
        fused.storage_row = padding.row;
        fused.bank_conflict_ways = std::max(fused.bank_conflict_ways, padding.ways);
      }
      if (d.level == ComputeLevel::Block) {
        fused.bytes_per_block = per_block[c].evals / repeats(c) * bytes;  // one slab at a time
        if (fused.storage_row > 0) fused.bytes_per_block *= double(fused.storage_row) / std::ceil(fused.box[0]);
        shared_bytes += fused.bytes_per_block;
      } else {
        fused.bytes_per_block = per_thread[c].evals * bytes * km.threads_per_block;
        thread_points += per_thread[c].evals * double(dag_.funcs[c].types.size());
      }
      km.fused.push_back(fused);
    }

    // Stores: every point the stage writes once (the whole Func for the pure stage; an update
    // writing one row writes that row); an update's every iteration is a read-modify-write of
    // its point, mostly in L1/L2 (a data-dependent scatter too).
    double region_points = 1;
    for (const Span &s : root.region) region_points *= double(std::max<int64_t>(1, s.extent()));
    const double written = stage_ > 0 ? std::min(region_points, double(std::max<int64_t>(1, stage.points))) : region_points;
    km.store_bytes = written * double(root.bytes_per_point());
    if (stage_ > 0 && !tiling.atomic && !tiling.privatized) {
      // Unrolled steps pass the running value on in registers: one read-modify-write per group.
      // Where a step reads the Func at one point (the running value, or what the step before
      // wrote), or at its own point and the point the step before wrote along a reduction loop
      // stepping forward (a prefix sum: f(x, r - 1) + f(x, r); the compiler then forwards each
      // step's store to the next step's load: 5.3-5.5x faster unrolled by 8 on an H100, session
      // thirty-four). Not other reads of itself: iir_blur's second scan, whose row is the
      // image's height minus the loop, ran no faster unrolled by 8 (H200, and again on an H100).
      int64_t self_reads = 0;
      bool reads_previous_step = false;
      for (const ProducerAccess &a : stage.accesses)
        if (a.producer == root.name) {
          self_reads += a.calls_per_point;
          reads_previous_step = reads_previous_step || reads_own_and_previous_step(a, stage);
        }
      if (self_reads <= 1 || (self_reads == 2 && reads_previous_step))
        km.unrolled_steps = double(std::max<int64_t>(1, tiling.reduction_unroll));
      km.update_rmw_bytes =
          2.0 * double(std::max<int64_t>(1, stage.points)) * double(root.bytes_per_point()) / km.unrolled_steps;
      double steps = 1;
      for (const LoopDim &loop : stage.loops)
        if (loop.is_rvar) steps *= double(std::max<int64_t>(1, loop.estimate.extent()));
      if (stage.has_rvars())
        km.serial_steps_per_thread =
            tiling.single_thread ? double(std::max<int64_t>(1, stage.points)) : steps * double(tiling.points_per_thread());
      km.reduction_bytes = region_points * double(root.bytes_per_point());
      for (const GlobalRead &g : km.global_reads) km.reduction_bytes += g.full_region * g.bytes_per_element;
    }
    if (thread_reduction_steps > 0 && km.serial_steps_per_thread == 0) {
      km.serial_steps_per_thread = thread_reduction_steps;
      km.unrolled_steps = thread_reduction_taps;
      km.reduction_bytes = thread_reduction_bytes;
      for (const GlobalRead &g : km.global_reads) km.reduction_bytes += g.full_region * g.bytes_per_element;
    }
    const int inner = tiling.single_thread ? -1 : tiling.innermost_thread_loop();
    ThreadStride store_group = per_block[root_].stride;
    store_group.coef /= points_along_x();
    km.store_instruction_efficiency = coalescing_efficiency(per_block[root_].stride, int(root.bytes_per_point()),
                                                            inner >= 0 ? double(tiling.threads[inner]) : 1.0);
    km.store_efficiency = coalescing_efficiency(store_group, int(root.bytes_per_point()),
                                                inner >= 0 ? double(tiling.threads[inner]) : 1.0);
    if (inner < 0 && !tiling.single_thread) km.store_efficiency = std::min(1.0, root.bytes_per_point() / 32.0);
    if (tiling.atomic) {
      // Every point is a read-modify-write at a data-dependent address, done in L2.
      km.store_bytes = double(stage.points) * double(root.bytes_per_point());
      km.store_efficiency = std::min(1.0, root.bytes_per_point() / 32.0);
      km.atomic_addresses = std::max(1.0, region_points);
      km.global_atomics = double(stage.points);
    }
    if (tiling.privatized) {
      // Each block updates its own copy in shared memory (zeroed, updated per point, read back)
      // and adds the copy into the output: one global atomic per point of the Func per block. A
      // histogram per channel copies one channel's bins (its pure loops are block loops).
      double bins = region_points;
      for (size_t i = reduction_loops_in(tiling, stage); i < tiling.vars.size(); i++)
        bins /= double(std::max<int64_t>(1, tiling.extents[i]));
      bins = std::max(1.0, bins);
      FusedFunc copy;
      copy.func = root_;
      copy.level = ComputeLevel::Block;
      copy.points_per_block = bins;
      copy.bytes_per_block = bins * double(root.bytes_per_point());
      copy.loads_by_consumers = 2 * km.points_per_block + bins;
      copy.box = {bins};
      km.fused.push_back(copy);
      shared_bytes += copy.bytes_per_block;
      km.shared_atomics_per_block = km.points_per_block;
      km.global_atomics = km.blocks * bins;
      km.store_bytes = km.global_atomics * double(root.bytes_per_point());
      km.store_efficiency = 1;  // the copy is added bin by bin, consecutive threads, consecutive bins
      // Halide launches the block for the widest of its loops: the copy's bins spread over their
      // own threads when the scatter has fewer (CUPTI: 32-thread blocks where the model had the
      // scatter's 8). The scatter's other lanes idle.
      const double copy_threads = double(privatized_copy_threads(int64_t(bins)));
      if (copy_threads > km.threads_per_block) {
        km.threads_per_block = copy_threads;
        km.block_shape = {copy_threads, 1, 1};
      }
    }

    if (tiling.partials) {
      // The partial results' kernel (StageTiling::partials): a thread per iteration of the
      // innermost reduction loop runs the other loops whole into its partial result (a total's
      // one value, a histogram's copy of every bin, zeroed first and read back to combine); per
      // point of a row reduction, a thread per partial result steps through its share of the
      // loop, the other reduction loops whole.
      const int per_point = partial_loop_per_point(tiling, stage);
      const double partial = double(std::max<int64_t>(1, per_point >= 0 ? tiling.threads[size_t(per_point)]
                                                                          : tiling.extents.front()));
      const double threads = per_point >= 0 ? partial * region_points : partial;
      km.serial_steps_per_thread = std::max(1.0, double(std::max<int64_t>(1, stage.points)) / threads);
      km.store_bytes = (region_points > 1 ? 2 : 1) * partial * region_points * double(root.bytes_per_point());
      km.store_efficiency = 1;  // consecutive threads, consecutive partial results
      // Combined a thread per point of the Func (one for a total), each over every partial result.
      km.partial_results = partial;
      if (per_point < 0 && region_points <= 1) km.partials_regroup = double(tiling.partials_regroup);
    }
    if (tiling.atomic || tiling.privatized) {
      km.store_instruction_efficiency = km.store_efficiency;
      km.cas_loop = atomic_update_lowers_to_cas(dag_, state_, root_, stage_);
    }
    if (!tiling.single_thread && !tiling.privatized) charge_idle_lanes(tiling, km);
    charge_join_spills(tiling, km);
    // Register blocking unrolls a thread's points; a privatized scatter and partial results loop
    // over them.
    const double unrolled = tiling.privatized || tiling.partials ? 1 : double(tiling.points_per_thread());
    km.registers_per_thread = 24 + 2 * unrolled * double(root.types.size()) + thread_points;
    // Halide pads and rounds shared allocations; keep a margin under the hard limit.
    if (shared_bytes > 0.8 * gpu_.shared_memory_per_block) {
      km.valid = false;
      km.invalid_reason = "shared memory per block over the limit";
    }
    if (km.registers_per_thread > gpu_.max_registers_per_thread) {
      km.valid = false;
      km.invalid_reason = "too many registers per thread";
    }
    // A block's threads share the SM's register file: past it the compiler spills registers to
    // local memory (camera_pipe's demosaic with 1024 threads of unrolled fused points ran 2.7x
    // slower than predicted on the H200).
    if (km.registers_per_thread * km.threads_per_block > double(gpu_.registers_per_sm)) {
      km.valid = false;
      km.invalid_reason = "too many registers per block";
    }
  }

  // Registers spilled where the guarded copies of a kernel's tile meet (max_filter on the H200,
  // 2026-12-02: `output` predicted 0.197 ms, measured 3.38 ms). Halide splits a tile with
  // GuardWithIf tails into guarded and unguarded copies of the thread's points; with a clamped
  // read in the kernel (a boundary condition inlined into it) LLVM merged the copies' last point
  // into one block reached from each copy, so every address that point loads (64 bits, two
  // registers) is live where they meet: 120 loads a point needed 238-255 registers, and under
  // the runtime's cap of 64 ptxas spilled 2.4-11 KB per thread. The same kernels with the
  // boundary condition computed at root, or with a Func fused per block (no guarded copies of
  // the block's loop), spill under 0.2 KB (docs/PERFORMANCE.md, 2026-12-02, branch `serial2`).
  // Charged: the registers over the cap, stored and loaded back once per point, in L2 (the
  // stack frames of a block's threads outgrow L1).
  void charge_join_spills(const StageTiling &tiling, KernelModel &km) const {
    if (!reads_through_clamp_ || tiling.single_thread || tiling.atomic || tiling.privatized) return;
    if (stage_ > 0 || km.points_per_block <= 0) return;
    for (const FusedFunc &f : km.fused)
      if (f.level == ComputeLevel::Block) return;
    double loads_per_point = 0;
    for (const GlobalRead &g : km.global_reads) loads_per_point += g.loads_per_block / km.points_per_block;
    // Up to about as many loads a point as the cap has registers, ptxas copes (the examples'
    // kernels with 20-60 loads a point and a boundary condition inlined spill 0-124 bytes).
    if (loads_per_point <= kHalideCudaRegisterCap) return;
    const double live = kBaseRegisters + 2.0 * loads_per_point;
    km.spill_bytes = km.blocks * km.points_per_block * (live - kHalideCudaRegisterCap) * 4.0 * 2.0;
  }

  // The thread block Halide launches and the lanes it leaves idle (KernelModel::block_shape,
  // idle_lane_ops_per_block). As state_to_spec schedules them, consumers first: a Func fused per
  // block spreads up to two of its loops over the block's threads, growing the block to its box
  // when that fits the hardware limit; else it covers its box in passes shaped like the root's
  // thread tile. Every stage runs on the whole block; its idle lanes cost issue slots only in
  // the warps that hold some of its active threads (warp_lanes_touched): camera_pipe's output
  // on 32x8 of a 35x11 block idles 3 lanes a row, not the 129 threads past its box.
  void charge_idle_lanes(const StageTiling &tiling, KernelModel &km) {
    std::vector<double> shape, root_threads;
    root_block(tiling, shape, root_threads);
    const std::vector<double> root_shape = shape;
    const double root_threads_per_block = shape[0] * shape[1] * shape[2];
    struct PerBlockLayout {
      double lanes_per_thread;        ///< passes x unrolled rows
      std::vector<double> active;     ///< its thread loops' extents on thread dimensions 0-2
    };
    std::map<int, PerBlockLayout> layouts;
    for (const FusedFunc &f : km.fused) {
      if (f.level != ComputeLevel::Block || f.func == root_) continue;
      const BlockFusedLayout layout = block_fused_layout(f.box, shape, root_threads, gpu_.max_threads_per_block,
                                                         rows_round_up(dag_.funcs[size_t(f.func)]));
      shape = layout.block_shape;
      double rows = double(layout.inner_points);
      for (int64_t r : layout.rows) rows *= double(r);
      std::vector<double> active(3, 1.0);
      for (size_t k = 0; k < layout.threads.size(); k++) active[k] = double(layout.threads[k]);
      active[0] *= double(layout.folds);
      layouts[f.func] = PerBlockLayout{layout.passes * rows, active};
    }
    km.block_shape = shape;
    const double threads = shape[0] * shape[1] * shape[2];
    double block_fused_ops = 0;
    for (const FusedFunc &f : km.fused) {
      if (f.level != ComputeLevel::Block || f.func == root_ || f.points_per_block <= 0) continue;
      const double ops = block_fused_ops_[f.func];
      block_fused_ops += ops;
      const PerBlockLayout &l = layouts[f.func];
      // (At most the block's threads: its last warp's missing lanes are the compute term's.)
      const double lanes =
          l.lanes_per_thread * std::min(threads, warp_lanes_touched(l.active, shape, gpu_.warp_size)) * f.slabs;
      km.idle_lane_ops_per_block += ops / f.points_per_block * std::max(0.0, lanes - f.points_per_block);
    }
    // The root stage (with its inlined and per-thread Funcs) runs on its own threads only.
    const double root_lanes = std::min(threads, warp_lanes_touched(root_shape, shape, gpu_.warp_size));
    if (root_lanes > root_threads_per_block)
      km.idle_lane_ops_per_block += (km.ops_per_block - block_fused_ops) * (root_lanes / root_threads_per_block - 1);
    km.threads_per_block = threads;
  }

  const PipelineDag &dag_;
  const ScheduleState &state_;
  const GpuProfile &gpu_;
  int root_, stage_;
  std::map<int, double> fused_loads_, bank_conflicts_;
  std::map<int, double> row_steps_;  ///< per-block Funcs read down their columns: rows per thread
  std::map<int, double> block_fused_ops_;  ///< arithmetic per block of each Func fused per block
  std::optional<Unrolled> unrolled_root_;  ///< root_unrolled() of the kernel's tiling, made first
  std::vector<FuncInKernel> per_thread_;  ///< the per-thread propagation, made first
  mutable std::map<int, bool> translations_;                    ///< read_by_translations()
  mutable std::map<int, std::vector<std::string>> root_loops_;  ///< root_loops_of()
  double address_ops_per_block_ = 0;
  double guarded_fraction_ = 0;          ///< guarded_block_fraction() of the kernel's tiling
  double guard_branches_per_block_ = 0;  ///< guarded points per block (visit_stage), averaged over blocks
  int register_tile_ = -1;  ///< register_tile_reduction() of the kernel, when this is its last stage
  bool unrolls_in_thread_ = false;  ///< unrolls_in_thread_loops() of the kernel's stage
  mutable std::vector<bool> inlined_here_;  ///< reached_inline(), filled on first use
  /// Funcs inlined into the kernel's unrolled points (root_unrolled): their extents per pass.
  std::map<int, Unrolled> inlined_passes_;
  /// Per Func of the kernel (its own stage, Funcs inlined into it): its coordinates' in-thread
  /// loops followed (shared_across_in_thread_loops).
  std::vector<std::map<std::string, std::set<std::string>>> follows_;
  FoldedPhases phases_;  ///< the phase loops the kernel's unrolled copies fold (cost/folded_phases.h)
  std::set<std::string> folded_by_value_;  ///< its loops folded by value: their copies share nothing by construction
  bool reads_through_clamp_ = false;  ///< visit_stage: a boundary condition read in the kernel's code
  /// Partial results per point with the factored reduction loop innermost: that loop, along
  /// which consecutive threads read (partial_loop_per_point).
  std::string partials_thread_loop_;
  double slabs_ = 1;                                 ///< set_slabs()
  std::map<std::string, double> slab_extents_;       ///< set_slabs(): empty when not staged
};

}  // namespace

namespace {

// block_fused_layout's third dimension unrolled inside each thread (BlockFusedLayout::inner_dim).
void unroll_inner_dim(const std::vector<double> &box, BlockFusedLayout &layout) {
  if (layout.dims.size() != 2) return;
  for (size_t d = layout.dims[1] + 1; d < box.size(); d++) {
    if (box[d] <= 1) continue;
    const int64_t points = int64_t(std::ceil(box[d]));
    if (points <= BlockFusedLayout::kMaxInnerPoints && points * layout.rows[1] <= BlockFusedLayout::kMaxRows) {
      layout.inner_dim = int(d);
      layout.inner_points = points;
    }
    return;
  }
}

BlockFusedLayout spread_over_threads(const std::vector<double> &box, const std::vector<double> &block_shape,
                                     const std::vector<double> &root_threads, int64_t max_threads_per_block,
                                     bool round_up_rows);

}  // namespace

bool rows_round_up(const FuncNode &f) { return f.stages.size() == 1 && f.computable_past_region; }

void root_block(const StageTiling &tiling, std::vector<double> &shape, std::vector<double> &root_threads) {
  for (size_t i = 0; i < tiling.vars.size(); i++)
    if (tiling.tiled(i) && !tiling.row_loop(i)) shape.push_back(double(tiling.threads[i]));
  for (size_t i = 0; i < tiling.vars.size(); i++)
    if (tiling.threads[i] > 1) root_threads.push_back(double(tiling.threads[i]));
  shape.resize(3, 1);
}

BlockFusedLayout block_fused_layout(const std::vector<double> &box, const std::vector<double> &block_shape,
                                    const std::vector<double> &root_threads, int64_t max_threads_per_block,
                                    bool round_up_rows) {
  BlockFusedLayout layout = spread_over_threads(box, block_shape, root_threads, max_threads_per_block, round_up_rows);
  unroll_inner_dim(box, layout);
  return layout;
}

namespace {

// The first two dimensions of a per-block Func's box over the block's threads.
BlockFusedLayout spread_over_threads(const std::vector<double> &box, const std::vector<double> &block_shape,
                                     const std::vector<double> &root_threads, int64_t max_threads_per_block,
                                     bool round_up_rows) {
  BlockFusedLayout layout;
  layout.block_shape = block_shape;
  layout.block_shape.resize(3, 1);
  for (size_t d = 0; d < box.size() && layout.dims.size() < 2; d++)
    if (box[d] > 1) layout.dims.push_back(d);
  const size_t n = layout.dims.size();
  if (n == 0) return layout;  // a single point per block: one thread computes it
  layout.threads.assign(n, 1);
  layout.rows.assign(n, 1);
  auto extent = [&](size_t k) { return std::ceil(box[layout.dims[k]]); };
  auto volume = [](const std::vector<double> &shape) { return shape[0] * shape[1] * shape[2]; };

  std::vector<double> grown = layout.block_shape;
  for (size_t k = 0; k < n; k++) grown[k] = std::max(grown[k], extent(k));
  // Grown only by about a halo: a block grown several times over its root's threads leaves
  // most of its lanes idle in the root's own stage (depthwise_separable_conv's 32x8 threads grown
  // to 32x32 for a 32-channel, 32-column box); there the rows below cover it instead.
  if (volume(grown) <= double(max_threads_per_block) &&
      volume(grown) <= BlockFusedLayout::kMaxGrowth * volume(layout.block_shape)) {
    for (size_t k = 0; k < n; k++) layout.threads[k] = int64_t(extent(k));
    layout.block_shape = grown;
    return layout;
  }
  std::vector<double> chunk = root_threads;
  chunk.resize(2, 1);
  for (double &c : chunk) c = std::max(1.0, c);
  std::vector<double> shape = layout.block_shape;
  // The second loop: the root's threads there, a few unrolled rows each.
  if (n == 2) {
    const double rows = std::ceil(extent(1) / chunk[1]);
    // RoundUp only where the rows and threads cover the box exactly: rounded past it, the Func
    // would need more of its producers than their own layouts cover (a second pass of each).
    const bool round_up = round_up_rows && rows > 1 && rows <= double(BlockFusedLayout::kMaxRoundUpRows) &&
                          rows * std::ceil(extent(1) / rows) == extent(1);
    if (round_up || rows <= double(BlockFusedLayout::kMaxRows)) {
      layout.rows[1] = int64_t(rows);
      layout.threads[1] = int64_t(std::ceil(extent(1) / rows));
      layout.round_up = round_up;
    } else {
      layout.threads[1] = int64_t(chunk[1]);
      layout.passes *= std::ceil(extent(1) / chunk[1]);
    }
    shape[1] = std::max(shape[1], double(layout.threads[1]));
  }
  // The first loop (the one stored innermost: never rows, which would stride the warps' accesses):
  // its whole extent when the block can widen to it, within twice the root's threads there.
  std::vector<double> wide = shape;
  wide[0] = std::max(wide[0], extent(0));
  if (extent(0) <= 2 * chunk[0] && volume(wide) <= double(max_threads_per_block)) {
    layout.threads[0] = int64_t(extent(0));
    shape = wide;
  } else {
    layout.threads[0] = int64_t(std::min(chunk[0], extent(0)));
    layout.passes *= std::ceil(extent(0) / double(layout.threads[0]));
    shape[0] = std::max(shape[0], double(layout.threads[0]));
  }
  // A first loop whole but narrow beside a second in passes: the spare lanes of thread
  // dimension 0 take further rows of the second (BlockFusedLayout::folds).
  if (n == 2 && layout.rows[1] == 1 && layout.threads[0] == int64_t(extent(0)) &&
      double(layout.threads[1]) < extent(1)) {
    const int64_t spare = int64_t(shape[0]) / layout.threads[0];
    const int64_t needed = int64_t(std::ceil(extent(1) / double(layout.threads[1])));
    const int64_t folds = std::min(spare, needed);
    if (folds >= 2) {
      layout.folds = folds;
      layout.passes = std::ceil(extent(1) / double(layout.threads[1] * folds));
    }
  }
  if (volume(shape) > double(max_threads_per_block)) {
    // The root's own chunk, in passes (the block stays as it was).
    layout.passes = 1;
    for (size_t k = 0; k < n; k++) {
      layout.threads[k] = int64_t(std::min(chunk[k], extent(k)));
      layout.rows[k] = 1;
      layout.folds = 1;
      layout.round_up = false;
      layout.passes *= std::ceil(extent(k) / double(layout.threads[k]));
    }
    return layout;
  }
  layout.block_shape = shape;
  return layout;
}

// Whether every bound of an access moves one to one with the loops (a translation, a transpose),
// through clamps too: not a scaled read (x / 2, 2 * x).
bool reads_at_unit_steps(const ProducerAccess &a) {
  auto unit = [](const AffineExpr &e) {
    const std::map<std::string, double> &c = e.is_affine ? e.coefficients : e.clamped_coefficients;
    if (!e.is_affine && !e.clamped_affine) return false;
    return std::all_of(c.begin(), c.end(), [](const auto &kv) { return kv.second == 0 || std::abs(kv.second) == 1; });
  };
  return std::all_of(a.region_min.begin(), a.region_min.end(), unit) &&
         std::all_of(a.region_max.begin(), a.region_max.end(), unit);
}

// Which reads through a boundary condition count: any, or only those reached along a path that
// scales its coordinates somewhere (edge(x / 2, y / 2)).
enum class ClampPaths { Any, Scaled };

// Whether a stage, or a Func inlined into it (transitively), reads through a boundary condition
// (reads_clamped_window), as KernelBuilder::visit_stage finds. Calls that are each affine
// (filled(x, y, c) beside filled(x, y, 3)) unroll as well as one affine call does.
bool reads_through_inlined_clamp(const PipelineDag &dag, const ScheduleState &state, const StageNode &s,
                                 ClampPaths paths, bool scaled = false, int depth = 0) {
  if (depth > 64) return true;
  for (const ProducerAccess &a : s.accesses) {
    const bool scaled_here = scaled || !reads_at_unit_steps(a);
    const bool counts = paths == ClampPaths::Any || scaled_here;
    if (counts && reads_clamped_window(a) && !a.each_call_affine()) return true;
    const int p = dag.index_of(a.producer);
    if (p >= 0 && state.decided[p] && state.decisions[p].level == ComputeLevel::Inline &&
        reads_through_inlined_clamp(dag, state, dag.funcs[p].stages[0], paths, scaled_here, depth + 1))
      return true;
  }
  return false;
}

}  // namespace

bool unrolls_in_thread_loops(const PipelineDag &dag, const ScheduleState &state, int func, int stage) {
  const StageTiling &t = state.decisions[func].tilings.at(size_t(stage));
  if (t.single_thread || !t.has_in_thread_loop()) return false;
  return !reads_through_inlined_clamp(dag, state, dag.funcs[func].stages[size_t(stage)], ClampPaths::Any);
}

std::vector<int> funcs_in_kernel(const PipelineDag &dag, const ScheduleState &state, int root) {
  std::vector<int> funcs = {root};
  std::vector<char> seen(dag.funcs.size(), 0);
  seen[size_t(root)] = 1;
  for (size_t next = 0; next < funcs.size(); next++) {
    for (const std::string &name : dag.funcs[funcs[next]].producers) {
      const int p = dag.index_of(name);
      if (p < 0 || seen[size_t(p)] || !state.decided[p]) continue;
      const FuncDecision &d = state.decisions[p];
      const bool here = d.level == ComputeLevel::Inline ||
                        ((d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread) && d.kernel_root == root);
      if (!here) continue;
      seen[size_t(p)] = 1;
      funcs.push_back(p);
    }
  }
  return funcs;
}

bool unrolls_block_fused_rows(const PipelineDag &dag, const ScheduleState &state, int func) {
  for (const StageNode &s : dag.funcs[size_t(func)].stages)
    if (reads_through_inlined_clamp(dag, state, s, ClampPaths::Scaled)) return false;
  return true;
}

unsigned block_fused_folded_phases(const FuncNode &f, const std::vector<double> &box) {
  if (f.stages.size() != 1) return 0;  // its updates share the pure stage's loops (schedule_block_fused)
  const std::vector<PhaseLoop> &loops = f.stages[0].phase_loops;
  std::vector<size_t> thread_dims;  // as block_fused_layout picks them
  for (size_t d = 0; d < box.size() && thread_dims.size() < 2; d++)
    if (box[d] > 1) thread_dims.push_back(d);
  unsigned mask = 0;
  for (size_t k = 0; k < loops.size(); k++) {
    if (!loops[k].by_value) continue;
    const auto arg = std::find(f.args.begin(), f.args.end(), loops[k].var);
    const size_t d = size_t(arg - f.args.begin());
    if (arg != f.args.end() && std::find(thread_dims.begin(), thread_dims.end(), d) == thread_dims.end())
      mask |= 1u << k;
  }
  return mask;
}

bool updates_accumulate_in_place(const FuncNode &f) {
  for (size_t s = 1; s < f.stages.size(); s++) {
    std::vector<std::string> pure;
    for (const LoopDim &loop : f.stages[s].loops) {
      if (loop.is_rvar) continue;
      if (!loop.is_pure) return false;
      pure.push_back(loop.var);
    }
    if (pure != f.args) return false;
  }
  return true;
}

std::vector<int64_t> unrolled_tap_loops(const StageNode &update) {
  constexpr int64_t kMaxUnrolledTaps = 9;
  std::vector<int64_t> extents;
  int64_t product = 1;
  for (const LoopDim &loop : update.loops) {
    if (!loop.is_rvar) continue;
    const int64_t extent = loop.estimate.extent();
    if (extent < 2 || extent > 8 || product * extent > kMaxUnrolledTaps || extents.size() == 2) break;
    extents.push_back(extent);
    product *= extent;
  }
  return extents;
}

int64_t unrolled_taps(const StageNode &update) {
  int64_t product = 1;
  for (int64_t extent : unrolled_tap_loops(update)) product *= extent;
  return product;
}

int register_tile_reduction(const PipelineDag &dag, int root) {
  return dag.funcs[size_t(root)].is_output ? pointwise_reduction(dag, root) : -1;
}

int pointwise_reduction(const PipelineDag &dag, int root) {
  const FuncNode &f = dag.funcs[root];
  if (f.has_extern_definition || f.stages.size() != 1) return -1;
  for (const ProducerAccess &a : f.stages[0].accesses) {
    const int p = dag.index_of(a.producer);
    if (p < 0 || !a.is_pointwise) continue;
    const FuncNode &g = dag.funcs[size_t(p)];
    if (g.stages.size() < 2 || g.is_output || g.has_extern_definition || g.args.empty() ||
        g.stages[0].has_rvars() || g.consumers.size() != 1 || !updates_accumulate_in_place(g))
      continue;
    return p;
  }
  return -1;
}

int pinned_reduction_loop(const PipelineDag &dag, int func) {
  const int g = pointwise_reduction(dag, func);
  if (g < 0) return -1;
  const FuncNode &f = dag.funcs[size_t(func)], &reduction = dag.funcs[size_t(g)];
  const std::vector<LoopDim> &loops = f.stages[0].loops;
  int best = -1;
  double best_sharing = 0;
  for (size_t i = 2; i < loops.size(); i++) {
    const auto arg = std::find(f.args.begin(), f.args.end(), loops[i].var);
    const size_t d = size_t(arg - f.args.begin());
    if (arg == f.args.end() || d >= f.constant_dims.size() || !f.constant_dims[d] || d >= reduction.args.size()) continue;
    // How many copies' worth of each reduction step the copies share: at least 2 (the whole step
    // costs at most half of its copies apart); the loop that shares most.
    double sharing = reduction.stages.size() > 1 ? std::numeric_limits<double>::infinity() : 0.0;
    for (size_t s = 1; s < reduction.stages.size(); s++) {
      const StageNode &update = reduction.stages[s];
      auto it = update.unrolled_jointly.find(reduction.args[d]);
      if (it == update.unrolled_jointly.end() || it->second.phases != f.region[d].extent()) {
        sharing = 0;
        break;
      }
      const double apart = double(it->second.phases) * double(std::max<int64_t>(1, update.arithmetic_ops().total()));
      sharing = std::min(sharing, apart / double(std::max<int64_t>(1, arithmetic_ops_of(it->second.ops_total).total())));
    }
    if (sharing >= 2 && sharing > best_sharing) {
      best = int(i);
      best_sharing = sharing;
    }
  }
  return best;
}

KernelModel build_kernel_model(const PipelineDag &dag, const ScheduleState &state, int root, int stage,
                               const GpuProfile &gpu) {
  const FuncDecision &d = state.decisions[root];
  // The lookahead for a register tile reduction, or for a reduction held whole along a pinned
  // in-thread loop (pinned_reduction_loop: bgu's grid and its splat).
  int reduction = -1;
  if (d.level == ComputeLevel::Root && stage + 1 == int(d.tilings.size())) {
    reduction = register_tile_reduction(dag, root);
    // (Only a tiling with an in-thread loop can hold it: most kernels built skip the lookup.)
    const bool in_thread = d.tilings[size_t(stage)].has_in_thread_loop();
    const int pinned = reduction < 0 && in_thread ? pinned_reduction_loop(dag, root) : -1;
    if (pinned >= 0 && d.tilings[size_t(stage)].in_thread.at(size_t(pinned))) reduction = pointwise_reduction(dag, root);
  }
  if (reduction >= 0 && !state.decided[reduction]) {
    ScheduleState ahead = state;  // shares the root's decision (and its tiling, km.tiling)
    ahead.decide(reduction, FuncDecision{ComputeLevel::Thread, root, {}});
    KernelModel km = KernelBuilder(dag, ahead, gpu, root, stage).build();
    const bool held = km.valid && std::any_of(km.fused.begin(), km.fused.end(), [&](const FusedFunc &f) {
                        return f.func == reduction && f.in_registers;
                      });
    if (held) return km;
  }
  return KernelBuilder(dag, state, gpu, root, stage).build();
}

std::vector<KernelModel> build_kernel_models(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu) {
  std::vector<KernelModel> kernels;
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    if (!state.decided[f] || state.decisions[f].level != ComputeLevel::Root) continue;
    for (size_t s = 0; s < state.decisions[f].tilings.size(); s++)
      kernels.push_back(build_kernel_model(dag, state, int(f), int(s), gpu));
  }
  return kernels;
}

}  // namespace hlsched
