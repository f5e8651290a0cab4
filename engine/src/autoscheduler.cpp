#include "hlsched/engine/autoscheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "cost/gpu_cost_model.h"
#include "cost/kernel_model.h"
#include "cost/learned_model.h"
#include "cost/roofline.h"
#include "schedule/state_to_spec.h"
#include "search/constructs.h"
#include "search/beam_search.h"
#include "search/content_hash.h"
#include "search/warm_start.h"
#include "hlsched/engine/gpu_profile.h"
#include "schedule/gpu_limits.h"
#include "schedule/simple_scheduler.h"

namespace hlsched {

namespace {

std::string format_ms(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ms < 0.1 ? "%.4f ms" : "%.3f ms", ms);
  return buf;
}

std::string placement_comment(const PipelineDag &dag, const FuncSchedule &fs, const std::vector<StageCost> &costs) {
  const FuncNode *func = dag.find(fs.func);
  if (fs.level == ComputeLevel::Inline) {
    std::string into;
    for (const auto &c : func->consumers) into += (into.empty() ? "" : ", ") + c;
    return fs.func + ": inlined into " + into + " (cheap to recompute at each use)";
  }
  double ms = 0;
  std::string bound;
  for (const StageCost &c : costs)
    if (c.func == fs.func) {
      ms += c.predicted_ms;
      bound = c.bound;
    }
  std::string where = func->has_extern_definition ? "extern stage" : "own kernel, stored in global memory";
  return fs.func + ": " + where + "; predicted " + format_ms(ms) + " (" + bound + "-bound)";
}

// Per-stage costs of a complete state: one entry per kernel.
std::vector<StageCost> kernel_costs(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu,
                                    const LearnedCostModel *model) {
  std::vector<StageCost> costs;
  for (const KernelModel &km : build_kernel_models(dag, state, gpu)) {
    KernelCost kc = predict_kernel_cost(model, dag, state, km, gpu);
    StageCost c;
    c.func = dag.funcs[km.root].name;
    c.stage = km.stage;
    c.placement = describe_decision(dag, km.root, state.decisions[km.root]);
    for (const FusedFunc &f : km.fused)
      c.placement += (f.func == km.fused.front().func ? "; computes " : ", ") + dag.funcs[f.func].name;
    c.predicted_ms = kc.total_ms;
    c.terms_ms = kc.terms_ms;
    c.bound = kc.bound;
    c.points = dag.funcs[km.root].stages[km.stage].points;
    c.operations = km.blocks * (km.ops_per_block + km.math_ops_per_block);
    c.bytes_moved = km.store_bytes;
    for (const GlobalRead &g : km.global_reads) c.bytes_moved += km.blocks * g.footprint_per_block * g.bytes_per_element;
    costs.push_back(c);
  }
  return costs;
}

std::string state_comment(const PipelineDag &dag, const ScheduleState &state, int f, const std::vector<StageCost> &costs) {
  const FuncDecision &d = state.decisions[f];
  const FuncNode &func = dag.funcs[f];
  if (d.level == ComputeLevel::Inline) {
    std::string into;
    for (const auto &c : func.consumers) into += (into.empty() ? "" : ", ") + c;
    return func.name + ": inlined into " + into;
  }
  if (d.level != ComputeLevel::Root) return func.name + ": " + describe_decision(dag, f, d);
  double ms = 0;
  std::string bound;
  for (const StageCost &c : costs)
    if (c.func == func.name) ms += c.predicted_ms, bound = c.bound;
  return func.name + ": " + describe_decision(dag, f, d) + "; predicted " + format_ms(ms) + " (" + bound + "-bound)";
}

// The target the schedule is for: the profile's, with large_buffers when the pipeline's buffers
// need it (Halide then checks sizes in 64 bits; without it they fail at run time). Comments say
// so, and name what no schedule can help: buffers beyond 32-bit device indices.
void set_target_for_buffer_sizes(const PipelineDag &dag, const GpuProfile &gpu, ScheduleResult &result) {
  result.target = gpu.halide_target;
  if (needs_large_buffers(dag, result.schedule)) {
    result.target += "-large_buffers";
    result.schedule.header_comments.push_back(
        "Buffers of 2^31 or more elements or bytes: compile for a target with the large_buffers feature.");
  }
  for (const std::string &name : buffers_beyond_device_indexing(dag)) {
    const std::string note = name + " has more than 2^31 elements: Halide 14's GPU kernels index it with 32-bit "
                                    "integers and cannot reach all of it.";
    spdlog::warn("hlsched: {}", note);
    result.schedule.header_comments.push_back(note);
  }
  for (const FuncSchedule &fs : result.schedule.funcs) {
    const FuncNode *f = dag.find(fs.func);
    if (f && fs.level == ComputeLevel::Root && too_large_to_store_on_device(*f)) {
      const std::string note = fs.func + " is stored in global memory with more than 2^31 elements (it cannot be "
                                         "inlined): Halide 14's GPU kernels index it with 32-bit integers.";
      spdlog::warn("hlsched: {}", note);
      result.schedule.header_comments.push_back(note);
    }
  }
}

// The options that shape a search's result: a warm start is taken only from an equal search.
uint64_t search_options_key(const AutoschedulerOptions &o) {
  ContentHash<0x510e527fade682d1ULL> h;
  // Warm starts saved before the DAG read stages' loops from their algorithm (not from a
  // pasted schedule's split loops) hold decisions costed on wrong loops: not taken.
  h.add(std::string("algorithm-loops"));
  h.add(o.gpu_profile);
  h.add(o.model);
  h.add(o.weights);
  for (uint64_t v : {uint64_t(o.beam_size), uint64_t(o.passes), uint64_t(o.freeze), uint64_t(o.sampling), uint64_t(o.polish), o.seed}) h.add(v);
  return h.h;
}

ScheduleResult result_for_state(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu,
                                const std::string &strategy, const LearnedCostModel *model) {
  ScheduleResult result;
  result.schedule = state_to_spec(dag, state, gpu);
  result.constructs = constructs_used(dag, state);
  result.stages = kernel_costs(dag, state, gpu, model);
  result.predicted_runtime_ms = gpu.pipeline_call_seconds * 1e3;  // then the kernels, each with its launch
  for (const StageCost &c : result.stages) result.predicted_runtime_ms += c.predicted_ms;
  for (FuncSchedule &fs : result.schedule.funcs)  // an rfactor's intermediate keeps its own comment
    if (const int f = dag.index_of(fs.func); f >= 0) fs.comment = state_comment(dag, state, f, result.stages);
  result.gpu_profile = gpu.name;
  result.cost_model = model ? "learned hybrid model (" + model->source() + ": " + provenance_summary(model->weights().provenance) +
                                  "): coefficients x the " + gpu.name + " profile's cost terms"
                            : "GPU cost terms from the " + gpu.name +
                                  " profile's rates (compute, DRAM/L2/L1 traffic with coalescing, shared memory, "
                                  "occupancy, launches); hand-set coefficients (--model hand)";
  result.schedule.header_comments = {
      "Schedule by hlsched (" + strategy + " search) for " + gpu.halide_target + " on " + gpu.description + ".",
      "Predicted runtime " + format_ms(result.predicted_runtime_ms) + ".",
  };
  set_target_for_buffer_sizes(dag, gpu, result);
  result.schedule_code = emit_schedule_source(result.schedule, EmitContext::GeneratorSchedule);
  result.decisions = WarmStart::from_state(dag, state, 0).to_text();
  return result;
}

ScheduleResult simple_result(const PipelineDag &dag, const GpuProfile &gpu) {
  ScheduleResult result;
  result.schedule = simple_gpu_schedule(dag, gpu);
  result.stages = roofline_costs(dag, result.schedule, gpu);
  result.predicted_runtime_ms = gpu.pipeline_call_seconds * 1e3;
  for (const StageCost &c : result.stages) result.predicted_runtime_ms += c.predicted_ms;
  for (FuncSchedule &fs : result.schedule.funcs) fs.comment = placement_comment(dag, fs, result.stages);
  result.gpu_profile = gpu.name;
  result.cost_model = "roofline estimate from the " + gpu.name +
                      " profile (bytes / bandwidth vs operations / throughput, plus launches); no learned model yet";
  result.schedule.header_comments = {
      "Schedule by hlsched (simple strategy) for " + gpu.halide_target + " on " + gpu.description + ".",
      "Predicted runtime " + format_ms(result.predicted_runtime_ms) + " (" + result.cost_model + ").",
  };
  set_target_for_buffer_sizes(dag, gpu, result);
  result.schedule_code = emit_schedule_source(result.schedule, EmitContext::GeneratorSchedule);
  result.search.states_evaluated = 1;
  return result;
}

// Pipelines of up to this many Funcs are searched twice more: without hierarchical sampling, and
// without freezing (schedule_candidates).
constexpr int kExhaustiveSearchMaxFuncs = 24;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// `b`'s search work added to `a`'s (searches of one pipeline run one after the other).
void add_search_work(SearchStats &a, const SearchStats &b) {
  a.states_evaluated += b.states_evaluated;
  a.kernels_costed += b.kernels_costed;
  a.memo_hits += b.memo_hits;
  a.polished_moves += b.polished_moves;
  a.widened_kernels += b.widened_kernels;
  a.budget_exhausted = a.budget_exhausted || b.budget_exhausted;
  a.time_limit_reached = a.time_limit_reached || b.time_limit_reached;
  a.work += b.work;
}

// `other`'s schedules join `into`'s, cheapest first; its best replaces `into`'s when cheaper.
void merge_outcomes(SearchOutcome &into, SearchOutcome other) {
  const bool better = other.best.complete() && (!into.best.complete() || other.best.cost_ms < into.best.cost_ms);
  if (better) into.best = other.best;
  for (ScheduleState &s : other.ranked) into.ranked.push_back(std::move(s));
  std::stable_sort(into.ranked.begin(), into.ranked.end(),
                   [](const ScheduleState &a, const ScheduleState &b) { return a.cost_ms < b.cost_ms; });
  add_search_work(into.stats, other.stats);
}

std::vector<ScheduleResult> candidates_ranked_by_both_models(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                                             const AutoschedulerOptions &options, int count);

}  // namespace

