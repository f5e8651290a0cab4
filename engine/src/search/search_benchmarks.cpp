#include "hlsched/engine/search_benchmarks.h"

#include <chrono>
#include <random>

#include "hlsched/engine/gpu_profile.h"
#include "search/beam_search.h"
#include "search/decision_options.h"

namespace hlsched {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

OptionThroughput measure_option_throughput(const PipelineDag &dag, const AutoschedulerOptions &options, double seconds) {
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  AutoschedulerOptions no_memo = options;
  no_memo.memo = false;
  CostMemo memo;
  BeamSearch search(dag, gpu, no_memo, memo);
  std::mt19937_64 rng(options.seed);
  OptionThroughput out;
  double option_seconds = 0, cost_seconds = 0, hash_seconds = 0;
  int64_t hashes = 0;
  uint64_t sink = 0;
  const auto start = std::chrono::steady_clock::now();
  while (seconds_since(start) < seconds) {
    ScheduleState state(dag);
    for (int func : ScheduleState::decision_order(dag)) {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<FuncDecision> children = decision_options(dag, state, func, gpu, OptionLimits{});
      option_seconds += seconds_since(t0);
      out.children += int64_t(children.size());
      std::vector<ScheduleState> costed;
      for (const FuncDecision &d : children) {
        ScheduleState child = state;
        child.decide(func, d);
        auto t1 = std::chrono::steady_clock::now();
        search.evaluate(child);
        cost_seconds += seconds_since(t1);
        auto t2 = std::chrono::steady_clock::now();
        sink ^= child.exact_hash() ^ child.structural_hash();
        hash_seconds += seconds_since(t2);
        hashes += 2;
        costed.push_back(std::move(child));
      }
      if (costed.empty()) break;
      state = costed[rng() % costed.size()];
    }
  }
  out.seconds = seconds_since(start);
  out.children_per_second = double(out.children) / std::max(option_seconds, 1e-9);
  out.states_costed_per_second = double(out.children) / std::max(cost_seconds, 1e-9);
  out.hashes_per_second = double(hashes) / std::max(hash_seconds, 1e-9) + double(sink & 0);
  return out;
}

}  // namespace hlsched
