#include "search/constructs.h"

#include <algorithm>
#include <set>

#include "cost/folded_phases.h"

namespace hlsched {

namespace {

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Names of the root's tiling constructs: points per thread along the coalescing loop, in two
// dimensions, of sizes that are not powers of two.
void tiling_constructs(const StageTiling &t, std::set<std::string> &used) {
  if (t.reduction_unroll > 1) used.insert("unrolled reduction loop");
  if (t.single_thread) return used.insert("single thread"), void();
  if (t.privatized) return used.insert("privatized scatter"), void();
  if (t.partials) return used.insert("partial results (rfactor)"), void();
  if (t.atomic) return used.insert("atomic scatter"), void();
  if (t.own_tiling) used.insert("update tiled independently");
  if (t.slab > 0) used.insert("reduction in slabs");
  const int inner = t.innermost_thread_loop();
  int serial_loops = 0;
  for (size_t i = 0; i < t.vars.size(); i++) {
    if (t.in_thread[i]) used.insert("small loop in thread");
    if (!t.tiled(i) || t.serial[i] <= 1) continue;
    if (t.row_loop(i)) {
      used.insert("rows along a third loop");
      continue;
    }
    serial_loops++;
    if (int(i) == inner) used.insert("points per thread along x");
    if (!is_power_of_two(t.serial[i])) used.insert("non-power-of-two points per thread");
  }
  if (serial_loops >= 2) used.insert("2-D points per thread");
}

}  // namespace

const std::vector<std::string> &all_constructs() {
  static const std::vector<std::string> names = {
      "inline",
      "root kernel",
      "single thread",
      "atomic scatter",
      "privatized scatter",
      "partial results (rfactor)",
      "small loop in thread",
      "points per thread along x",
      "2-D points per thread",
      "rows along a third loop",
      "non-power-of-two points per thread",
      "phases folded (unrolled over whole periods)",
      "fused per block",
      "fused per thread",
      "reduction fused per thread (registers)",
      "reduction fused per block",
      "fused into a kernel with updates",
      "update tiled independently",
      "unrolled reduction loop",
      "reduction in slabs",
      "copied per slab into shared memory",
      "computed with a sibling",
  };
  return names;
}

namespace {

void add_decision_constructs(const PipelineDag &dag, size_t f, const FuncDecision &d, std::set<std::string> &used) {
  switch (d.level) {
    case ComputeLevel::Inline: used.insert("inline"); break;
    case ComputeLevel::Root:
      used.insert("root kernel");
      if (d.computed_with >= 0) used.insert("computed with a sibling");
      for (const StageTiling &t : d.tilings) tiling_constructs(t, used);
      break;
    case ComputeLevel::Block:
    case ComputeLevel::Thread:
      used.insert(d.level == ComputeLevel::Block ? "fused per block" : "fused per thread");
      if (d.per_slab) used.insert("copied per slab into shared memory");
      if (d.level == ComputeLevel::Block && dag.funcs[f].stages.size() > 1) used.insert("reduction fused per block");
      if (d.level == ComputeLevel::Thread && dag.funcs[f].stages.size() > 1)
        used.insert("reduction fused per thread (registers)");
      if (d.kernel_root >= 0 && dag.funcs[size_t(d.kernel_root)].stages.size() > 1)
        used.insert("fused into a kernel with updates");
      break;
  }
}

std::vector<std::string> in_table_order(const std::set<std::string> &used) {
  std::vector<std::string> ordered;
  for (const std::string &name : all_constructs())
    if (used.count(name)) ordered.push_back(name);
  return ordered;
}

}  // namespace

std::vector<std::string> decision_constructs(const PipelineDag &dag, int func, const FuncDecision &decision) {
  std::set<std::string> used;
  add_decision_constructs(dag, size_t(func), decision, used);
  return in_table_order(used);
}

std::vector<std::string> walk_group(const PipelineDag &dag, int func, const FuncDecision &decision) {
  if (decision.level != ComputeLevel::Root || decision.tilings.size() < 2) return decision_constructs(dag, func, decision);
  // The last stage's constructs (the one fusions go into), and the updates' own tilings and
  // unrolls from any of them.
  FuncDecision last = decision;
  last.tilings = {decision.tilings.back()};
  for (size_t s = 1; s + 1 < decision.tilings.size(); s++) {
    last.tilings.back().own_tiling = last.tilings.back().own_tiling || decision.tilings[s].own_tiling;
    last.tilings.back().reduction_unroll = std::max(last.tilings.back().reduction_unroll, decision.tilings[s].reduction_unroll);
    last.tilings.back().slab = std::max(last.tilings.back().slab, decision.tilings[s].slab);
  }
  return decision_constructs(dag, func, last);
}

std::vector<std::string> constructs_used(const PipelineDag &dag, const ScheduleState &state) {
  std::set<std::string> used;
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    if (!state.decided[f]) continue;
    add_decision_constructs(dag, f, state.decisions[f], used);
    if (state.decisions[f].level == ComputeLevel::Root && folded_phases(dag, state, int(f), 0).any())
      used.insert("phases folded (unrolled over whole periods)");
  }
  return in_table_order(used);
}

}  // namespace hlsched
