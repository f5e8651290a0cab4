// The training set's rows: computed from schedules (featurize_schedules), written and read as
// plain text (the feature cache), and converted back to the network's KernelFeatures.
#include <chrono>
#include <fstream>
#include <random>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "cost/features.h"
#include "cost/learned_model.h"
#include "hlsched/engine/cost_training.h"
#include "hlsched/engine/gpu_profile.h"
#include "search/beam_search.h"
#include "search/warm_start.h"
#include "schedule/state_to_spec.h"
#include "training/rows.h"

namespace hlsched {

namespace {

constexpr char kMagic[] = "hlsched-features";
// Format 2: the profiles' launch halved and a cost per call added (session forty-three). Format 1
// files price the launch term, and the hand times that include it, the old way
// (kOldLaunchPerLaunch): read, their launch terms are priced as today and the hand times lowered
// by as much (the only terms the change moved).
constexpr int kFormat = 2;
constexpr int kFormatWithOldLaunch = 1;
constexpr int kValuesPerKernel = kPfCount + kSfCount + kTermCount;

KernelRow row_of(const std::string &func, int stage, const KernelFeatures &f) {
  KernelRow row;
  row.func = func;
  row.stage = stage;
  row.values.insert(row.values.end(), f.pipeline.begin(), f.pipeline.end());
  row.values.insert(row.values.end(), f.schedule.begin(), f.schedule.end());
  row.values.insert(row.values.end(), f.terms_ms.begin(), f.terms_ms.end());
  row.hand_ms = f.hand_ms;
  return row;
}

// A saved state's text names the search options it came from; matching with that key accepts it.
// (from_text, not load: the dataset keeps the text without the file's checksum line, and load()
// refused every such text from the day checksums were added, so every record fell back to its
// random walk, drawn again in a changed space.)
ScheduleState state_from_text(const PipelineDag &dag, const std::string &text) {
  std::istringstream fields(text);
  std::string magic;
  uint64_t key = 0;
  fields >> magic >> key;
  WarmStart warm;
  return warm.from_text(text) ? warm.match(dag, key).state : ScheduleState(dag);
}

}  // namespace

int cost_feature_version() { return kFeatureVersion; }

std::vector<std::string> cost_term_name_list() {
  return std::vector<std::string>(cost_term_names().begin(), cost_term_names().end());
}

KernelFeatures features_of_row(const KernelRow &row) {
  if (row.values.size() != size_t(kValuesPerKernel))
    throw std::runtime_error("a kernel row has " + std::to_string(row.values.size()) + " values, expected " +
                             std::to_string(kValuesPerKernel));
  KernelFeatures f;
  size_t at = 0;
  for (double &v : f.pipeline) v = row.values[at++];
  for (double &v : f.schedule) v = row.values[at++];
  for (double &v : f.terms_ms) v = row.values[at++];
  f.hand_ms = row.hand_ms;
  return f;
}

std::string training_set_to_text(const TrainingSet &set) {
  std::ostringstream out;
  out.precision(17);
  out << kMagic << ' ' << kFormat << ' ' << kFeatureVersion << '\n';
  out << "provenance " << set.provenance << '\n';
  for (const PipelineRows &p : set.pipelines) {
    out << "pipeline " << p.id << '\n';
    for (const ScheduleRow &s : p.schedules) {
      out << "schedule " << s.measured_ms << ' ' << s.hand_ms << ' ' << s.kernels.size() << '\n';
      for (const KernelRow &k : s.kernels) {
        out << "kernel " << k.func << ' ' << k.stage << ' ' << k.measured_ms << ' ' << k.hand_ms;
        for (double v : k.values) out << ' ' << v;
        out << '\n';
      }
    }
  }
  return out.str();
}

TrainingSet parse_training_set(const std::string &text) {
  std::istringstream in(text);
  std::string line, magic;
  int format = 0, version = 0;
  if (!std::getline(in, line) || !(std::istringstream(line) >> magic >> format >> version) || magic != kMagic)
    throw std::runtime_error("not a hlsched features file");
  if (format != kFormat && format != kFormatWithOldLaunch)
    throw std::runtime_error("features file format " + std::to_string(format) + ", this build reads " +
                             std::to_string(kFormatWithOldLaunch) + " and " + std::to_string(kFormat));
  if (version != kFeatureVersion)
    throw std::runtime_error("features version " + std::to_string(version) + ", this build computes " +
                             std::to_string(kFeatureVersion) + ": featurize the dataset again");
  TrainingSet set;
  int line_number = 1;
  auto fail = [&line_number](const std::string &what) {
    throw std::runtime_error("features file line " + std::to_string(line_number) + ": " + what);
  };
  while (std::getline(in, line)) {
    line_number++;
    std::istringstream fields(line);
    std::string key;
    if (!(fields >> key)) continue;
    if (key == "provenance") {
      std::getline(fields >> std::ws, set.provenance);
    } else if (key == "pipeline") {
      set.pipelines.emplace_back();
      std::getline(fields >> std::ws, set.pipelines.back().id);
    } else if (key == "schedule") {
      if (set.pipelines.empty()) fail("schedule before any pipeline");
      ScheduleRow s;
      size_t kernels = 0;
      if (!(fields >> s.measured_ms >> s.hand_ms >> kernels)) fail("bad schedule line");
      set.pipelines.back().schedules.push_back(s);
    } else if (key == "kernel") {
      if (set.pipelines.empty() || set.pipelines.back().schedules.empty()) fail("kernel before any schedule");
      KernelRow k;
      if (!(fields >> k.func >> k.stage >> k.measured_ms >> k.hand_ms)) fail("bad kernel line");
      double v;
      while (fields >> v) k.values.push_back(v);
      if (k.values.size() != size_t(kValuesPerKernel)) fail("wrong number of values");
      if (format == kFormatWithOldLaunch) {  // priced again as today's profiles price it
        double &launch = k.values[size_t(kPfCount + kSfCount + kTermLaunch)];
        const double saved = launch * (1 - 1 / kOldLaunchPerLaunch);
        launch -= saved;
        k.hand_ms -= saved;
        set.pipelines.back().schedules.back().hand_ms -= saved;
      }
      set.pipelines.back().schedules.back().kernels.push_back(std::move(k));
    } else {
      fail("unknown line '" + key + "'");
    }
  }
  return set;
}

std::vector<ScheduleRow> featurize_schedules(const PipelineDag &dag, const AutoschedulerOptions &options,
                                             const std::vector<ScheduleRef> &schedules,
                                             std::vector<RebuiltSchedule> *rebuilt) {
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  CostMemo memo;
  AutoschedulerOptions walk = options;
  walk.memo = false;
  walk.model = "hand";  // samples are drawn the same whatever model predicts them
  BeamSearch search(dag, gpu, walk, memo);
  std::vector<ScheduleRow> rows;
  for (const ScheduleRef &ref : schedules) {
    // The saved state first (exact whatever the search space became), else the random walk.
    RebuiltSchedule what;
    ScheduleState state(dag);
    if (!ref.state_text.empty()) state = state_from_text(dag, ref.state_text);
    if (state.complete()) what.from = "state";
    if (!state.complete() && ref.sample_index >= 0) {
      std::mt19937_64 rng = BeamSearch::sample_rng(ref.sample_seed, ref.sample_index);
      state = search.random_walk(rng);
      if (state.complete()) what.from = "walk";
    }
    ScheduleRow row;
    if (state.complete()) {
      for (const KernelModel &km : build_kernel_models(dag, state, gpu)) {
        if (!km.valid) {
          row.kernels.clear();
          what.kernels.clear();
          break;
        }
        row.kernels.push_back(row_of(dag.funcs[km.root].name, km.stage, kernel_features(dag, state, km, gpu)));
        row.hand_ms += row.kernels.back().hand_ms;
        what.kernels.push_back({dag.funcs[km.root].name, km.stage, km.blocks, km.threads_per_block,
                               km.tiling && km.tiling->partials,
                               km.computed_with >= 0 ? dag.funcs[size_t(km.computed_with)].name : ""});
      }
      if (rebuilt && !row.kernels.empty()) what.spec = state_to_spec(dag, state, gpu);
    }
    if (row.kernels.empty()) {
      row.hand_ms = 0;
      what.from.clear();
    }
    rows.push_back(std::move(row));
    if (rebuilt) rebuilt->push_back(std::move(what));
  }
  return rows;
}

CostModelThroughput measure_cost_model_throughput(const PipelineDag &dag, const AutoschedulerOptions &options,
                                                  double seconds) {
  using Clock = std::chrono::steady_clock;
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  CostMemo memo;
  AutoschedulerOptions walk = options;
  walk.memo = false;
  walk.model = "hand";
  BeamSearch search(dag, gpu, walk, memo);
  // Kernels of a few random schedules, each with the state it belongs to.
  std::vector<ScheduleState> states;
  for (int i = 0; i < 16; i++) {
    std::mt19937_64 rng = BeamSearch::sample_rng(options.seed, i);
    ScheduleState s = search.random_walk(rng);
    if (s.complete()) states.push_back(std::move(s));
  }
  std::vector<std::pair<const ScheduleState *, KernelModel>> kernels;
  for (const ScheduleState &s : states)
    for (KernelModel &km : build_kernel_models(dag, s, gpu))
      if (km.valid) kernels.emplace_back(&s, std::move(km));
  CostModelThroughput t;
  t.kernels = int(kernels.size());
  if (kernels.empty()) return t;
  const LearnedCostModel learned = options.weights.empty()
                                       ? LearnedCostModel(CostModelWeights::initial(options.seed), "untrained")
                                       : LearnedCostModel(load_weights_ensemble(options.weights), options.weights);
  volatile double sink = 0;
  auto rate = [&](auto &&one) {
    int64_t done = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds / 3) {
      for (const auto &[state, km] : kernels) sink = sink + one(*state, km);
      done += int64_t(kernels.size());
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    return double(done) / elapsed;
  };
  t.hand_per_second = rate([&](const ScheduleState &, const KernelModel &km) { return cost_of_kernel(km, gpu).total_ms; });
  t.learned_per_second =
      rate([&](const ScheduleState &s, const KernelModel &km) { return learned.cost(dag, s, km, gpu).total_ms; });
  t.model_build_per_second = rate([&](const ScheduleState &s, const KernelModel &km) {
    return build_kernel_model(dag, s, km.root, km.stage, gpu).blocks;
  });
  return t;
}

}  // namespace hlsched
