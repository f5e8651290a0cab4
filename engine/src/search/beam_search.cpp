#include "search/beam_search.h"

#include "search/atomic_lowering.h"

#include <algorithm>
#include <optional>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "cost/kernel_model.h"
#include "search/atomic_lowering.h"
#include "search/constructs.h"
#include "search/decision_options.h"

namespace hlsched {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr double kInvalid = std::numeric_limits<double>::infinity();
constexpr double kExtraLaunchShare = 1.0;  // search_price_ms

// Whether some block's tile runs past the loop's extent along a loop of unrolled points per
// thread: those blocks run Halide's guarded copy of the kernel (KernelModel::guarded_block_fraction).
bool has_guarded_tail(const FuncDecision &d) {
  for (const StageTiling &t : d.tilings)
    for (size_t i = 0; i < t.vars.size(); i++)
      if (t.tiled(i) && t.serial[i] > 1 && t.extents[i] % t.tile(i) != 0) return true;
  return false;
}

// The shape of a decision without its sizes: the groups of hierarchical sampling.
uint64_t decision_shape(const FuncDecision &d) {
  uint64_t h = uint64_t(d.level) * 1000003ULL + uint64_t(d.kernel_root + 1);
  if (d.computed_with >= 0) h = h * 31 + 0xc0317100 + uint64_t(d.computed_with);
  for (const StageTiling &t : d.tilings) {
    if (t.reduction_unroll > 1 || t.own_tiling) h = h * 31 + uint64_t((t.reduction_unroll > 1) * 2 + t.own_tiling);
    for (size_t i = 0; i < t.vars.size(); i++)
      h = h * 31 + uint64_t((t.threads[i] > 1) * 4 + (t.serial[i] > 1) * 2 + t.in_thread[i]);
  }
  return h;
}

bool uses_update_options(const FuncDecision &d) {
  return std::any_of(d.tilings.begin(), d.tilings.end(),
                     [](const StageTiling &t) { return t.own_tiling || t.reduction_unroll > 1; });
}

}  // namespace

BeamSearch::BeamSearch(const PipelineDag &dag, const GpuProfile &gpu, const AutoschedulerOptions &options, CostMemo &memo)
    : dag_(dag), gpu_(gpu), options_(options), memo_(memo), model_(select_cost_model(options)),
      memo_tag_(gpu.name + (model_ ? "/learned/" + model_->fingerprint() : "")), content_(func_content_hashes(dag)),
      order_(ScheduleState::decision_order(dag)), rng_(options.seed),
      update_options_rng_(options.seed ^ 0x5bd1e995ULL), tail_free_rng_(options.seed ^ 0x27d4eb2fULL),
      work_(model_ != nullptr) {
  producers_.resize(dag.funcs.size());
  consumers_.resize(dag.funcs.size());
  for (size_t f = 0; f < dag.funcs.size(); f++)
    for (const std::string &name : dag.funcs[f].producers) {
      const int p = dag.index_of(name);
      if (p < 0) continue;
      producers_[f].push_back(p);
      consumers_[p].push_back(int(f));
    }
}

bool BeamSearch::out_of_budget() {
  if (work_.seconds() > options_.work_budget) return true;
  if (now_s() <= deadline_s_) return false;
  stats_.time_limit_reached = true;
  return true;
}

double BeamSearch::kernel_cost(const ScheduleState &state, int root) {
  double total = 0;
  for (size_t s = 0; s < state.decisions[root].tilings.size(); s++) {
    uint64_t key = 0;
    if (options_.memo) {
      key = memo_.kernel_key(content_, producers_, state, root, int(s), memo_tag_);
      bool first_use_of_loaded = false;
      if (const double *hit = memo_.find(key, &first_use_of_loaded)) {
        stats_.memo_hits++;
        if (first_use_of_loaded) work_.costed();
        else work_.found_again();
        total += *hit;
        continue;
      }
    }
    KernelModel km = build_kernel_model(dag_, state, root, int(s), gpu_);
    stats_.kernels_costed++;
    work_.costed();
    KernelCost cost;
    if (km.valid) cost = predict_kernel_cost(model_.get(), dag_, state, km, gpu_);
    else cost.total_ms = kInvalid;
    const double ms = search_price_ms(cost.total_ms, cost.terms_ms);
    if (options_.memo) memo_.insert(key, ms);
    total += ms;
  }
  return total;
}

// What the search ranks a kernel by: its predicted time with its launch counted twice. Priced at
// what a launch costs (2.5 us on the H200, measured in session forty-three), the search split
// more kernels and ran 0.94x as fast on the examples (H100: bilateral_grid 0.77x, interpolate
// 0.79x; random pipelines 1.03x): the kernel model misses part of what more kernels cost, and the
// old 5 us per launch stood in for it. Reported times price the launch as measured.
double search_price_ms(double predicted_ms, const std::map<std::string, double> &terms_ms) {
  const auto launch = terms_ms.find("launch");
  return predicted_ms + (launch != terms_ms.end() ? kExtraLaunchShare * launch->second : 0.0);
}

