// libautoschedule_hlsched.so: hlsched as a standard Halide 14 autoscheduler plugin.
//
//   GenGen ... -p libautoschedule_hlsched.so -s Hlsched auto_schedule=true \
//       target=host-cuda-cuda_capability_86 -e static_library,h,schedule
//
// Loading the library registers "Hlsched". The schedule is applied to the pipeline directly and
// written, as compilable C++, where Halide's plugins write theirs (the `schedule` emit option).
// Halide 14's plugin interface passes only MachineParams, so the other knobs come from the
// HLSCHED_OPTIONS environment variable ("gpu=a100,beam_size=16,no_freeze"), using the CLI's
// names (dashes may be written as underscores).
//
// "strategy=sample,seed=S,sample=I" applies random schedule I of seed S instead of searching: the
// schedule `hlsched sample --seed S` draws as its I-th random walk (sample_schedules), so that a
// benchmark can compile and check random schedules one variant at a time. "candidate=K" applies
// the search's K-th runner-up (0: the best; `hlsched schedule --measure`), the same search run
// again: it is deterministic for a seed unless its time budget runs out.
#include <algorithm>
#include <cctype>
#include <limits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "Halide.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {
namespace {

// The plugin's reading of HLSCHED_OPTIONS: the engine's options and which random sample to apply.
struct PluginOptions {
  AutoschedulerOptions engine;
  int sample_index = -1;  ///< strategy=sample: which random walk of engine.seed (default 0)
  std::string decisions_path;  ///< a schedule's saved decisions: applied as they are, no search
};

// A whole non-negative integer ("12"), else a clear error naming the option.
uint64_t parse_count(const std::string &key, const std::string &value) {
  const bool digits = !value.empty() && value.size() <= 19 &&
                      std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits)
    throw std::invalid_argument("HLSCHED_OPTIONS: " + key + " wants a non-negative integer, not '" + value + "'");
  return std::stoull(value);
}

PluginOptions options_from_environment() {
  PluginOptions plugin;
  AutoschedulerOptions &options = plugin.engine;
  const char *text = std::getenv("HLSCHED_OPTIONS");
  std::stringstream items(text ? text : "");
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::replace(key.begin(), key.end(), '_', '-');
    auto number = [&] { return std::stod(value); };
    if (key == "gpu") options.gpu_profile = value;
    else if (key == "strategy") options.strategy = value;
    else if (key == "beam-size") options.beam_size = int(number());
    else if (key == "passes") options.passes = int(number());
    else if (key == "no-freeze") options.freeze = false;
    else if (key == "no-sampling") options.sampling = false;
    else if (key == "no-polish") options.polish = false;
    else if (key == "no-memo") options.memo = false;
    else if (key == "seed") options.seed = parse_count(key, value);
    else if (key == "sample") {
      const uint64_t index = parse_count(key, value);
      if (index > uint64_t(std::numeric_limits<int>::max()))
        throw std::invalid_argument("HLSCHED_OPTIONS: sample index " + value + " is too large");
      plugin.sample_index = int(index);
    }
    else if (key == "candidate") {
      const uint64_t index = parse_count(key, value);
      if (index > 1000) throw std::invalid_argument("HLSCHED_OPTIONS: candidate " + value + " is too large");
      options.candidate = int(index);
    }
    else if (key == "work-budget") options.work_budget = number();
    else if (key == "time-budget") options.time_budget_s = number();
    else if (key == "memo-file") options.memo_path = value;
    else if (key == "model") options.model = value;
    else if (key == "weights") options.weights = value;
    else if (key == "decisions") plugin.decisions_path = value;
    else
      throw std::invalid_argument("HLSCHED_OPTIONS: unknown option '" + key +
                                  "' (gpu, strategy, beam-size, passes, no-freeze, no-sampling, no-polish, no-memo, seed, "
                                  "sample, candidate, work-budget, time-budget, memo-file, model, weights, decisions)");
  }
  if (options.strategy == "sample" && plugin.sample_index < 0) plugin.sample_index = 0;
  if (options.strategy != "sample" && plugin.sample_index >= 0)
    throw std::invalid_argument("HLSCHED_OPTIONS: sample=" + std::to_string(plugin.sample_index) +
                                " needs strategy=sample (not '" + options.strategy + "')");
  if (options.candidate > 0 && options.strategy != "beam")
    throw std::invalid_argument("HLSCHED_OPTIONS: candidate=" + std::to_string(options.candidate) +
                                " needs strategy=beam (not '" + options.strategy + "')");
  return plugin;
}

// Random walk `index` of `seed`; a walk that ends without a complete schedule is an error here
// (the sampler skips it), since the caller asked for that very schedule.
ScheduleResult random_schedule(const Halide::Pipeline &pipeline, const PipelineDag &dag, const PluginOptions &plugin) {
  std::vector<ScheduleResult> drawn =
      sample_schedules(pipeline, dag, plugin.engine, 1, plugin.engine.seed, plugin.sample_index);
  if (drawn.empty())
    throw std::runtime_error("hlsched: random walk " + std::to_string(plugin.sample_index) + " of seed " +
                             std::to_string(plugin.engine.seed) + " found no complete schedule");
  return std::move(drawn.front());
}

// The schedule whose decisions `hlsched schedule --measure` saved for this variant.
ScheduleResult saved_schedule(const Halide::Pipeline &pipeline, const PipelineDag &dag, const PluginOptions &plugin) {
  std::ifstream in(plugin.decisions_path);
  if (!in) throw std::invalid_argument("HLSCHED_OPTIONS: cannot read decisions file " + plugin.decisions_path);
  std::ostringstream text;
  text << in.rdbuf();
  return schedule_from_decisions(pipeline, dag, plugin.engine, text.str());
}

void autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                  const Halide::MachineParams & /*params*/, Halide::AutoSchedulerResults *results) {
  const PluginOptions options = options_from_environment();
  PipelineDag dag = build_pipeline_dag(pipeline);
  ScheduleResult result = !options.decisions_path.empty()         ? saved_schedule(pipeline, dag, options)
                          : options.engine.strategy == "sample" ? random_schedule(pipeline, dag, options)
                                                                : schedule_pipeline(pipeline, dag, options.engine);
  apply_schedule(result.schedule, pipeline, target.has_gpu_feature() ? ApplyMode::Gpu : ApplyMode::Cpu);
  results->scheduler_name = "Hlsched";
  results->target = target;
  // Halide wraps this body in `inline void apply_schedule_NAME(Pipeline pipeline, Target target)`.
  results->schedule_source = emit_schedule_source(result.schedule, EmitContext::PipelineFunction);
}

struct RegisterHlsched {
  RegisterHlsched() { Halide::Pipeline::add_autoscheduler("Hlsched", autoschedule); }
} register_hlsched;

}  // namespace
}  // namespace hlsched
