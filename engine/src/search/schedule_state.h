// A node of the search: a partial or complete GPU schedule, decided Func by Func from the outputs
// back to the inputs.
//
// Per Func: inline; its own kernel (Root) with a GPU tiling of each stage; or fused into the kernel
// of a Root Func, computed per GPU block (storage in shared memory) or per GPU thread (registers).
// The state holds only decisions; what they imply (regions per block, footprints, costs) is derived
// by kernel_model.h and gpu_cost_model.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// How one stage's parallel loops map onto the GPU. Loops are the stage's parallel (pure) loops,
/// innermost first. A tiled loop (threads > 1 or serial > 1) is split into GPU blocks x threads x
/// serial points per thread; an `in_thread` loop (a small one: channels, taps) runs whole inside
/// each thread; any other loop becomes a GPU block dimension.
struct StageTiling {
  std::vector<std::string> vars;   ///< parallel loops, innermost first
  std::vector<int64_t> extents;    ///< their estimated extents
  std::vector<int64_t> threads;    ///< GPU threads along each loop (1: none)
  std::vector<int64_t> serial;     ///< points per thread along each loop (register blocking)
  std::vector<bool> in_thread;     ///< the whole loop runs inside each thread
  bool single_thread = false;      ///< nothing parallel (a scan or scatter): one GPU thread
  bool atomic = false;             ///< the loops are reduction loops run in parallel with atomics
  /// Atomic scatters only (a histogram): the reduction is privatized. One GPU block per strip of
  /// `serial.back()` iterations of the outermost reduction loop (factored out with rfactor)
  /// accumulates its strip into its own copy of the Func in shared memory (atomics within the
  /// block), then adds that copy into the output, one global atomic per point of the Func.
  /// The tiling spans the whole innermost loop (threads x serial), so blocks() counts strips.
  bool privatized = false;
  /// Updates with no pure loop to spread (a total, or a histogram without atomics, run in one
  /// thread): the reduction is factored along its innermost reduction loop (rfactor) into
  /// partial results, a Func of their own computed at root with a GPU thread per iteration of
  /// that loop (`threads` per block; the other reduction loops whole inside each thread). The
  /// stage itself then combines them: a total in one thread, a histogram a thread per bin.
  bool partials = false;
  /// A total's partial results (`partials`, no pure loop) combined in two levels: a second
  /// factoring gives this many partial results of partial results, a GPU thread each stepping
  /// through every this-many-th first-level one, and the stage combines those in one thread.
  /// One thread stepping through every partial result took ~22 ns a step on the H200 (238
  /// kernels: 1,024 partial results, 22 us, up to 60% of a pipeline). 0: one level.
  int64_t partials_regroup = 0;
  /// With `partials`, where the update has a pure loop (a row or column reduction whose pure
  /// points are too few to fill the GPU): each of its points gets `threads[k]` partial results
  /// along reduction loop `vars[k]` (partial_loop_per_point), consecutive partial results taking
  /// consecutive iterations, each stepping `serial[k]` times through the loop; the update's pure
  /// loop is tiled over threads beside it. The stage then combines them a thread per point.
  /// Update stages: the innermost reduction loop split by this factor, the inner part unrolled
  /// inside each thread (instruction-level parallelism: the unrolled steps' loads issue together
  /// and each step's value reaches the next in registers). 1: the loop runs as it is.
  int64_t reduction_unroll = 1;
  /// Update stages: threads chosen for this stage itself rather than following the pure stage's
  /// tiling (update_tiling), with blocks of its own shape.
  bool own_tiling = false;
  /// Update stages: the outermost reduction loop split into slabs of this many iterations, the
  /// loop over slabs placed between the block loops and the thread loops, so that a Func fused
  /// per slab (FuncDecision::per_slab) is copied cooperatively into shared memory by the block's
  /// threads once per slab, then read by every thread's steps. 0: not staged.
  int64_t slab = 0;