double BeamSearch::evaluate(ScheduleState &state) {
  stats_.states_evaluated++;
  work_.state(dag_.funcs.size());
  state.kernel_ms.assign(dag_.funcs.size(), 0.0);
  double total = 0;
  for (size_t f = 0; f < dag_.funcs.size(); f++) {
    if (!state.decided[f] || state.decisions[f].level != ComputeLevel::Root) continue;
    state.kernel_ms[f] = kernel_cost(state, int(f));
    total += state.kernel_ms[f];
  }
  state.cost_ms = total;
  return total;
}

// The Root Funcs whose kernels can compute `func`: those of its consumers, through inlined ones.
// (A superset of the kernels whose memo key mentions `func`; re-costing one more is harmless.)
void BeamSearch::kernels_containing(const ScheduleState &state, int func, std::vector<int> &roots) const {
  for (int c : consumers_[func]) {
    if (!state.decided[c]) continue;
    const FuncDecision &d = state.decisions[c];
    if (d.level == ComputeLevel::Root) roots.push_back(c);
    else if (d.level == ComputeLevel::Inline) kernels_containing(state, c, roots);
    else roots.push_back(d.kernel_root);
  }
}

double BeamSearch::evaluate_child(const ScheduleState &parent, ScheduleState &child, int func) {
  // Without the memo every state is costed from scratch (the ablation's baseline).
  if (!options_.memo || parent.kernel_ms.size() != dag_.funcs.size()) return evaluate(child);
  stats_.states_evaluated++;
  work_.state(dag_.funcs.size());
  const FuncDecision &d = child.decisions[func];
  std::vector<int> touched;
  if (d.level == ComputeLevel::Root) touched.push_back(func);
  else if (d.level == ComputeLevel::Inline) kernels_containing(child, func, touched);
  else touched.push_back(d.kernel_root);
  // The kernels that read the Func are costed again too: how they read it depends on where it
  // is computed. An atomic scatter's lowering (adds or a compare-and-swap loop) does
  // (search/atomic_lowering.h: left at the cost of adds, random pipeline 710019's row histogram
  // was picked at 0.15 ms and repriced at 556 ms once the search was done), and so does a
  // consumer of a reduction (reductions_small's column_sums kept the 0.10 ms it was costed at
  // before its producer sums was decided, 0.003 ms after; the memo changed the search's pick).
  if (d.level != ComputeLevel::Inline) kernels_containing(child, func, touched);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());

  for (int root : touched) child.kernel_ms[root] = kernel_cost(child, root);  // the rest: the parent's
  // Summed as evaluate() sums them, not as the parent's total plus differences (which drift in
  // the last bits): with the memo or without, a state's cost is the same number.
  double total = 0;
  for (size_t f = 0; f < dag_.funcs.size(); f++)
    if (child.decided[f] && child.decisions[f].level == ComputeLevel::Root) total += child.kernel_ms[f];
  if (!std::isfinite(total)) total = kInvalid;
  child.cost_ms = total;
  return total;
}

std::vector<DecisionPtr> BeamSearch::sample(std::vector<DecisionPtr> options, int func) {
  if (!options_.sampling || options.size() <= 8) return options;
  std::map<uint64_t, std::vector<DecisionPtr>> groups;
  for (DecisionPtr &d : options) groups[decision_shape(*d)].push_back(std::move(d));
  const bool hosts_register_tile = register_tile_reduction(dag_, func) >= 0;
  std::vector<DecisionPtr> picked;
  for (auto &[shape, group] : groups) {
    // About log2(n) + 1 representatives of each group; the default (first) always stays.
    size_t keep = size_t(std::ceil(std::log2(double(group.size())))) + 1;
    if (group.size() <= keep) {
      for (auto &d : group) picked.push_back(std::move(d));
      continue;
    }
    picked.push_back(group.front());
    std::vector<size_t> rest(group.size() - 1);
    for (size_t i = 0; i < rest.size(); i++) rest[i] = i + 1;
    std::mt19937_64 &rng = uses_update_options(*group.front()) ? update_options_rng_ : rng_;
    for (size_t i = 0; i + 1 < keep; i++) {
      size_t j = i + size_t(rng() % (rest.size() - i));
      std::swap(rest[i], rest[j]);
      picked.push_back(group[rest[i]]);
    }
    // A kernel hosting a register tile reduction (register_tile_reduction) loses its tile of
    // accumulators' reuse in guarded tail blocks (KernelModel::guarded_block_fraction). In a
    // group where most tilings leave such tails (extents that few tile sizes divide: conv_layer's
    // 56 columns), the draws above rarely reach the best tail-free ones, so about log2(n) + 1 of
    // those are drawn too, from their own generator so that every other draw stays as it was.
    // Only there: extra draws in every group with tails moved the beam of 12 other examples, 3 of
    // them to schedules predicted 3-5% slower, and mat_mul's (tails only for its 3-point tiles)
    // to a tiling of equal prediction never measured.
    if (!hosts_register_tile) continue;
    std::vector<size_t> tail_free;  // not drawn above
    size_t tails = has_guarded_tail(*group.front()) ? 1 : 0;
    for (size_t i = 0; i < rest.size(); i++) {
      const bool tail = has_guarded_tail(*group[rest[i]]);
      tails += tail ? 1 : 0;
      if (i + 1 >= keep && !tail) tail_free.push_back(rest[i]);
    }
    if (2 * tails <= group.size() || tail_free.empty()) continue;
    const size_t more = std::min(tail_free.size(), size_t(std::ceil(std::log2(double(tail_free.size())))) + 1);
    for (size_t i = 0; i < more; i++) {
      size_t j = i + size_t(tail_free_rng_() % (tail_free.size() - i));
      std::swap(tail_free[i], tail_free[j]);
      picked.push_back(group[tail_free[i]]);
    }
  }
  return picked;
}

