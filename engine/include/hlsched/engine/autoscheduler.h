// The engine's front door: a built pipeline and options in; a schedule, its predicted costs and
// search statistics out. The CLI, the Halide plugin and the language server all call this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// Every knob of the autoscheduler, shared by the CLI, the plugin's parameters and the server's
/// configuration (same names everywhere).
struct AutoschedulerOptions {
  std::string gpu_profile = "h200";  ///< see gpu_profiles()
  /// "beam": the search of Anderson et al. 2021 (default); "simple": inline pointwise Funcs,
  /// compute_root + gpu_tile the rest (the baseline, and the fallback for a hopeless budget).
  std::string strategy = "beam";
  int beam_size = 32;           ///< states kept per step of the beam search
  int passes = 2;               ///< coarse-to-fine passes after the first (inline/root-only) pass
  bool freeze = true;           ///< two-phase search: freeze all but the ~log2(N) costliest stages
  bool sampling = true;         ///< hierarchical sampling of structurally similar tilings
  bool polish = true;           ///< a final coordinate descent from the best schedule, then widening (BeamSearch::polish)
  bool memo = true;             ///< reuse per-kernel costs across states (and across runs)
  uint64_t seed = 0;            ///< random choices (sampling, tie breaks) are deterministic per seed
  /// Anytime: how much the search may do before it returns its best schedule so far, counted in
  /// work (kernel costings and states), not on the clock, in seconds of the reference machine
  /// (search/search_work.h): the same pipeline and options give the same schedule on any machine
  /// under any load.
  double work_budget = 8.0;
  /// A wall-clock limit besides (a slow or overloaded machine): when it runs out first the search
  /// returns its best so far, and its pick may then depend on the load (SearchStats::time_limit_reached).
  double time_budget_s = 30.0;
  std::string memo_path;        ///< optional file to load the cost memo from and save it to
  /// The cost model: "hand" (the GPU profile's rates, default coefficients), "learned" (the
  /// hybrid network of cost/learned_model.h, with `weights` or the GPU's embedded weights) or
  /// "both" (the default: each searches; the schedule with the lowest geometric mean of the two
  /// predictions wins, its costs reported by the learned model; about twice the search time).
  /// Either model alone picks schedules the other prices much slower and that run slow
  /// (docs/PERFORMANCE.md, sessions twenty-two and twenty-three).
  std::string model = "both";
  std::string weights;          ///< learned model: a weights file from `hlsched train` (empty: embedded)
  /// Beam strategy: which of the search's distinct schedules, best predicted first, to return
  /// (0: the best). `hlsched schedule --measure K` builds candidates 0..K-1, one per variant.
  int candidate = 0;
};

/// Predicted cost of one stage, split into terms that each mean something physical.
struct StageCost {
  std::string func;
  int stage = 0;
  std::string placement;                 ///< "inline", "root kernel", ...
  double predicted_ms = 0;
  std::map<std::string, double> terms_ms;  ///< "compute", "global_memory", "launch", ...
  std::string bound;                     ///< the dominant term: "memory", "compute" or "launch"
  int64_t points = 0;
  double bytes_moved = 0;
  double operations = 0;
};

struct SearchStats {
  double time_ms = 0;
  int64_t states_evaluated = 0;   ///< complete or partial states whose cost was computed
  int64_t kernels_costed = 0;     ///< kernel cost evaluations actually computed
  int64_t memo_hits = 0;          ///< kernel costs found in the memo
  int64_t memo_entries_loaded = 0;///< entries read from memo_path
  int frozen_funcs = 0;           ///< Funcs frozen after the first pass
  int warm_start_funcs = 0;       ///< Funcs that kept the previous search's decision (memo_path)
  int passes_completed = 0;
  int polished_moves = 0;         ///< decisions the final coordinate descent changed (cheaper)
  int widened_kernels = 0;        ///< kernels made a warp wide along x after it (BeamSearch::widen)
  bool budget_exhausted = false;  ///< the work budget or the time limit ran out before the planned passes
  bool time_limit_reached = false;///< it was the time limit (the pick may depend on the machine's load)
  double work = 0;                ///< the work done, in work_budget's unit (reference seconds)
  std::string fallback;           ///< why the simple schedule was used instead, if it was
  std::string strategy;
};

struct ScheduleResult {
  ScheduleSpec schedule;
  std::string schedule_code;  ///< body for the generator's schedule(), compiles as pasted
  double predicted_runtime_ms = 0;
  std::vector<StageCost> stages;
  std::string target;
  std::string gpu_profile;
  std::string cost_model;     ///< how predictions were made, for the user
  SearchStats search;
  /// The search state's decisions in the warm-start text format (search/warm_start.h), for
  /// datasets that re-featurize a schedule later; empty for the simple strategy.
  std::string decisions;
  /// The schedule-space constructs it uses ("fused per block", "2-D points per thread"...; the
  /// table in docs/ARCHITECTURE.md); empty for the simple strategy.
  std::vector<std::string> constructs;
};

/// Every construct name ScheduleResult::constructs may hold, in the documented table's order.
const std::vector<std::string> &schedule_constructs();

/// Schedules the pipeline for the GPU. Does not modify the pipeline (see apply_schedule).
ScheduleResult schedule_pipeline(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                 const AutoschedulerOptions &options);

/// The beam search's `count` best distinct schedules (distinct as emitted code), best predicted
/// first; fewer when the search's final beams hold fewer. Element i is what schedule_pipeline()
/// returns with `candidate` = i (one search: the options' `candidate` is ignored). Other
/// strategies give their one schedule.
std::vector<ScheduleResult> schedule_candidates(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                                const AutoschedulerOptions &options, int count);

/// The schedule a search returned, rebuilt from its decisions (ScheduleResult::decisions) with no
/// search: the same schedule wherever and whenever it is rebuilt. A search under a time budget
/// may choose differently under another load; `hlsched schedule --measure` gives GenGen each
/// candidate this way, so that what runs on the GPU is what was predicted. Throws
/// std::invalid_argument when the text is damaged or does not decide every Func of `dag`.
ScheduleResult schedule_from_decisions(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                       const AutoschedulerOptions &options, const std::string &decisions);

/// Random complete schedules drawn by random walks over the search's options (training data,
/// fuzzing): samples first_index .. first_index + count - 1 of the sequence for `seed`. Each sample
/// depends only on (seed, index), so one can be redrawn alone for a fresh instance of the pipeline.
std::vector<ScheduleResult> sample_schedules(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                             const AutoschedulerOptions &options, int count, uint64_t seed,
                                             int first_index = 0);

}  // namespace hlsched