std::vector<ScheduleResult> schedule_candidates(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                                const AutoschedulerOptions &options, int count) {
  if (options.strategy == "beam" && options.model == "both" && learned_weights_available(options))
    return candidates_ranked_by_both_models(pipeline, dag, options, count);
  const auto start = std::chrono::steady_clock::now();
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  std::vector<ScheduleResult> results;
  SearchStats stats;
  if (options.strategy == "simple") {
    results.push_back(simple_result(dag, gpu));
    stats.states_evaluated = 1;
  } else if (options.strategy == "beam") {
    CostMemo memo;
    const bool keep_memo = options.memo && !options.memo_path.empty();
    int64_t loaded = keep_memo ? int64_t(memo.load(options.memo_path)) : 0;
    // The previous schedule of this memo file's pipeline: unchanged Funcs keep their decisions.
    WarmStart previous;
    const uint64_t options_key = search_options_key(options);
    const WarmStart::Match kept = keep_memo && previous.load(options.memo_path + ".warm")
                                      ? previous.match(dag, options_key)
                                      : WarmStart::Match{ScheduleState(dag), 0};
    BeamSearch search(dag, gpu, options, memo);
    SearchOutcome outcome = search.run(&kept.state);
    if (options.sampling && options.freeze && int(dag.funcs.size()) <= kExhaustiveSearchMaxFuncs) {
      // Hierarchical sampling can drop the one tiling that a later fusion makes the best (unsharp:
      // 32x32 tiles whose luma and blur then fuse per block ran 1.45x faster on the H200 than the
      // sampled search's pick), and freezing can fix a Func before the choice that would pay off
      // (camera_pipe: demosaiced fused per thread, then its producers left as kernels of their
      // own, 0.143 ms predicted against 0.130 unfrozen). A small pipeline is searched again
      // without each, with what is left of the budgets and the same memo; the cheapest wins.
      struct Variant { bool sampling, freeze; };
      for (const Variant v : {Variant{false, true}, Variant{true, false}}) {
        AutoschedulerOptions again_options = options;
        again_options.sampling = v.sampling;
        again_options.freeze = v.freeze;
        again_options.work_budget = options.work_budget - outcome.stats.work;
        again_options.time_budget_s = options.time_budget_s - seconds_since(start);
        if (again_options.work_budget <= 0 || again_options.time_budget_s <= 0) break;
        BeamSearch again(dag, gpu, again_options, memo);
        merge_outcomes(outcome, again.run(&kept.state));
      }
    }
    if (!outcome.best.complete()) {
      // Nothing valid found: the baseline is always valid. Say which Func blocked the search.
      std::string stuck;
      for (size_t f = 0; f < dag.funcs.size(); f++)
        if (!outcome.best.decided[f]) stuck = dag.funcs[f].name;
      spdlog::warn("hlsched: the beam search found no complete schedule (no valid option for {}); "
                   "using the simple schedule", stuck);
      results.push_back(simple_result(dag, gpu));
      outcome.stats.fallback = "no valid option for " + stuck;
    } else {
      const std::shared_ptr<const LearnedCostModel> model = select_cost_model(options);
      std::set<std::string> seen;  // states that differ only where nothing is emitted are one schedule
      for (const ScheduleState &state : outcome.ranked) {
        if (int(results.size()) >= std::max(1, count)) break;
        ScheduleResult r = result_for_state(dag, state, gpu, "beam", model.get());
        if (seen.insert(r.schedule_code).second) results.push_back(std::move(r));
      }
    }
    stats = outcome.stats;
    stats.memo_entries_loaded = loaded;
    if (keep_memo) {
      if (memo.size() != size_t(loaded)) memo.save(options.memo_path);  // nothing new: keep the file
      if (outcome.best.complete())
        WarmStart::from_state(dag, outcome.best, options_key).save(options.memo_path + ".warm");
    }
  } else {
    throw std::invalid_argument("unknown search strategy '" + options.strategy + "' (beam, simple)");
  }
  stats.strategy = options.strategy;
  stats.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (ScheduleResult &r : results) r.search = stats;
  return results;
}

