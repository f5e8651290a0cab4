// Throughput figures of the search's building blocks, for docs/PERFORMANCE.md
// (`hlsched options-bench FILE`).
#pragma once

#include "hlsched/engine/autoscheduler.h"

namespace hlsched {

struct OptionThroughput {
  double children_per_second = 0;   ///< legal next decisions generated (options + their checks)
  double states_costed_per_second = 0;  ///< children whose full cost was evaluated (no memo)
  double hashes_per_second = 0;     ///< exact + structural state hashes
  int64_t children = 0;
  double seconds = 0;
};

/// Walks random paths through the schedule space for about `seconds`, generating every child at
/// every step, costing and hashing them.
OptionThroughput measure_option_throughput(const PipelineDag &dag, const AutoschedulerOptions &options, double seconds);

}  // namespace hlsched
