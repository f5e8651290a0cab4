// The search of Anderson et al. 2021 over ScheduleStates.
//
// Reading guide:
//  1. Pass 0 (coarse): a beam search where every Func is only inlined or given its own kernel with
//     the default tiling. It is fast and gives a complete schedule to fall back on.
//  2. Freezing: the Funcs of the cheapest kernels keep their decision; only the costliest
//     ~log2(N) kernels and their producers are searched again.
//  3. Passes 1..P (fine): beam search with every option (tilings, fusion into blocks and threads)
//     for the unfrozen Funcs; pass p starts from the best schedule so far and opens p times as
//     many kernels (coarse to fine). Tilings that look alike (same structural hash) are grouped
//     and only a few random representatives of each group are evaluated (hierarchical sampling).
//  4. Every kernel cost goes through a memo keyed by what the kernel computes, so states sharing
//     kernels (most of them) share the work, within a run and across runs.
//  5. The search is anytime: when its work budget (search_work.h) or its time limit runs out,
//     the current beam is completed greedily and the best complete schedule so far is returned.
//  6. Warm start (the daemon's next edit): given the previous schedule's decisions for the Funcs
//     that did not change (warm_start.h), one fine pass searches only the changed Funcs and their
//     producers and consumers, the others keeping their decisions. When that finds nothing valid,
//     or most of the pipeline changed, the full search runs.
#pragma once

#include <map>
#include <memory>
#include <random>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/gpu_profile.h"
#include "cost/learned_model.h"
#include "search/cost_memo.h"
#include "search/schedule_state.h"
#include "search/search_work.h"

namespace hlsched {

struct SearchOutcome {
  ScheduleState best;
  SearchStats stats;
  /// Complete, valid states of the passes' final beams, cheapest first; `best` is the first when
  /// it is complete. May repeat a schedule (the caller compares what they emit). The candidates
  /// `hlsched schedule --measure K` benchmarks.
  std::vector<ScheduleState> ranked;
};

/// What the search ranks a kernel by: its predicted time with its launch term counted twice
/// (beam_search.cpp says why). Reported times price the launch once, as measured.
double search_price_ms(double predicted_ms, const std::map<std::string, double> &terms_ms);

class BeamSearch {
public:
  BeamSearch(const PipelineDag &dag, const GpuProfile &gpu, const AutoschedulerOptions &options, CostMemo &memo);

  /// `previous`: the decisions kept from the previous search (a partial state), or null.
  SearchOutcome run(const ScheduleState *previous = nullptr);

  /// Cost of the decided part of a state (sum of its kernels); +inf when a kernel is invalid.
  double evaluate(ScheduleState &state);
  /// The same for `child` = `parent` + a decision for `func`: with memoization on, only the
  /// kernels that decision can change are re-costed; the others keep the parent's costs.
  double evaluate_child(const ScheduleState &parent, ScheduleState &child, int func);

  /// A complete state drawn by a random walk over the same options (for sampling and fuzzing).
  ScheduleState random_walk(std::mt19937_64 &rng);
  /// The generator of sample `index` of the sequence for `seed` (sample_schedules, training data).
  static std::mt19937_64 sample_rng(uint64_t seed, int index) {
    std::seed_seq sequence{uint32_t(seed), uint32_t(seed >> 32), uint32_t(index)};
    return std::mt19937_64(sequence);
  }

private:
  using Beam = std::vector<ScheduleState>;