const std::vector<DecisionPtr> &BeamSearch::standalone(int func, bool coarse) {
  std::vector<std::vector<DecisionPtr>> &cache = standalone_[coarse];
  if (cache.empty()) cache.resize(dag_.funcs.size());
  std::vector<DecisionPtr> &options = cache[func];
  if (options.empty()) {
    OptionLimits limits;
    limits.coarse = coarse;
    limits.model = model_.get();  // updates' own tilings ranked by the search's model
    for (FuncDecision &d : standalone_options(dag_, func, gpu_, limits))
      options.push_back(std::make_shared<const FuncDecision>(std::move(d)));
  }
  return options;
}

std::vector<DecisionPtr> BeamSearch::options_in(const ScheduleState &state, int func, bool coarse) {
  OptionLimits limits;
  limits.coarse = coarse;
  // The same for every state of the search (the memoized tilings of the paper)...
  std::vector<DecisionPtr> options = standalone(func, coarse);
  // ...and the fusions, which depend on how the consumers were scheduled.
  for (FuncDecision &d : fusion_options(dag_, state, func, gpu_, limits))
    options.push_back(std::make_shared<const FuncDecision>(std::move(d)));
  return keep_atomic_adds(dag_, state, func, std::move(options),
                          [](const DecisionPtr &d) -> const FuncDecision & { return *d; });
}

bool BeamSearch::still_valid(const ScheduleState &state, int func, const FuncDecision &d) const {
  // A decision whose consumers became an atomic update it would lower to a compare-and-swap loop.
  if (decision_breaks_atomic_add(dag_, state, func, d)) return false;
  // Computed with a sibling: the sibling must still be a kernel of its own with the same tiling.
  if (d.level == ComputeLevel::Root && d.computed_with >= 0) {
    if (!state.decided[d.computed_with]) return false;
    const FuncDecision &sibling = state.decisions[d.computed_with];
    return sibling.level == ComputeLevel::Root && sibling.computed_with < 0 && sibling.tilings.size() == 1 &&
           d.tilings.size() == 1 && same_tiling(sibling.tilings[0], d.tilings[0]);
  }
  // A fusion names its kernel; after the consumers were decided anew, that kernel may be another.
  return fusion_still_legal(dag_, state, func, d);
}

std::vector<DecisionPtr> BeamSearch::children(const ScheduleState &state, int func, bool coarse,
                                              const std::vector<bool> &frozen, const ScheduleState *frozen_source,
                                              Frozen mode) {
  const bool is_frozen = frozen_source && frozen[func];
  const DecisionPtr &first = is_frozen ? frozen_source->decisions.shared(func) : nullptr;
  const bool first_valid = is_frozen && still_valid(state, func, *first);
  if (mode == Frozen::Fixed && first_valid) return {first};
  std::vector<DecisionPtr> options = options_in(state, func, coarse);
  if (is_frozen) {
    // A frozen Func keeps its earlier decision (the combinatorial part: its tiling) but may still
    // be inlined or fused into a consumer's kernel, where launches are saved; one that was inlined
    // or fused before may get its own kernel (with the default tiling) if its consumers changed.
    std::vector<DecisionPtr> kept;
    if (first_valid) kept.push_back(first);
    bool default_root = first->level == ComputeLevel::Root;
    for (DecisionPtr &d : options) {
      const bool root = d->level == ComputeLevel::Root;
      if ((root && !default_root) || d->level == ComputeLevel::Block || d->level == ComputeLevel::Thread ||
          (d->level == ComputeLevel::Inline && first->level != ComputeLevel::Inline)) {
        default_root = default_root || root;
        kept.push_back(std::move(d));
      }
    }
    return kept;
  }
  return coarse ? options : sample(std::move(options), func);
}

