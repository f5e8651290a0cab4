// The built-in GPU profiles, one function (and file) each.
#pragma once

#include "hlsched/engine/gpu_profile.h"

namespace hlsched::profiles {
GpuProfile h200();
GpuProfile a100();
GpuProfile rtx4090();
GpuProfile v100();
}  // namespace hlsched::profiles
