// The engine's front door: a built pipeline and options in; a schedule, its predicted costs and
// search statistics out. The CLI, the Halide plugin and the language server all call this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// Every knob of the autoscheduler, shared by the CLI, the plugin's parameters and the server's
/// configuration (same names everywhere).
struct AutoschedulerOptions {
  std::string gpu_profile = "h200";  ///< see gpu_profiles()
  std::string strategy = "simple";   ///< "simple": inline pointwise Funcs, compute_root + gpu_tile the rest
};

/// Predicted cost of one stage, split into terms that each mean something physical.
struct StageCost {
  std::string func;
  int stage = 0;
  std::string placement;                 ///< "inline", "root kernel", ...
  double predicted_ms = 0;
  std::map<std::string, double> terms_ms;  ///< "compute", "global_memory", "launch", ...
  std::string bound;                     ///< the dominant term: "memory", "compute" or "launch"
  int64_t points = 0;
  double bytes_moved = 0;
  double operations = 0;
};

struct SearchStats {
  double time_ms = 0;
  int64_t states_evaluated = 0;
  std::string strategy;
};

struct ScheduleResult {
  ScheduleSpec schedule;
  std::string schedule_code;  ///< body for the generator's schedule(), compiles as pasted
  double predicted_runtime_ms = 0;
  std::vector<StageCost> stages;
  std::string target;
  std::string gpu_profile;
  std::string cost_model;     ///< how predictions were made, for the user
  SearchStats search;
};

/// Schedules the pipeline for the GPU. Does not modify the pipeline (see apply_schedule).
ScheduleResult schedule_pipeline(const Halide::Pipeline &pipeline, const PipelineDag &dag,
                                 const AutoschedulerOptions &options);

}  // namespace hlsched