BeamSearch::Beam BeamSearch::select(Beam candidates, int beam_size) const {
  // By cost, ties broken by the schedule itself; costs compared to a picosecond, so that equal
  // schedules are never ordered by their last bits (the memo must not change the search's result).
  struct Ranked {
    int64_t cost_ps;
    uint64_t hash;
    size_t index;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); i++) {
    const double cost = candidates[i].cost_ms;
    if (!std::isfinite(cost)) continue;
    ranked.push_back({std::llround(cost * 1e9), candidates[i].exact_hash(), i});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked &a, const Ranked &b) {
    return a.cost_ps != b.cost_ps ? a.cost_ps < b.cost_ps : a.hash < b.hash;
  });
  Beam kept;
  std::set<uint64_t> exact;
  std::map<uint64_t, int> per_structure;
  // Diversity: at most a quarter of the beam may share one structure (same decisions, other sizes).
  const int structure_cap = std::max(2, beam_size / 4);
  for (const Ranked &r : ranked) {
    if (int(kept.size()) >= beam_size) break;
    if (!exact.insert(r.hash).second) continue;
    ScheduleState &s = candidates[r.index];
    if (++per_structure[s.structural_hash()] > structure_cap) continue;
    kept.push_back(std::move(s));
  }
  return kept;
}

// The kernel's tiling was chosen before `func` could be fused into it, when its producers still
// looked like reads from memory: the tiling that suits the fused schedule (rows per thread for a
// register-blocked reduction, a block shape for shared memory) may have lost to one that did not
// matter then. So a fusion also comes with the kernel's other tilings.
void BeamSearch::add_retiled_fusions(const ScheduleState &state, int func, const DecisionPtr &fusion,
                                     const std::vector<bool> &frozen, const ScheduleState *frozen_source,
                                     Beam &next) {
  if (fusion->level != ComputeLevel::Block && fusion->level != ComputeLevel::Thread) return;
  const int kernel = fusion->kernel_root;
  if (frozen_source && frozen[kernel]) return;  // a frozen kernel keeps its tiling
  // A kernel a sibling is computed with keeps its tiling too: the sibling has the same one.
  for (size_t g = 0; g < dag_.funcs.size(); g++)
    if (state.decided[g] && state.decisions[g].level == ComputeLevel::Root && state.decisions[g].computed_with == kernel)
      return;
  const DecisionPtr &current = state.decisions.shared(kernel);
  for (const DecisionPtr &tiling : retilings(kernel)) {
    if (tiling == current) continue;  // (an equal decision from elsewhere is dropped by select())
    ScheduleState child = state;
    child.decide(kernel, tiling);
    if (!fusion_still_legal(dag_, child, func, *fusion)) continue;  // e.g. a tiling in partial results
    child.decide(func, fusion);
    evaluate_child(state, child, func);  // re-costs the kernel, whose stages all changed
    next.push_back(std::move(child));
  }
}

const std::vector<DecisionPtr> &BeamSearch::retilings(int kernel) {
  if (retilings_.empty()) retilings_.resize(dag_.funcs.size());
  std::vector<DecisionPtr> &tilings = retilings_[kernel];
  if (tilings.empty()) {
    // Tilings with several points per thread along the coalescing loop are left out: they
    // would double the retilings of every fusion (search time), and the fusions' tilings (rows
    // per thread, block shapes) are among the others.
    std::vector<DecisionPtr> roots;
    for (const DecisionPtr &d : standalone(kernel, /*coarse=*/false)) {
      if (d->level != ComputeLevel::Root) continue;
      const StageTiling &t = d->tilings.front();
      const int x = t.innermost_thread_loop();
      if (x < 0 || t.serial[size_t(x)] == 1) roots.push_back(d);
    }
    tilings = std::move(roots);
  }
  return tilings;
}

void BeamSearch::keep_in_beam(const ScheduleState &state, Beam &beam, int beam_size) const {
  if (!std::isfinite(state.cost_ms)) return;
  const uint64_t hash = state.exact_hash();
  for (const ScheduleState &s : beam)
    if (s.exact_hash() == hash) return;
  if (int(beam.size()) >= beam_size) beam.pop_back();
  beam.push_back(state);
}

