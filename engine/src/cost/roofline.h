// The first cost estimate: per root stage, the larger of its global-memory time and its
// arithmetic time on the GPU profile's rates, plus a kernel launch. Work of inlined Funcs is
// charged to the stages that inline them. A physical floor, not a prediction of stalls.
#pragma once

#include <vector>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/gpu_profile.h"

namespace hlsched {

std::vector<StageCost> roofline_costs(const PipelineDag &dag, const ScheduleSpec &schedule, const GpuProfile &gpu);

}  // namespace hlsched
