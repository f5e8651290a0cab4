// What a schedule state means for each GPU kernel: which Funcs it computes and where, how much of
// each producer one block touches, how many points and loads each Func costs per block, and how
// the warps' accesses coalesce.
//
// Regions are propagated from the kernel's block tile through the DAG's per-point affine regions,
// consumers before producers, through inlined Funcs and Funcs fused into the block or thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "search/schedule_state.h"

namespace hlsched {

/// A producer the kernel reads from global memory (a Func stored at root, or an input).
struct GlobalRead {
  std::string name;
  int bytes_per_element = 4;
  double footprint_per_block = 0;    ///< elements one block touches
  double full_region = 0;            ///< elements of the producer's whole region
  double loads_per_block = 0;        ///< load instructions per block (threads x calls)
  double coalescing_efficiency = 1;  ///< useful bytes / bytes moved in 32-byte sectors (0..1]
  /// The same over all of a thread's unrolled points along the coalescing loop: with several
  /// consecutive points per thread, one load instruction of a warp is strided, but the thread's
  /// next loads use the rest of the sectors (served by L1). Equal to coalescing_efficiency with
  /// one point per thread along that loop.
  double sector_efficiency = 1;
  /// Computed with a sibling that reads it too (KernelModel::computed_with): the sibling's part
  /// of each block has just brought the same region on chip.
  bool read_by_sibling = false;
};

/// A Func computed inside the kernel's blocks other than the kernel's own stage.
struct FusedFunc {
  int func = -1;
  ComputeLevel level = ComputeLevel::Block;
  double points_per_block = 0;       ///< with redundant recompute at tile borders
  double bytes_per_block = 0;        ///< its storage per block (shared memory) or per thread x threads
  double loads_by_consumers = 0;     ///< reads of it per block (from shared memory or registers)
  double bank_conflict_ways = 1;     ///< shared memory: accesses serialized per warp request
  /// Shared memory: its first dimension's allocation padded to this many elements (align_storage),
  /// where consecutive threads read down its columns; 0: unpadded.
  int64_t storage_row = 0;
  double max_threads_needed = 0;     ///< threads to compute one point each per block
  int stages = 1;                    ///< its definitions (pure + updates), each a pass over the block
  /// Fused per slab (FuncDecision::per_slab): how many times per block it is computed, one slab
  /// of the kernel's reduction loop each; points_per_block and loads count all of them,
  /// bytes_per_block and box one slab (its shared allocation).
  double slabs = 1;
  /// Updates: reads and writes of its own points per block (an accumulator in shared memory or
  /// registers, one read-modify-write per point and reduction step).
  double accumulator_updates_per_block = 0;
  std::vector<double> box;           ///< extent per dimension computed per block
  std::vector<double> thread_box;    ///< Thread level: extent per dimension computed per thread
  /// Thread level: every access to it is at a constant index once unrolled (the kernel's points
  /// per thread and in-thread loops are unrolled, nothing else loops around them), so it lives in
  /// registers.
  bool in_registers = false;
  /// In registers: its dimensions that follow the kernel's block loops (one extent per thread).
  std::vector<int> block_dims;
  /// In registers: its dimensions that follow an in-thread loop over a constant region of the
  /// kernel's Func (held whole by every thread; the schedule states their extent).
  std::vector<int> pinned_dims;
};

struct KernelModel {
  int root = -1;                 ///< DAG index of the Func whose stage this kernel computes
  int stage = 0;
  const StageTiling *tiling = nullptr;
  double blocks = 1;
  double threads_per_block = 1;
  double points_per_block = 0;   ///< of the root stage
  double wasted_points_fraction = 0;  ///< tails: tile points beyond the region
  /// Blocks whose tile runs past the region along a loop of unrolled points per thread: Halide
  /// compiles them as a guarded copy that shares no loads between points (register blocking lost).
  double guarded_block_fraction = 0;
  double ops_per_block = 0;      ///< arithmetic of the root stage, inlined Funcs and fused Funcs
  double math_ops_per_block = 0; ///< transcendental functions
  double store_bytes = 0;        ///< whole kernel: the points it writes (an update: those its loops reach)
  /// Update stages: each iteration reads and writes its point of the Func again (a
  /// read-modify-write per reduction step, served by L1/L2): bytes over the whole kernel.
  double update_rmw_bytes = 0;
  /// Update stages whose reduction loops run inside each thread: the steps one thread runs one
  /// after another (its points x the reduction's iterations), and how many of them are unrolled
  /// back to back (StageTiling::reduction_unroll).
  double serial_steps_per_thread = 0;
  double unrolled_steps = 1;
  double reduction_bytes = 0;  ///< what such a stage touches: its Func and the regions it reads
  /// The launched thread block per GPU thread dimension: the root stage's threads, grown where a
  /// Func fused per block covers more points in one pass (Halide's block is the largest extent
  /// any stage gives each thread loop).
  std::vector<double> block_shape;
  /// Arithmetic the block's idle lanes wait through, per block: stages that use fewer threads
  /// than the block has, or cover their region in passes shaped like the block whose last pass
  /// is partly empty. Counted in the compute term on top of ops_per_block.
  double idle_lane_ops_per_block = 0;
  double store_efficiency = 1;   ///< of the warps' stores over a thread's unrolled points (sectors)
  double store_instruction_efficiency = 1;  ///< of one store instruction of a warp
  double registers_per_thread = 32;
  /// Local-memory traffic of registers spilled over the whole kernel (bytes stored and loaded
  /// back): see KernelBuilder::charge_join_spills in kernel_model.cpp.
  double spill_bytes = 0;
  /// Atomic scatters: read-modify-writes to global memory over the whole kernel, and per block
  /// to a privatized copy in shared memory, spread over `atomic_addresses` points of the Func.
  double global_atomics = 0;
  double shared_atomics_per_block = 0;
  double atomic_addresses = 1;
  /// Halide lowers the scatter to a compare-and-swap loop instead of atomic adds
  /// (search/atomic_lowering.h): colliding lanes retry one after another.
  bool cas_loop = false;
  /// Partial results of a factored reduction (StageTiling::partials) per point of the Func, which
  /// the stage then combines, a thread per point (one for a total); 0 otherwise.
  double partial_results = 0;
  /// A total's partial results combined in two levels (StageTiling::partials_regroup): this many
  /// threads each step through every this-many-th, then one thread through theirs. 0: one level.
  double partials_regroup = 0;
  std::vector<GlobalRead> global_reads;
  std::vector<FusedFunc> fused;
  /// The sibling whose kernel also computes this stage (FuncDecision::computed_with): one launch
  /// and one dispatch of each block for both. -1: a kernel of its own.
  int computed_with = -1;
  bool valid = true;             ///< false when limits are exceeded (the state must be pruned)
  std::string invalid_reason;
};

/// How a Func computed per block covers its box with the kernel's threads: state_to_spec emits
/// it and the kernel model charges its idle lanes from it. Its first two loops of extent > 1 go
/// to thread dimensions 0 and 1: in one pass when the block can grow to the whole box. Otherwise
/// the first loop spans its whole extent where the block can widen to it (a halo: 36 columns for
/// a 32-wide block), else passes of the root's threads; and the second gets as many threads as
/// the root has there, each computing a few rows unrolled (what experts write:
/// `split(y, y, yi, 4).unroll(yi).gpu_threads(x, y)`), in passes only beyond kMaxRows rows.
/// Where the Func can be computed past its region and its rows cover the box exactly
/// (`round_up`), the rows are split RoundUp, with no guard around each unrolled row, and up to
/// kMaxRoundUpRows of them run in one pass:
/// unsharp's 40-row stages as 10 unrolled rows per thread ran 1.15x faster on the H200 than in
/// 10 passes, and unrolled rows only paid without their guards (docs/PERFORMANCE.md, session 22).
struct BlockFusedLayout {
  static constexpr int64_t kMaxRows = 8;
  static constexpr int64_t kMaxRoundUpRows = 16;
  static constexpr int64_t kMaxInnerPoints = 4;  ///< the most points of a third dim unrolled per thread
  static constexpr double kMaxGrowth = 2;  ///< the most a block grows to cover a box in one pass
  std::vector<size_t> dims;          ///< the Func's dimensions spread over thread dimensions 0, 1
  std::vector<int64_t> threads;      ///< threads along each (the extent of its thread loop)
  std::vector<int64_t> rows;         ///< points per thread along each, unrolled (1: none)
  /// The next dimension of the box when it is a few points (a kernel's rows per thread along a
  /// third loop: depthwise_separable_conv's 4 rows of its per-block depthwise stage): each thread
  /// computes all of them, unrolled innermost, so their loads of shared inputs (3x3 taps over 4
  /// rows read 6 input rows) and of values that do not follow it (the taps' weights) are issued
  /// once. -1: none (that dimension, if any, stays a loop).
  int inner_dim = -1;
  int64_t inner_points = 1;
  /// Rows of the second dimension laid beside the first along thread dimension 0 (`fuse`d with
  /// it), where the first is whole and much narrower than the block and the second runs in
  /// passes: a 32-column box under a 256x4 block (a transpose per block) computes 32x32 points a
  /// pass on all 1024 threads, not 32x4 on 128 (r640062's rotated 7x7 box ran 0.465 ms on the
  /// H100 in 64 such passes). 1: none.
  int64_t folds = 1;
  std::vector<double> block_shape;   ///< the kernel's thread block once this Func is in it
  double passes = 1;                 ///< serial passes per block over the box
  bool round_up = false;             ///< the rows' splits are RoundUp (rows[1] > 1 only)
};

/// A root stage's thread block (its gpu_tile's thread extents, 3 dimensions) into `shape`, and
/// the extents of its thread loops in order (those above 1) into `root_threads`: what
/// block_fused_layout starts from.
void root_block(const StageTiling &tiling, std::vector<double> &shape, std::vector<double> &root_threads);

/// `block_shape`: the kernel's block so far (3 extents); `root_threads`: the extents of the root
/// stage's thread loops in order (those above 1); `round_up_rows`: rows_round_up() of the Func.
BlockFusedLayout block_fused_layout(const std::vector<double> &box, const std::vector<double> &block_shape,
                                    const std::vector<double> &root_threads, int64_t max_threads_per_block,
                                    bool round_up_rows = false);

/// Whether a Func fused per block may split its rows RoundUp (BlockFusedLayout::round_up): it
/// can be computed past its region, and it has no update (Halide 14 refuses RoundUp splits of an
/// update's loops where they could recompute points outside the region).
bool rows_round_up(const FuncNode &f);

/// Whether stage `stage` of Root Func `func` runs its in-thread loops (StageTiling::in_thread: a
/// few channels) unrolled: what their iterations share (a value read at a point that does not
/// follow the loop) is then registers; unrolled or not, it is loaded and computed once (Halide
/// hoists it out of the loop), as the kernel model counts it. Not unrolled where the
/// stage reads through a boundary condition inlined into it: there the unrolled copies add to the
/// guarded copies' live registers (KernelBuilder::charge_join_spills), and
/// depthwise_separable_conv's batch loop of 4, unrolled around its clamped 3x3 taps, ran 1.5x
/// slower on the H200 (2026-12-02) than as a loop; bgu's output, its channels unrolled, 2.4x faster.
bool unrolls_in_thread_loops(const PipelineDag &dag, const ScheduleState &state, int func, int stage);

/// The Funcs whose stages run in the kernel of Root Func `root`: the root, and every producer
/// reached through inlined Funcs or computed in its blocks or threads.
std::vector<int> funcs_in_kernel(const PipelineDag &dag, const ScheduleState &state, int root);

/// Whether Func `func`, fused per block, runs each thread's rows unrolled (BlockFusedLayout::rows;
/// its third dimension's points stay unrolled regardless): not where it reads through a boundary
/// condition inlined into it. There Halide 14 partitions the serial pass loop around a dimension
/// split into threads and rows with bounds that depend on the thread, and with the rows unrolled
/// thread row 31 of a block at the image's edge ran its last pass one iteration late: random
/// pipeline 730026 wrote 5,184 of its 9,216 shared elements out of bounds (its lowered statement,
/// simulated; the H100 faulted). As a loop the rows stay in bounds.
bool unrolls_block_fused_rows(const PipelineDag &dag, const ScheduleState &state, int func);


/// The phase loops known by value (StageNode::phase_loops, a bitmask) of a Func fused per block
/// over `box` that its per-block schedule runs unrolled inside each thread: those it reads at
/// constant coordinates outside the block's thread loops (block_fused_layout's first two dims
/// wider than a point). Each unrolled copy computes only its own branch (camera_pipe's
/// deinterleaved: one of its four Bayer planes per copy, not all four).
unsigned block_fused_folded_phases(const FuncNode &f, const std::vector<double> &box);

/// Every update of `f` accumulates into each point in place (`f(x, y) += ...`): its loops other
/// than the reduction's are exactly f's pure variables, in order.
bool updates_accumulate_in_place(const FuncNode &f);

/// The reduction a kernel holds in registers per thread over a register tile ("reduction fused
/// per thread (registers)", docs/ARCHITECTURE.md): a Func with updates that each accumulate in
/// place, read only by `root`, an output with one stage, and only at the point being computed
/// (`output(c, x) = g(conv(c, x))`). Each thread then computes exactly its own tile of it, so
/// its box is the tile, of a constant size whatever the tail, even with points per thread along
/// x or in two dimensions (which Halide 14 cannot bound for Funcs read at other translations).
/// -1 when `root` has none.
int register_tile_reduction(const PipelineDag &dag, int root);

/// As register_tile_reduction, for any Func `root` of one stage (an output or not).
int pointwise_reduction(const PipelineDag &dag, int root);

/// A loop of Func `func`'s pure stage over a constant dim (FuncNode::constant_dims) of 2..32
/// values along which the reduction it reads pointwise (pointwise_reduction) shares most of its
/// work (StageNode::unrolled_jointly): run whole in each thread, every reduction step updates
/// all of its values' sums from what it loads and computes once (bgu's splat: 22 sums per grid
/// cell). Its index in the stage's loops, or -1.
int pinned_reduction_loop(const PipelineDag &dag, int func);

/// A reduction fused per thread in registers: the extents of its update's reduction loops that
/// state_to_spec unrolls inside each thread around the unrolled tile, innermost first. The
/// innermost when it is a few taps (2..8 steps, a convolution's kernel width), and the next one
/// too when it is also a few taps and both make at most 9 steps (a 3x3 kernel's taps: on the
/// H200 conv_layer ran 0.88 ms with both unrolled, 0.95 ms with the innermost only). Empty: none.
std::vector<int64_t> unrolled_tap_loops(const StageNode &update);
/// The product of unrolled_tap_loops: the steps unrolled together (1: none).
int64_t unrolled_taps(const StageNode &update);

/// Kernels of the decided part of a state. Undecided producers are read as if stored at root.
std::vector<KernelModel> build_kernel_models(const PipelineDag &dag, const ScheduleState &state,
                                             const struct GpuProfile &gpu);

/// The kernel computing a given stage of a Root Func in `state`. A register tile reduction of
/// the root (register_tile_reduction) not decided yet is costed fused per thread into it when it
/// can live in registers there (a lookahead: the search decides consumers first, and the kernel's
/// tiling is worth what the reduction makes of it; its own decision comes next).

KernelModel build_kernel_model(const PipelineDag &dag, const ScheduleState &state, int root, int stage,
                               const GpuProfile &gpu);

}  // namespace hlsched