BeamSearch::Beam BeamSearch::search_pass(bool coarse, const std::vector<bool> &frozen,
                                         const ScheduleState *frozen_source, int beam_size, Frozen mode) {
  Beam beam = {ScheduleState(dag_)};
  // The state that repeats the source's decisions stays in the beam, so that a fine pass never
  // ends worse than the schedule it started from: partial costs can mislead the beam (producers
  // not decided yet are costed as if stored at root), and sampling may skip the source's tiling.
  std::optional<ScheduleState> follower;
  if (frozen_source && frozen_source->complete() && mode == Frozen::MayFuse) follower = ScheduleState(dag_);
  for (size_t step = 0; step < order_.size(); step++) {
    const int func = order_[step];
    // Anytime: once out of budget (work or time), finish every state with its first (default) option only.
    const bool hurry = out_of_budget();
    if (hurry) stats_.budget_exhausted = true;
    if (hurry && frozen_source && !beam.empty()) {
      // A fine pass out of budget: the best state takes the first pass's decisions (inline or
      // root, legal whatever the consumers) for the Funcs left, costed once, instead of one
      // greedy step per Func (seconds on 400 Funcs).
      ScheduleState done = beam.front();
      for (size_t rest = step; rest < order_.size(); rest++) {
        const int f = order_[rest];
        DecisionPtr d = frozen_source->decisions.shared(f);
        // A later pass's source has fusions, whose kernel may be gone from this state: those
        // Funcs get their own kernel with the default tiling instead.
        if (!still_valid(done, f, *d))
          for (const DecisionPtr &option : standalone(f, /*coarse=*/true))
            if (option->level == ComputeLevel::Root) d = option;
        done.decide(f, d);
      }
      evaluate(done);
      return {done};
    }
    Beam next;
    for (const ScheduleState &state : beam) {
      // A step can be long (every state's options, fusions with every tiling of their kernel):
      // once out of budget, the states expanded so far are the step's candidates.
      if (!hurry && !next.empty() && out_of_budget()) break;
      std::vector<DecisionPtr> options = children(state, func, coarse || hurry, frozen, frozen_source, mode);
      for (DecisionPtr &d : options) {
        ScheduleState child = state;
        child.decide(func, d);
        evaluate_child(state, child, func);
        next.push_back(std::move(child));
        if (!coarse && !hurry) add_retiled_fusions(state, func, d, frozen, frozen_source, next);
      }
    }
    beam = select(std::move(next), hurry ? 1 : beam_size);
    if (follower) {
      ScheduleState child = *follower;
      child.decide(func, frozen_source->decisions.shared(func));
      evaluate_child(*follower, child, func);
      follower = std::move(child);
      keep_in_beam(*follower, beam, hurry ? 1 : beam_size);
    }
    if (beam.empty()) break;  // nothing valid: the caller falls back
  }
  return beam;
}

std::vector<bool> BeamSearch::choose_frozen(const ScheduleState &source, double widen) {
  std::vector<bool> frozen(dag_.funcs.size(), options_.freeze);
  if (!options_.freeze) return frozen;
  // Cost per Root Func (all its stages).
  std::vector<std::pair<double, int>> kernels;
  for (size_t f = 0; f < dag_.funcs.size(); f++) {
    if (source.decisions[f].level == ComputeLevel::Root) kernels.push_back({kernel_cost(source, int(f)), int(f)});
  }
  std::sort(kernels.rbegin(), kernels.rend());
  const size_t n = dag_.funcs.size();
  // The ~log2(N) costliest kernels (times `widen`) stay open, and more while the open ones cover
  // less than three quarters of the predicted time (flat profiles have no few dominant stages).
  const size_t hot = std::max<size_t>(1, size_t(widen * std::ceil(std::log2(double(n) + 1))));
  double total = 0, covered = 0;
  for (const auto &k : kernels) total += k.first;
  for (size_t i = 0; i < kernels.size() && (i < hot || covered < 0.75 * total); i++) {
    covered += kernels[i].first;
    int f = kernels[i].second;
    frozen[f] = false;
    // Its producers stay open too: they are what could be fused into it.
    for (const std::string &p : dag_.funcs[f].producers) {
      int pi = dag_.index_of(p);
      if (pi >= 0) frozen[pi] = false;
    }
  }
  for (size_t f = 0; f < n; f++) stats_.frozen_funcs += frozen[f];
  return frozen;
}

bool BeamSearch::warm_pass(const ScheduleState &previous, SearchOutcome &outcome) {
  const size_t n = dag_.funcs.size();
  // Open: the changed Funcs, the Funcs they read and the Funcs that read them...
  std::vector<bool> open(n, false);
  for (size_t f = 0; f < n; f++) {
    if (previous.decided[f]) continue;
    open[f] = true;
    for (int p : producers_[f]) open[p] = true;
    for (int c : consumers_[f]) open[c] = true;
  }
  // ...and whatever was fused into an open kernel, whose storage follows that kernel's tiling.
  for (size_t f = 0; f < n; f++) {
    const FuncDecision &d = previous.decisions[f];
    if (previous.decided[f] && d.kernel_root >= 0 && open[d.kernel_root]) open[f] = true;
  }
  const int open_count = int(std::count(open.begin(), open.end(), true));
  if (2 * open_count > int(n)) return false;  // mostly new: a full search is worth its time

  std::vector<bool> frozen(n);
  for (size_t f = 0; f < n; f++) frozen[f] = !open[f];
  Beam warm = search_pass(/*coarse=*/false, frozen, &previous, options_.beam_size, Frozen::Fixed);
  if (warm.empty() || !warm.front().complete()) return false;
  outcome.best = warm.front();
  stats_.warm_start_funcs = int(n) - open_count;
  stats_.passes_completed = 1;
  return true;
}

