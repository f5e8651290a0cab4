// Engine results as JSON: the one place that decides what `hlsched schedule --json`,
// `hlsched dag --json` and the server's hlsched/* methods return.
#pragma once

#include <nlohmann/json.hpp>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/generator_build.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched::server {

nlohmann::json to_json(const ScheduleResult &result);
nlohmann::json to_json(const PipelineDag &dag);
nlohmann::json to_json(const CompilerDiagnostic &diagnostic);

}  // namespace hlsched::server
