// The simple, always-valid GPU schedule: inline cheap pointwise Funcs (while the inlined
// expressions stay small: chains of inlined stencils grow exponentially), compute_root every other
// Func as its own kernel tiled over GPU blocks and threads, updates parallel over their pure
// dimensions where Halide allows it. The baseline the search must beat, and its fallback.
#pragma once

#include "hlsched/engine/gpu_profile.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// True when inlining `func` into its consumers costs no redundant work worth worrying about.
bool should_inline(const PipelineDag &dag, const FuncNode &func);

ScheduleSpec simple_gpu_schedule(const PipelineDag &dag, const GpuProfile &gpu);

}  // namespace hlsched
