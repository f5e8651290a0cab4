#include "hlsched/engine/autoscheduler.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "cost/roofline.h"
#include "hlsched/engine/gpu_profile.h"
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

}  // namespace

ScheduleResult schedule_pipeline(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                 const AutoschedulerOptions &options) {
  (void)pipeline;
  const auto start = std::chrono::steady_clock::now();
  const GpuProfile &gpu = find_gpu_profile(options.gpu_profile);
  if (options.strategy != "simple") throw std::invalid_argument("unknown search strategy '" + options.strategy + "'");

  ScheduleResult result;
  result.schedule = simple_gpu_schedule(dag, gpu);
  result.stages = roofline_costs(dag, result.schedule, gpu);
  for (const StageCost &c : result.stages) result.predicted_runtime_ms += c.predicted_ms;
  for (FuncSchedule &fs : result.schedule.funcs) fs.comment = placement_comment(dag, fs, result.stages);

  result.target = gpu.halide_target;
  result.gpu_profile = gpu.name;
  result.cost_model = "roofline estimate from the " + gpu.name +
                      " profile (bytes / bandwidth vs operations / throughput, plus launches); no learned model yet";
  result.schedule.header_comments = {
      "Schedule by hlsched (strategy: " + options.strategy + ") for " + gpu.halide_target + " on " + gpu.description + ".",
      "Predicted runtime " + format_ms(result.predicted_runtime_ms) + " (" + result.cost_model + ").",
  };
  result.schedule_code = emit_schedule_source(result.schedule, EmitContext::GeneratorSchedule);
  result.search.strategy = options.strategy;
  result.search.states_evaluated = 1;
  result.search.time_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hlsched
