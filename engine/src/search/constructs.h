// The constructs of the GPU schedule space (docs/ARCHITECTURE.md, "The schedule space"), named
// per state: which of them a schedule uses. Tests count them over random walks to show that the
// walks (and so the random-pairs checks) reach every construct.
#pragma once

#include <string>
#include <vector>

#include "search/schedule_state.h"

namespace hlsched {

/// Every construct's name, in the order of the table in docs/ARCHITECTURE.md.
const std::vector<std::string> &all_constructs();

/// The constructs one decision of DAG Func `func` uses.
std::vector<std::string> decision_constructs(const PipelineDag &dag, int func, const FuncDecision &decision);

/// How random walks group the options of one Func before drawing (a group, then an option):
/// by their constructs; a Func with updates by its last stage's (a histogram's scatter, atomic or
/// privatized, whatever its first stage's tiling).
std::vector<std::string> walk_group(const PipelineDag &dag, int func, const FuncDecision &decision);

/// The constructs `state` uses (each once), a subset of all_constructs().
std::vector<std::string> constructs_used(const PipelineDag &dag, const ScheduleState &state);

}  // namespace hlsched