ScheduleResult schedule_pipeline(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                 const AutoschedulerOptions &options) {
  if (options.candidate < 0) throw std::invalid_argument("candidate must be 0 or more");
  std::vector<ScheduleResult> results = schedule_candidates(pipeline, dag, options, options.candidate + 1);
  if (int(results.size()) <= options.candidate)
    throw std::invalid_argument("the search found " + std::to_string(results.size()) +
                                " distinct schedules: there is no candidate " + std::to_string(options.candidate));
  return std::move(results[size_t(options.candidate)]);
}

ScheduleResult schedule_from_decisions(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                       const AutoschedulerOptions &options, const std::string &decisions) {
  (void)pipeline;
  const auto start = std::chrono::steady_clock::now();
  WarmStart saved;
  if (!saved.from_text(decisions)) throw std::invalid_argument("the schedule's decisions are damaged or of another format");
  // result_for_state() saves decisions with options key 0: match them with that key.
  const WarmStart::Match match = saved.match(dag, 0);
  if (!match.state.complete()) {
    std::string missing;
    for (size_t f = 0; f < dag.funcs.size() && missing.empty(); f++)
      if (!match.state.decided[f]) missing = dag.funcs[f].name;
    throw std::invalid_argument("the schedule's decisions do not decide " + missing +
                                " (made for another version of the pipeline?)");
  }
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  const std::shared_ptr<const LearnedCostModel> model = select_cost_model(options);
  ScheduleResult result = result_for_state(dag, match.state, gpu, "beam", model.get());
  result.search.strategy = "decisions";
  result.search.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<ScheduleResult> sample_schedules(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                             const AutoschedulerOptions &options, int count, uint64_t seed,
                                             int first_index) {
  (void)pipeline;
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  CostMemo memo;
  AutoschedulerOptions no_memo = options;
  no_memo.memo = false;
  BeamSearch search(dag, gpu, no_memo, memo);
  const std::shared_ptr<const LearnedCostModel> model = select_cost_model(options);
  std::vector<ScheduleResult> samples;
  for (int i = first_index; i < first_index + count; i++) {
    std::mt19937_64 rng = BeamSearch::sample_rng(seed, i);
    ScheduleState state = search.random_walk(rng);
    if (!state.complete()) continue;
    samples.push_back(result_for_state(dag, state, gpu, "random walk", model.get()));
  }
  return samples;
}

const std::vector<std::string> &schedule_constructs() { return all_constructs(); }

namespace {

// model=both: the hand and the learned model each search; every distinct schedule either finds
// is costed by both and they are ranked by the geometric mean of the two predictions. Each model
// alone picks schedules that the other costs much slower and that run slow: on the H200 the
// learned model's picks were 1.11-1.12x the hand model's on unseen random pipelines but 0.93x on
// the examples (worst 0.60x); the pick both agree on 1.07-1.11x and 1.01x, worst 0.88x
// (docs/PERFORMANCE.md, session twenty-two). The reported costs are the learned model's.
std::vector<ScheduleResult> candidates_ranked_by_both_models(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                                             const AutoschedulerOptions &options, int count) {
  const auto start = std::chrono::steady_clock::now();
  AutoschedulerOptions hand = options;
  hand.model = "hand";
  hand.work_budget = options.work_budget / 2;
  hand.time_budget_s = options.time_budget_s / 2;
  AutoschedulerOptions learned = options;
  learned.model = "learned";
  // Each search keeps its own warm start (a warm start is taken only from an equal search).
  if (!options.memo_path.empty()) learned.memo_path = options.memo_path + ".learned";
  std::vector<ScheduleResult> by_hand = schedule_candidates(pipeline, dag, hand, count);
  learned.work_budget = std::max(options.work_budget - by_hand.front().search.work, options.work_budget / 20);
  learned.time_budget_s = std::max(options.time_budget_s - seconds_since(start), options.time_budget_s / 20);
  std::vector<ScheduleResult> by_learned = schedule_candidates(pipeline, dag, learned, count);
  SearchStats stats = by_hand.front().search;
  const SearchStats &l = by_learned.front().search;
  add_search_work(stats, l);
  stats.memo_entries_loaded += l.memo_entries_loaded;
  stats.passes_completed = std::min(stats.passes_completed, l.passes_completed);
  if (stats.fallback.empty()) stats.fallback = l.fallback;

  // Each schedule keeps the learned model's result; the model that did not find it costs it
  // again from its decisions (the simple schedule, with none, has one cost).
  struct Ranked {
    ScheduleResult by_learned;
    double hand_ms, learned_ms;  // reported
    double hand_price, learned_price;  // what the searches ranked by (search_price_ms)
  };
  // A schedule's kernels as the search prices them (their launches counted twice, no call).
  const auto search_price = [](const ScheduleResult &r) {
    double ms = 0;
    for (const StageCost &c : r.stages) ms += search_price_ms(c.predicted_ms, c.terms_ms);
    return ms;
  };
  std::vector<Ranked> ranked;
  std::set<std::string> seen;  // by the learned model's code: a schedule both found counts once
  for (ScheduleResult &r : by_hand) {
    ScheduleResult as_learned = r.decisions.empty() ? r : schedule_from_decisions(pipeline, dag, learned, r.decisions);
    if (!seen.insert(as_learned.schedule_code).second) continue;
    const double learned_ms = as_learned.predicted_runtime_ms, learned_price = search_price(as_learned);
    ranked.push_back({std::move(as_learned), r.predicted_runtime_ms, learned_ms, search_price(r), learned_price});
  }
  for (ScheduleResult &r : by_learned) {
    if (!seen.insert(r.schedule_code).second) continue;
    const ScheduleResult as_hand = r.decisions.empty() ? r : schedule_from_decisions(pipeline, dag, hand, r.decisions);
    const double learned_ms = r.predicted_runtime_ms, learned_price = search_price(r);
    ranked.push_back({std::move(r), as_hand.predicted_runtime_ms, learned_ms, search_price(as_hand), learned_price});
  }
  const auto agreement = [](const Ranked &r) { return std::sqrt(r.hand_price * r.learned_price); };
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const Ranked &a, const Ranked &b) { return agreement(a) < agreement(b); });
  std::vector<ScheduleResult> results;
  stats.strategy = options.strategy;
  stats.time_ms = seconds_since(start) * 1000;
  for (Ranked &r : ranked) {
    if (int(results.size()) >= std::max(1, count)) break;
    ScheduleResult &result = r.by_learned;
    result.cost_model = "hand and learned models together: of the schedules each one's search found, the one "
                        "with the lowest geometric mean of their predictions (hand " + format_ms(r.hand_ms) +
                        ", learned " + format_ms(r.learned_ms) + "); costs shown are the " + result.cost_model;
    result.search = stats;
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace

}  // namespace hlsched
