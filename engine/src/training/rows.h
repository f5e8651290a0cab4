// Between the public training rows (flat numbers) and the network's typed features.
#pragma once

#include "cost/features.h"
#include "hlsched/engine/cost_training.h"

namespace hlsched {

/// Throws std::runtime_error when the row has the wrong number of values.
KernelFeatures features_of_row(const KernelRow &row);

}  // namespace hlsched
