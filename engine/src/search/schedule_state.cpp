#include "search/schedule_state.h"

#include <algorithm>

#include "search/content_hash.h"
#include "util/int_math.h"

namespace hlsched {

namespace {

using Hasher = ContentHash<0x9e3779b97f4a7c15ULL>;

}  // namespace

int64_t StageTiling::threads_per_block() const {
  int64_t n = 1;
  for (int64_t t : threads) n *= t;
  return n;
}

int64_t StageTiling::blocks() const {
  int64_t n = 1;
  for (size_t i = 0; i < vars.size(); i++) {
    if (in_thread[i]) continue;
    int64_t tile_size = tiled(i) ? tile(i) : 1;
    n *= (std::max<int64_t>(1, extents[i]) + tile_size - 1) / tile_size;
  }
  return n;
}

int64_t StageTiling::points_per_thread() const {
  int64_t n = 1;
  for (size_t i = 0; i < serial.size(); i++) n *= in_thread[i] ? extents[i] : serial[i];
  return n;
}

bool StageTiling::row_loop(size_t i) const {
  if (!tiled(i)) return false;
  int tiled_before = 0;
  for (size_t k = 0; k < i; k++) tiled_before += tiled(k);
  return tiled_before >= 2;
}

size_t reduction_loops_in(const StageTiling &tiling, const StageNode &update) {
  size_t n = 0;
  while (n < tiling.vars.size() &&
         std::any_of(update.loops.begin(), update.loops.end(),
                     [&](const LoopDim &l) { return l.is_rvar && l.var == tiling.vars[n]; }))
    n++;
  return n;
}

int64_t privatized_copy_threads(int64_t bins) { return std::min<int64_t>(256, ceil_pow2(std::max<int64_t>(1, bins))); }

int partial_loop_per_point(const StageTiling &tiling, const StageNode &update) {
  if (!tiling.partials) return -1;
  int reduction = -1;
  bool pure = false;
  for (size_t i = 0; i < tiling.vars.size(); i++) {
    const auto loop = std::find_if(update.loops.begin(), update.loops.end(),
                                   [&](const LoopDim &l) { return l.var == tiling.vars[i]; });
    if (loop == update.loops.end()) return -1;
    if (loop->is_rvar) reduction = reduction < 0 ? int(i) : reduction;
    else pure = true;
  }
  return pure ? reduction : -1;
}

int StageTiling::innermost_thread_loop() const {
  for (size_t i = 0; i < threads.size(); i++)
    if (threads[i] > 1) return int(i);
  return -1;
}

DecisionTable::DecisionTable(size_t funcs) {
  static const auto undecided = std::make_shared<const FuncDecision>();
  slots_.assign(funcs, undecided);
}

void DecisionTable::set(size_t func, FuncDecision decision) {
  slots_[func] = std::make_shared<const FuncDecision>(std::move(decision));
}

ScheduleState::ScheduleState(const PipelineDag &dag)
    : decisions(dag.funcs.size()), decided(dag.funcs.size(), false) {}

void ScheduleState::decide(int func, FuncDecision decision) {
  decide(func, std::make_shared<const FuncDecision>(std::move(decision)));
}

namespace {

bool has_slab_loop(const FuncDecision &d) {
  if (d.level != ComputeLevel::Root) return false;
  for (const StageTiling &t : d.tilings)
    if (t.slab > 0) return true;
  return false;
}

}  // namespace

void ScheduleState::decide(int func, DecisionPtr decision) {
  const bool lost_slab_loop = decided[func] && has_slab_loop(decisions[func]) && !has_slab_loop(*decision);
  if (!decided[func]) num_decided++;
  decided[func] = true;
  decisions.set(func, std::move(decision));
  // A kernel re-decided without its slab loop: the Funcs it copied per slab are now copied per
  // block, in the state itself, so that emission, costing, the schedule's comments and the hashes
  // all read the same decision.
  if (lost_slab_loop)
    for (size_t p = 0; p < decided.size(); p++) {
      if (!decided[p]) continue;
      const FuncDecision &d = decisions[p];
      if (d.level != ComputeLevel::Block || !d.per_slab || d.kernel_root != func) continue;
      FuncDecision per_block = d;
      per_block.per_slab = false;
      decisions.set(p, std::move(per_block));
    }
}

std::vector<int> ScheduleState::decision_order(const PipelineDag &dag) {
  std::vector<int> order;
  for (int i = int(dag.funcs.size()) - 1; i >= 0; i--) order.push_back(i);
  return order;
}

uint64_t ScheduleState::exact_hash() const {
  Hasher hasher;
  for (size_t i = 0; i < decisions.size(); i++) {
    if (!decided[i]) continue;
    const FuncDecision &d = decisions[i];
    hasher.add(i);
    hasher.add(uint64_t(d.level));
    hasher.add(uint64_t(d.kernel_root + 1));
    if (d.per_slab) hasher.add(uint64_t(0x51ab));
    if (d.computed_with >= 0) hasher.add(uint64_t(d.computed_with) + 0xc0317100);
    for (const StageTiling &t : d.tilings) {
      if (t.slab > 0) hasher.add(uint64_t(t.slab) + 0x51ab0000);
      hasher.add(t.single_thread);
      hasher.add(t.atomic);
      hasher.add(t.privatized);
      if (t.partials) hasher.add(uint64_t(0x9a271a15));
      if (t.partials_regroup > 0) hasher.add(uint64_t(t.partials_regroup) + 0x2e900000);
      // Only when used: states without them hash (and break ties) as before they existed.
      if (t.reduction_unroll > 1 || t.own_tiling) {
        hasher.add(uint64_t(t.reduction_unroll));
        hasher.add(t.own_tiling);
      }
      for (size_t k = 0; k < t.vars.size(); k++) {
        hasher.add(uint64_t(t.threads[k]));
        hasher.add(uint64_t(t.serial[k]));
        hasher.add(uint64_t(t.in_thread[k]));
      }
    }
  }
  return hasher.h;
}

uint64_t ScheduleState::structural_hash() const {
  Hasher hasher;
  for (size_t i = 0; i < decisions.size(); i++) {
    if (!decided[i]) continue;
    const FuncDecision &d = decisions[i];
    hasher.add(i);
    hasher.add(uint64_t(d.level));
    hasher.add(uint64_t(d.kernel_root + 1));
    if (d.per_slab) hasher.add(uint64_t(0x51ab));
    if (d.computed_with >= 0) hasher.add(uint64_t(d.computed_with) + 0xc0317100);
    for (const StageTiling &t : d.tilings) {
      if (t.slab > 0) hasher.add(uint64_t(0x51ab0000));
      hasher.add(t.privatized);
      if (t.partials) hasher.add(uint64_t(0x9a271a15));
      if (t.partials_regroup > 0) hasher.add(uint64_t(0x2e900000));
      if (t.reduction_unroll > 1 || t.own_tiling) hasher.add(uint64_t(t.reduction_unroll > 1) * 2 + t.own_tiling);
      for (size_t k = 0; k < t.vars.size(); k++)
        hasher.add((t.threads[k] > 1) * 4 + (t.serial[k] > 1) * 2 + t.in_thread[k]);
    }
  }
  return hasher.h;
}

std::string describe_decision(const PipelineDag &dag, int func, const FuncDecision &d) {
  switch (d.level) {
    case ComputeLevel::Inline: return "inlined into its consumers";
    case ComputeLevel::Block:
      if (d.per_slab)
        return "copied per slab of " + dag.funcs[d.kernel_root].name + "'s reduction loop by the GPU block, in shared memory";
      return "computed per GPU block of " + dag.funcs[d.kernel_root].name + ", in shared memory";
    case ComputeLevel::Thread: return "computed per GPU thread of " + dag.funcs[d.kernel_root].name + ", in registers";
    case ComputeLevel::Root: break;
  }
  if (d.tilings.empty()) return "own kernel";
  const StageTiling &t = d.tilings.front();
  std::string text;
  if (d.computed_with >= 0) return "computed with " + dag.funcs[d.computed_with].name + ", in its kernel";
  if (t.single_thread) {
    text = "own kernel, one GPU thread";
  } else if (t.atomic) {
    text = "own kernel, reduction loops across GPU threads with atomic updates";
  } else {
    std::string threads, serial;
    for (size_t i = 0; i < t.vars.size(); i++) {
      if (t.threads[i] > 1) threads += (threads.empty() ? "" : "x") + std::to_string(t.threads[i]);
      if (t.in_thread[i]) serial += (serial.empty() ? "" : ", ") + std::string("all ") + t.vars[i];
      else if (t.serial[i] > 1) serial += (serial.empty() ? "" : ", ") + std::to_string(t.serial[i]) + " " + t.vars[i];
    }
    text = "own kernel, " + (threads.empty() ? std::string("1") : threads) + " threads per block";
    if (!serial.empty()) text += ", " + serial + " per thread";
  }
  for (size_t k = 1; k < d.tilings.size(); k++) {
    const StageTiling &u = d.tilings[k];
    if (!u.own_tiling && u.reduction_unroll <= 1 && u.slab <= 0) continue;
    text += "; update " + std::to_string(k - 1) + ":";
    if (u.own_tiling) {
      std::string own;
      for (size_t i = 0; i < u.vars.size(); i++)
        if (u.threads[i] > 1) own += (own.empty() ? "" : "x") + std::to_string(u.threads[i]);
      text += " " + (own.empty() ? std::string("1") : own) + " threads";
    }
    if (u.reduction_unroll > 1)
      text += std::string(u.own_tiling ? "," : "") + " reduction loop unrolled by " + std::to_string(u.reduction_unroll);
    if (u.slab > 0)
      text += std::string(u.own_tiling || u.reduction_unroll > 1 ? "," : "") + " reduction in slabs of " +
              std::to_string(u.slab);
  }
  for (size_t k = 0; k < d.tilings.size(); k++) {
    const StageTiling &u = d.tilings[k];
    if (!u.partials) continue;
    const bool has_stage = func >= 0 && k < dag.funcs[size_t(func)].stages.size();
    const int per_point = has_stage ? partial_loop_per_point(u, dag.funcs[size_t(func)].stages[k]) : -1;
    if (per_point >= 0)
      text += "; update in " + std::to_string(u.threads[size_t(per_point)]) + " partial results per point along " +
              u.vars[size_t(per_point)] + " (rfactor), combined a thread per point";
    else
      text += "; update in " + std::to_string(u.extents.front()) + " partial results along " + u.vars.front() +
              " (rfactor), combined " +
              (has_stage && !dag.funcs[size_t(func)].args.empty() ? "a thread per bin"
               : u.partials_regroup > 0 ? "by " + std::to_string(u.partials_regroup) + " threads, then in one thread"
                                        : "in one thread");
  }
  for (size_t k = 0; k < d.tilings.size(); k++) {
    const StageTiling &u = d.tilings[k];
    if (!u.privatized) continue;
    const bool has_stage = func >= 0 && k < dag.funcs[size_t(func)].stages.size();
    const size_t reductions = has_stage ? reduction_loops_in(u, dag.funcs[size_t(func)].stages[k]) : u.vars.size();
    if (reductions == 0) continue;
    text += "; update privatized: a shared-memory copy per " + std::to_string(u.serial[reductions - 1]) + " " +
            u.vars[reductions - 1] + ", added atomically";
  }
  return text;
}

}  // namespace hlsched