SearchOutcome BeamSearch::run(const ScheduleState *previous) {
  const double start = now_s();
  deadline_s_ = start + options_.time_budget_s;
  work_.reset();
  stats_ = SearchStats{};
  stats_.strategy = "beam";

  SearchOutcome warm{ScheduleState(dag_), {}};
  if (previous && previous->num_decided > 0 && warm_pass(*previous, warm)) {
    stats_.time_ms = (now_s() - start) * 1e3;
    stats_.work = work_.seconds();
    warm.stats = stats_;
    warm.ranked = {warm.best};
    return warm;
  }
  const SearchStats warm_stats = stats_;
  stats_ = SearchStats{};
  stats_.strategy = "beam";
  stats_.states_evaluated = warm_stats.states_evaluated;  // a failed warm pass still cost its states
  stats_.time_limit_reached = warm_stats.time_limit_reached;

  // Pass 0: inline or root only, narrow beam.
  Beam coarse = search_pass(/*coarse=*/true, {}, nullptr, std::max(4, options_.beam_size / 4));
  SearchOutcome outcome{coarse.empty() ? ScheduleState(dag_) : coarse.front(), {}, {}};
  add_finalists(coarse, outcome);
  stats_.passes_completed = 1;

  if (!coarse.empty()) {
    for (int pass = 0; pass < options_.passes && !out_of_budget(); pass++) {
      // Coarse to fine: each pass starts from the best schedule so far and opens more kernels.
      const ScheduleState source = pass == 0 ? coarse.front() : outcome.best;
      const std::vector<bool> frozen = choose_frozen(source, 1.0 + pass);
      Beam fine = search_pass(/*coarse=*/false, frozen, &source, options_.beam_size);
      if (!fine.empty() && fine.front().complete() && fine.front().cost_ms < outcome.best.cost_ms)
        outcome.best = fine.front();
      add_finalists(fine, outcome);
      stats_.passes_completed++;
    }
  }
  if (options_.polish) polish(outcome);
  rank_finalists(outcome);
  stats_.time_ms = (now_s() - start) * 1e3;
  stats_.work = work_.seconds();
  outcome.stats = stats_;
  return outcome;
}

bool BeamSearch::fusions_still_offered(const ScheduleState &state, int changed) const {
  OptionLimits limits;
  for (size_t g = 0; g < dag_.funcs.size(); g++) {
    const FuncDecision &d = state.decisions[g];
    if (!still_valid(state, int(g), d)) return false;
    // A fusion into another kernel is as it was (still_valid checks that it is that kernel's).
    if ((d.level != ComputeLevel::Block && d.level != ComputeLevel::Thread) || d.kernel_root != changed) continue;
    const std::vector<FuncDecision> offered = consumer_fusion_options(dag_, state, int(g), gpu_, limits);
    const bool found = std::any_of(offered.begin(), offered.end(), [&](const FuncDecision &o) {
      return o.level == d.level && o.kernel_root == d.kernel_root && o.per_slab == d.per_slab;
    });
    if (!found) return false;
  }
  return true;
}

// The beam costs each decision before the Funcs after it are decided (producers not yet decided
// look like reads from memory), so a choice that pays only with a later one can be lost on the
// way (camera_pipe: demosaiced fused per thread into the output looked cheaper than its own
// kernel until its producers were decided). Coordinate descent from the best schedule: each
// Func in turn tries every option with all other decisions kept, the cheapest valid one stays;
// rounds until nothing improves or the time budget runs out.
void BeamSearch::polish(SearchOutcome &outcome) {
  if (!outcome.best.complete() || !std::isfinite(outcome.best.cost_ms)) return;
  ScheduleState best = outcome.best;
  bool improved = true;
  for (int round = 0; round < kPolishRounds && improved && !out_of_budget(); round++) {
    improved = false;
    for (int func : order_) {
      if (out_of_budget()) break;
      for (const DecisionPtr &option : options_in(best, func, /*coarse=*/false)) {
        if (option == best.decisions.shared(func)) continue;
        ScheduleState child = best;
        child.decide(func, option);
        if (keep_polished_move(best, std::move(child), func)) improved = true;
      }
      if (!out_of_budget() && inline_left_to_polish(dag_, func) &&
          best.decisions[size_t(func)].level != ComputeLevel::Inline) {
        ScheduleState child = best;
        child.decide(func, inlined_decision());
        if (keep_polished_move(best, std::move(child), func)) improved = true;
      }
      if (!out_of_budget() && polish_inlined_with_retiling(best, func)) improved = true;
      if (!out_of_budget() && polish_pinned_reduction(best, func)) improved = true;
    }
  }
  widen(best);
  if (best.cost_ms < outcome.best.cost_ms || best.exact_hash() != outcome.best.exact_hash()) {
    outcome.best = best;
    outcome.ranked.push_back(best);
  }
}

