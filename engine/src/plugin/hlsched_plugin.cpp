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
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "Halide.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {
namespace {

AutoschedulerOptions options_from_environment() {
  AutoschedulerOptions options;
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
    else if (key == "no-memo") options.memo = false;
    else if (key == "seed") options.seed = uint64_t(number());
    else if (key == "time-budget") options.time_budget_s = number();
    else if (key == "memo-file") options.memo_path = value;
    else
      throw std::invalid_argument("HLSCHED_OPTIONS: unknown option '" + key +
                                  "' (gpu, strategy, beam-size, passes, no-freeze, no-sampling, no-memo, seed, "
                                  "time-budget, memo-file)");
  }
  return options;
}


void autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                  const Halide::MachineParams & /*params*/, Halide::AutoSchedulerResults *results) {
  AutoschedulerOptions options = options_from_environment();
  PipelineDag dag = build_pipeline_dag(pipeline);
  ScheduleResult result = schedule_pipeline(pipeline, dag, options);
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
