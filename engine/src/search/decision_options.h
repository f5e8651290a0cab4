// The legal next decisions for one Func of a state: inline, its own kernel with one of many GPU
// tilings, or fused into the kernel that consumes it (per block in shared memory, per thread in
// registers). Limits come from the GPU profile; clearly wasteful options are pruned here so the
// search never sees them.
#pragma once

#include <vector>

#include "hlsched/engine/gpu_profile.h"
#include "search/schedule_state.h"

namespace hlsched {

class LearnedCostModel;

struct OptionLimits {
  bool coarse = false;           ///< first pass: only inline or root with the default tiling
  double max_recompute = 10;     ///< fused Funcs: computed points / needed points
  double max_thread_points = 64; ///< thread-level fusion: points per thread
  /// Tilings that run a small loop (channels) whole inside each thread, for every stage. Else
  /// only where the loop's iterations share values (decision_options.cpp): on the H200
  /// (2026-12-01, docs/PERFORMANCE.md) stages that reload per channel ran 2-3x slower with the
  /// loop inside the thread, which the model predicted level or faster. Random walks keep all.
  bool small_loops_in_thread = false;
  /// Update stages: every tiling of their own and every unroll of their innermost reduction
  /// loop, spread over the pure stage's tilings (random walks). Else (the search) each update's
  /// best own tiling and best unroll by the kernel model, alongside the inherited tiling.
  bool every_update_option = false;
  /// The model that ranks an update's own tilings and unrolls (the search's model; null: the
  /// hand model). Ranked by another model than the search's, its choices are the other's best.
  const LearnedCostModel *model = nullptr;
};

/// Candidate GPU tilings of one stage. The first is the default (32 wide, 256 threads). With
/// `register_tiles`, also the larger tiles of points per thread (2x4 to 8x4) that pay where the
/// kernel holds a reduction in registers over them (register_tile_reduction). `whole_loop`: a
/// loop (index into the stage's loops) offered whole inside each thread whatever its extent
/// (pinned_reduction_loop).
std::vector<StageTiling> tiling_options(const StageNode &stage, int stage_index, const GpuProfile &gpu, bool coarse,
                                        bool small_loops_in_thread = false, bool register_tiles = false,
                                        int whole_loop = -1);


/// The tiling of an update stage, following the tiling chosen for the pure stage.
StageTiling update_tiling(const StageNode &update, const StageTiling &pure, const GpuProfile &gpu);

/// Tilings of an update stage of its own (StageTiling::own_tiling), whatever the pure stage's.
std::vector<StageTiling> own_update_tilings(const StageNode &update, const GpuProfile &gpu);

/// The factors by which an update's innermost reduction loop may be unrolled inside each thread
/// with `tiling` (none for atomic scatters or without reduction loops).
std::vector<int64_t> reduction_unroll_factors(const StageNode &update, const StageTiling &tiling);

/// The slab sizes into which an update's outermost reduction loop may be split with `tiling`
/// (StageTiling::slab), so producers are copied into shared memory per slab (none for pure
/// stages, atomic scatters, one-thread kernels, or loops whole inside each thread).
std::vector<int64_t> slab_sizes(const StageNode &update, const StageTiling &tiling);

/// The children of `state` for DAG Func `func` (which must be the next undecided one). Every
/// returned decision is legal in Halide and within the profile's limits. They are the
/// standalone options followed by the fusion options below.
std::vector<FuncDecision> decision_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                           const GpuProfile &gpu, const OptionLimits &limits);

/// The options that do not depend on the rest of the state (inline, own kernel with each
/// tiling): the search generates them once per Func and shares them between states.
std::vector<FuncDecision> standalone_options(const PipelineDag &dag, int func, const GpuProfile &gpu,
                                             const OptionLimits &limits);

/// Every fusion of `func` with another kernel legal in `state`: sibling_options, then
/// consumer_fusion_options.
std::vector<FuncDecision> fusion_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                         const GpuProfile &gpu, const OptionLimits &limits);

/// Fusion into the kernel that consumes `func` (per block or per thread), when legal in `state`.
std::vector<FuncDecision> consumer_fusion_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                                  const GpuProfile &gpu, const OptionLimits &limits);

/// `func` computed in the kernel of a sibling (FuncDecision::computed_with): a Root Func decided
/// already, with one pure stage over the same loops and region as `func`'s, that neither feeds
/// `func` nor is fed by it, and shares its kernel with no other. `func` takes the sibling's tiling.
std::vector<FuncDecision> sibling_options(const PipelineDag &dag, const ScheduleState &state, int func,
                                          const GpuProfile &gpu, const OptionLimits &limits);

/// Equal tilings (what a Func computed with a sibling must keep: the sibling's).
bool same_tiling(const StageTiling &a, const StageTiling &b);

/// The single kernel that consumes `func` in `state` (through inlined consumers), or -1 when its
/// consumers live in several kernels (or none is decided yet).
int consuming_kernel(const PipelineDag &dag, const ScheduleState &state, int func);

/// Whether every use of `func` is by kernel `root`'s own stage (possibly through inlined Funcs),
/// not by a Func fused into the block: a per-thread value is not visible to block-level stages.
bool only_root_consumes(const PipelineDag &dag, const ScheduleState &state, int func, int root, int depth = 0);

/// Whether `d`, a fusion of `func` per block or per thread made earlier, is still legal in `state`,
/// whose other decisions may have changed since: its consumers still live in its kernel, that
/// kernel is still a root with block loops of its own (not in partial results, not privatized),
/// and per thread, the kernel's own stage is still its only reader.
/// Other decisions are always legal here.
bool fusion_still_legal(const PipelineDag &dag, const ScheduleState &state, int func, const FuncDecision &d);

/// Whether Func `func` could be inlined but the options leave that out (read at several points per
/// consumer point, too much work recomputed at each to offer it to the beam, which decides it
/// before its producers and cannot price it), while the work recomputed per consumer point stays
/// within kPolishInlineMaxWork operations: polish tries it with the rest of the schedule decided.
bool inline_left_to_polish(const PipelineDag &dag, int func);

/// Operations recomputed per consumer point (calls x the Func's arithmetic) up to which polish
/// tries inlining a Func the options leave out: local_laplacian's remap lookup, 5 calls x 14
/// operations, which its manual schedule inlines into the next pyramid level.
constexpr double kPolishInlineMaxWork = 160;

}  // namespace hlsched