// Inlining a Func can pay only under a tiling of the kernel it moves into that the kernel did
// not need before: camera_pipe's demosaic folds its Bayer phases only over 2x2 points per thread
// of its output (cost/folded_phases.h), and the output, tiled while demosaiced had a kernel of
// its own, had no reason to choose that. One move at a time never reaches it.
bool BeamSearch::polish_inlined_with_retiling(ScheduleState &best, int func) {
  if (best.decisions[size_t(func)].level != ComputeLevel::Root || dag_.funcs[size_t(func)].is_output) return false;
  // The kernel it would be inlined into: through a chain of inlined single consumers.
  int kernel = func;
  do {
    const FuncNode &f = dag_.funcs[size_t(kernel)];
    if (f.consumers.size() != 1) return false;
    kernel = dag_.index_of(f.consumers.front());
  } while (kernel >= 0 && best.decisions[size_t(kernel)].level == ComputeLevel::Inline);
  if (kernel < 0 || best.decisions[size_t(kernel)].level != ComputeLevel::Root) return false;

  DecisionPtr inlined;
  for (const DecisionPtr &option : options_in(best, func, /*coarse=*/false))
    if (option->level == ComputeLevel::Inline) inlined = option;
  if (!inlined && inline_left_to_polish(dag_, func)) inlined = inlined_decision();
  if (!inlined) return false;
  bool improved = false;
  for (const DecisionPtr &tiling : standalone(kernel, /*coarse=*/false)) {
    if (out_of_budget()) break;
    if (tiling->level != ComputeLevel::Root || tiling == best.decisions.shared(kernel)) continue;
    ScheduleState child = best;
    child.decide(func, inlined);
    child.decide(kernel, tiling);
    if (keep_polished_move(best, std::move(child), kernel)) improved = true;
  }
  return improved;
}

// A Func that copies a reduction along a constant loop (pinned_reduction_loop) pays at root only
// with that loop whole in each thread and the reduction in registers there (bgu's grid and its
// splat): one decision at a time, the copy is a kernel more than inlining it, and the beam costs
// the reduction only once it is decided. Both moved together, under each such tiling.
bool BeamSearch::polish_pinned_reduction(ScheduleState &best, int func) {
  const int loop = pinned_reduction_loop(dag_, func);
  const int reduction = loop >= 0 ? pointwise_reduction(dag_, func) : -1;
  if (reduction < 0 || best.decisions[size_t(reduction)].level == ComputeLevel::Thread) return false;
  bool improved = false;
  for (const DecisionPtr &tiling : standalone(func, /*coarse=*/false)) {
    if (out_of_budget()) break;
    if (tiling->level != ComputeLevel::Root || !tiling->tilings.front().in_thread.at(size_t(loop))) continue;
    ScheduleState child = best;
    child.decide(func, tiling);
    child.decide(reduction, std::make_shared<const FuncDecision>(FuncDecision{ComputeLevel::Thread, func, {}}));
    if (keep_polished_move(best, std::move(child), func)) improved = true;
  }
  return improved;
}

// One Inline decision for every state polish inlines a Func in (decisions are shared between
// states, copy-on-write): no allocation per move.
DecisionPtr BeamSearch::inlined_decision() {
  static const DecisionPtr inlined = std::make_shared<const FuncDecision>(FuncDecision{ComputeLevel::Inline});
  return inlined;
}

bool BeamSearch::keep_polished_move(ScheduleState &best, ScheduleState child, int changed) {
  // Costed whole: evaluate_child assumes the changed Func was undecided in the parent.
  const double cost = evaluate(child);
  if (!(cost < best.cost_ms * (1.0 - kPolishMinGain)) || !fusions_still_offered(child, changed)) return false;
  best = std::move(child);
  stats_.polished_moves++;
  return true;
}

