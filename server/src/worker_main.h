// The worker mode of the hlsched executable (`hlsched worker ...`, not for people): loads a
// user's compiled generator, builds its pipeline and answers one task, writing JSON to a file.
// User code runs only here, so a crash or hang in it never takes the parent down.
#pragma once

#include <map>
#include <string>

#include "hlsched/engine/autoscheduler.h"

namespace hlsched::server {

struct WorkerRequest {
  std::string task;          ///< "dag", "schedule", "candidates", "lower", "apply", "sample" or "options-bench"
  std::string library;       ///< the generator's shared object
  std::string generator;     ///< empty: the only registered one
  std::map<std::string, std::string> params;
  std::string gpu_profile = "h200";
  AutoschedulerOptions search;  ///< gpu_profile above overrides search.gpu_profile
  std::string target;        ///< "lower": the Halide target (default: the GPU profile's)
  std::string result_path;   ///< where the result JSON goes
  std::string stmt_path;     ///< optional: the lowered program is written here
  bool verify = false;       ///< "schedule": also compile the applied schedule for the target
  std::string schedule_path; ///< "apply": a schedule JSON (the "schedule" field of a result)
  std::string decisions_path; ///< "schedule": saved decisions (ScheduleResult::decisions), no search
  int sample_count = 1;      ///< "sample": how many random schedules; "candidates": how many schedules
  uint64_t sample_seed = 0;  ///< "sample": their seed
  int sample_first = 0;      ///< "sample": the first walk's index (walks first .. first + count - 1)
};

/// Exit codes of the worker process besides crashes.
enum WorkerExit { kWorkerOk = 0, kWorkerUserError = 3, kWorkerInternalError = 4 };

/// Runs the task; always writes the result file (an "error" object on failure) unless the user's
/// code kills the process.
int run_worker_task(const WorkerRequest &request);

}  // namespace hlsched::server