  /// How the frozen Funcs of a pass are decided: their first-pass decision, which they may
  /// still trade for inlining or fusion (two-phase search), or exactly the previous decision.
  enum class Frozen { MayFuse, Fixed };
  Beam search_pass(bool coarse, const std::vector<bool> &frozen, const ScheduleState *frozen_source, int beam_size,
                   Frozen mode = Frozen::MayFuse);
  std::vector<DecisionPtr> children(const ScheduleState &state, int func, bool coarse,
                                    const std::vector<bool> &frozen, const ScheduleState *frozen_source, Frozen mode);
  bool warm_pass(const ScheduleState &previous, SearchOutcome &outcome);
  const std::vector<DecisionPtr> &standalone(int func, bool coarse);
  /// Every option for `func` in `state`: its standalone options and the fusions its consumers
  /// allow, without those that would lower an atomic scatter to a compare-and-swap loop.
  std::vector<DecisionPtr> options_in(const ScheduleState &state, int func, bool coarse);
  std::vector<DecisionPtr> sample(std::vector<DecisionPtr> options, int func);
  Beam select(Beam candidates, int beam_size) const;
  /// Adds a pass's final beam to the outcome's candidates.
  static void add_finalists(const Beam &beam, SearchOutcome &outcome);
  /// Orders the candidates, the best first.
  static void rank_finalists(SearchOutcome &outcome);
  void add_retiled_fusions(const ScheduleState &state, int func, const DecisionPtr &fusion,
                           const std::vector<bool> &frozen, const ScheduleState *frozen_source, Beam &next);
  const std::vector<DecisionPtr> &retilings(int kernel);
  /// Puts `state` into the beam (in place of the last) unless it is there already.
  void keep_in_beam(const ScheduleState &state, Beam &beam, int beam_size) const;
  double kernel_cost(const ScheduleState &state, int root);
  void kernels_containing(const ScheduleState &state, int func, std::vector<int> &roots) const;
  std::vector<bool> choose_frozen(const ScheduleState &source, double widen);
  bool still_valid(const ScheduleState &state, int func, const FuncDecision &d) const;
  /// Whether every fusion of `state` is still valid, and those into the kernel of Func `changed`
  /// (whose decision just changed) still among the options that kernel offers.
  bool fusions_still_offered(const ScheduleState &state, int changed) const;
  /// Coordinate descent from the outcome's best schedule (after the passes), then widen(). Each
  /// Func also tries inlining where the options leave it out but polish may (inline_left_to_polish).
  void polish(SearchOutcome &outcome);
  /// Polish's paired move: Root Func `func` inlined into the kernel that reads it, together with
  /// each of that kernel's own tilings; true when one was kept.
  bool polish_inlined_with_retiling(ScheduleState &best, int func);
  /// Polish's other paired move: Func `func` at root with its pinned loop whole in each thread
  /// (pinned_reduction_loop) and the reduction it copies fused into it per thread.
  bool polish_pinned_reduction(ScheduleState &best, int func);
  /// The Inline decision polish gives a Func the options leave inlining out of
  /// (inline_left_to_polish).
  static DecisionPtr inlined_decision();
  /// A polish move: `child` replaces `best` when predicted kPolishMinGain cheaper with every
  /// fusion into the kernel of Func `changed` still offered; true when it did.
  bool keep_polished_move(ScheduleState &best, ScheduleState child, int changed);
  /// Stages narrower than a warp along their coalescing loop made a warp wide where the model
  /// calls it a tie.
  void widen(ScheduleState &best);
  static constexpr int kPolishRounds = 3;
  /// A move must be predicted this much cheaper: below it the model cannot tell (lens_blur's
  /// gathered at 16x32 threads, predicted 1e-5 cheaper than 32x16, ran 1.29x slower on the H200).
  static constexpr double kPolishMinGain = 0.005;
  /// The work budget or the time limit has run out (noted in the stats).
  bool out_of_budget();

  const PipelineDag &dag_;
  const GpuProfile &gpu_;
  const AutoschedulerOptions &options_;
  CostMemo &memo_;
  std::shared_ptr<const LearnedCostModel> model_;  ///< null: the hand model
  std::string memo_tag_;                           ///< the GPU and the model, in memo keys
  std::vector<uint64_t> content_;
  std::vector<std::vector<int>> producers_;  ///< DAG indices of each Func's producers
  std::vector<std::vector<int>> consumers_;  ///< and of its consumers
  /// standalone_options() per Func, fine [0] and coarse [1], generated once per search.
  std::vector<std::vector<DecisionPtr>> standalone_[2];
  /// Each Func's root tilings, for re-tiling a kernel when something fuses into it.
  std::vector<std::vector<DecisionPtr>> retilings_;
  std::vector<int> order_;
  std::mt19937_64 rng_;
  /// Sampling of the update-option groups (own tilings, unrolled reduction loops) draws from its
  /// own stream, so that adding them leaves every other group's draws as they were.
  std::mt19937_64 update_options_rng_;
  /// Draws the extra tail-free tilings of sample() (its own, so that the other draws stay as they were).
  std::mt19937_64 tail_free_rng_;
  SearchStats stats_;
  SearchWork work_;
  double deadline_s_ = 0;
};

}  // namespace hlsched