// A stage tiled narrower than a warp along its coalescing loop (where the loop is longer) takes
// as many threads along it as it can from its second thread loop: the kernel model counts the
// sectors of a half-warp row as a whole warp's, but on the H200 blocks 16 wide ran slower than 32
// wide in every pair measured (lens_blur's gather 1.29x over 16x32 threads against 32x16; hist's
// output 2.5x over 16x16 against the manual 32x8). Kept where the prediction stays within
// kPolishMinGain, so that only near-ties (what the model cannot tell apart) change.
void BeamSearch::widen(ScheduleState &best) {
  const double warp = double(gpu_.warp_size);
  for (int func : order_) {
    const DecisionPtr &current = best.decisions.shared(func);
    if (current->level != ComputeLevel::Root) continue;
    FuncDecision wider = *current;
    bool changed = false;
    for (StageTiling &t : wider.tilings) {
      if (t.single_thread || t.atomic || t.privatized || t.partials) continue;
      const int x = t.innermost_thread_loop();
      // Register tiles (4+ points per thread along x) load whole rows per thread already.
      if (x < 0 || t.serial[size_t(x)] >= 4) continue;
      int y = -1;  // the next thread loop out
      for (int i = x + 1; i < int(t.vars.size()) && y < 0; i++)
        if (t.threads[size_t(i)] > 1) y = i;
      while (y >= 0 && double(t.threads[size_t(x)]) < warp && t.threads[size_t(y)] >= 2 &&
             t.threads[size_t(x)] * 2 * t.serial[size_t(x)] <= std::max<int64_t>(t.extents[size_t(x)], gpu_.warp_size)) {
        t.threads[size_t(x)] *= 2;
        t.threads[size_t(y)] /= 2;
        changed = true;
      }
    }
    if (!changed) continue;
    ScheduleState child = best;
    child.decide(func, std::make_shared<const FuncDecision>(std::move(wider)));
    const double cost = evaluate(child);
    if (cost <= best.cost_ms * (1.0 + kPolishMinGain) && fusions_still_offered(child, func)) {
      best = std::move(child);
      stats_.widened_kernels++;
    }
  }
}

void BeamSearch::add_finalists(const Beam &beam, SearchOutcome &outcome) {
  for (const ScheduleState &state : beam)
    if (state.complete() && std::isfinite(state.cost_ms)) outcome.ranked.push_back(state);
}

void BeamSearch::rank_finalists(SearchOutcome &outcome) {
  // Stable: among equal costs the earlier (coarser) pass's state comes first, as `best` does.
  std::stable_sort(outcome.ranked.begin(), outcome.ranked.end(),
                   [](const ScheduleState &a, const ScheduleState &b) { return a.cost_ms < b.cost_ms; });
  // `best` leads even where a later pass found an equal cost (run() keeps the first one found).
  if (outcome.best.complete()) outcome.ranked.insert(outcome.ranked.begin(), outcome.best);
}

ScheduleState BeamSearch::random_walk(std::mt19937_64 &rng) {
  ScheduleState state(dag_);
  OptionLimits limits;
  limits.small_loops_in_thread = true;  // in the space, not chosen by the search (see OptionLimits)
  limits.every_update_option = true;
  for (int func : order_) {
    // Options grouped by the constructs they use, a group drawn first and then one of its
    // options: tilings outnumber the other options by hundreds, and a uniform draw would
    // almost never reach fusions or scatters (the random-pairs tests count each construct).
    // First the level (inline, own kernel, fused per block or per thread), then a group of the
    // level, then an option of the group.
    // A copy per slab is a level of its own, drawn every other time it is offered: it is
    // offered only under a staged reduction, rarely, and would be one group of many otherwise.
    // A kernel shared with a sibling is a level of its own too (offered only beside a sibling).
    using Groups = std::map<std::vector<std::string>, std::vector<FuncDecision>>;
    using Level = std::tuple<ComputeLevel, bool, bool>;  // level, per slab, computed with a sibling
    std::map<Level, Groups> levels;
    for (FuncDecision &d : decision_options(dag_, state, func, gpu_, limits))
      levels[{d.level, d.per_slab, d.computed_with >= 0}][walk_group(dag_, func, d)].push_back(std::move(d));
    // Retry other options if one makes a kernel invalid (shared memory, registers).
    while (!levels.empty()) {
      auto level = std::next(levels.begin(), long(rng() % levels.size()));
      const auto per_slab = levels.find({ComputeLevel::Block, true, false});
      if (per_slab != levels.end() && rng() % 2 == 0) level = per_slab;
      auto group = std::next(level->second.begin(), long(rng() % level->second.size()));
      std::vector<FuncDecision> &options = group->second;
      size_t pick = size_t(rng() % options.size());
      ScheduleState child = state;
      child.decide(func, options[pick]);
      if (std::isfinite(evaluate_child(state, child, func))) {
        state = std::move(child);
        break;
      }
      options.erase(options.begin() + long(pick));
      if (options.empty()) level->second.erase(group);
      if (level->second.empty()) levels.erase(level);
    }
  }
  return state;
}

}  // namespace hlsched
