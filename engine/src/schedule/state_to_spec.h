// A complete ScheduleState as Halide scheduling directives: the readable form an expert would
// write (gpu_tile, rows per thread unrolled, producers computed per block with gpu_threads).
#pragma once

#include "hlsched/engine/gpu_profile.h"
#include "hlsched/engine/schedule_spec.h"
#include "search/schedule_state.h"

namespace hlsched {

ScheduleSpec state_to_spec(const PipelineDag &dag, const ScheduleState &state, const GpuProfile &gpu);

}  // namespace hlsched
