// ScheduleSpec <-> JSON, so a schedule found in one process can be applied in another (a fresh
// worker, a benchmark bundle builder) exactly as found.
#pragma once

#include <nlohmann/json.hpp>

#include "hlsched/engine/schedule_spec.h"

namespace hlsched::server {

nlohmann::json schedule_spec_to_json(const ScheduleSpec &spec);

/// Throws std::invalid_argument on malformed input.
ScheduleSpec schedule_spec_from_json(const nlohmann::json &json);

}  // namespace hlsched::server