  int64_t threads_per_block() const;
  int64_t tile(size_t i) const { return threads[i] * serial[i]; }
  bool tiled(size_t i) const { return !in_thread[i] && (threads[i] > 1 || serial[i] > 1); }
  bool has_in_thread_loop() const { return std::find(in_thread.begin(), in_thread.end(), true) != in_thread.end(); }
  /// A tiled loop past the first two (which Halide's gpu_tile spreads over the block's threads):
  /// one thread wide, a few rows per thread (depthwise convolutions' channels x columns of threads,
  /// 4 rows each). It is split into GPU blocks x rows, its blocks fused with the other block loops.
  bool row_loop(size_t i) const;
  int64_t blocks() const;            ///< number of GPU blocks
  int64_t points_per_thread() const;
  /// Index of the innermost thread loop (the coalescing dimension), or -1.
  int innermost_thread_loop() const;
};

/// The index in `tiling.vars` of the reduction loop whose partial results each point of the Func
/// gets (StageTiling::partials of an update with a pure loop), or -1: not partials, or a total's
/// or histogram's (every var a reduction loop).
int partial_loop_per_point(const StageTiling &tiling, const StageNode &update);

/// The reduction loops of an atomic or privatized update's tiling: its first vars (innermost
/// first); the vars after them are its pure loops (a histogram per channel's c), block loops.
size_t reduction_loops_in(const StageTiling &tiling, const StageNode &update);

/// GPU threads a privatized update's copy of `bins` bins is zeroed and added back with (one bin
/// each, at most 256): the launched block is at least this wide, whatever the scatter's threads.
int64_t privatized_copy_threads(int64_t bins);

struct FuncDecision {
  ComputeLevel level = ComputeLevel::Inline;
  int kernel_root = -1;                ///< Block/Thread: DAG index of the Root Func computing it
  std::vector<StageTiling> tilings;    ///< Root: one per stage
  /// Block level: computed once per slab of the kernel's reduction loop (StageTiling::slab), at
  /// the loop over slabs, not once per block.
  bool per_slab = false;
  /// Root level: the DAG index of a sibling Root Func whose kernel also computes this Func
  /// (Halide's compute_with at the sibling's innermost block loop): the same tiling, the same
  /// grid, one launch, and the inputs both read loaded once. Siblings are neither's producer, have
  /// the same loops over regions of the same size, and one stage each (sibling_options). -1: none.
  int computed_with = -1;
};

using DecisionPtr = std::shared_ptr<const FuncDecision>;

/// The decisions of a state, by DAG index. States are copied for every child the search
/// considers but differ in one decision, so each decision is shared between the states that
/// hold it (copy-on-write): a copy costs one pointer per Func, never a deep copy of tilings.
class DecisionTable {
public:
  explicit DecisionTable(size_t funcs);

  const FuncDecision &operator[](size_t func) const { return *slots_[func]; }
  size_t size() const { return slots_.size(); }
  const DecisionPtr &shared(size_t func) const { return slots_[func]; }
  void set(size_t func, FuncDecision decision);
  void set(size_t func, DecisionPtr decision) { slots_[func] = std::move(decision); }

private:
  std::vector<DecisionPtr> slots_;
};

class ScheduleState {
public:
  explicit ScheduleState(const PipelineDag &dag);

  /// DAG indices in decision order: consumers before producers.
  static std::vector<int> decision_order(const PipelineDag &dag);

  bool complete() const { return num_decided == int(decisions.size()); }

  /// Makes (or replaces) the decision for `func`.
  void decide(int func, FuncDecision decision);
  void decide(int func, DecisionPtr decision);

  DecisionTable decisions;
  std::vector<bool> decided;
  int num_decided = 0;
  double cost_ms = 0;                   ///< of the decided part
  /// Cost of each Root Func's kernels (all its stages) in this state, kept by the search so a
  /// child re-costs only the kernels its new decision touches. Empty until the state is costed.
  std::vector<double> kernel_ms;

  /// Hash of every decision (two states with equal hashes are the same schedule).
  uint64_t exact_hash() const;
  /// Hash of the decisions' structure without tile sizes, for diversity and sampling groups.
  uint64_t structural_hash() const;
};

/// Human-readable one-line description of a decision ("root 32x8 threads, 4 rows/thread").
std::string describe_decision(const PipelineDag &dag, int func, const FuncDecision &decision);

}  // namespace hlsched
