// libautoschedule_hlsched.so: hlsched as a standard Halide 14 autoscheduler plugin.
//
//   GenGen ... -p libautoschedule_hlsched.so -s Hlsched auto_schedule=true \
//       target=host-cuda-cuda_capability_86 -e static_library,h,schedule
//
// Loading the library registers "Hlsched". The schedule is applied to the pipeline directly and
// written, as compilable C++, where Halide's plugins write theirs (the `schedule` emit option).
// Halide 14's plugin interface passes only MachineParams, so the other knobs come from the
// HLSCHED_OPTIONS environment variable ("gpu=a100,beam_size=16,no_freeze"), using the CLI's
// names (dashes may be written as underscores; hlsched/engine/plugin_options.h reads them).
//
// "strategy=sample,seed=S,sample=I" applies random schedule I of seed S instead of searching: the
// schedule `hlsched sample --seed S` draws as its I-th random walk (sample_schedules), so that a
// benchmark can compile and check random schedules one variant at a time. "candidate=K" applies
// the search's K-th runner-up (0: the best; `hlsched schedule --measure`), the same search run
// again: it is deterministic for a seed unless its time budget runs out.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "Halide.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/plugin_options.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {
namespace {

PluginOptions options_from_environment() {
  const char *text = std::getenv("HLSCHED_OPTIONS");
  return parse_plugin_options(text ? text : "");
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
