// The autoscheduler's knobs on command lines: one definition of the flag names, used by the
// `schedule` subcommand, by the worker process it starts, and (with the same names) by the
// server's configuration and the plugin's HLSCHED_OPTIONS.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "hlsched/engine/autoscheduler.h"

namespace hlsched::server {

/// Adds --strategy, --beam-size, --passes, --no-freeze, --no-sampling, --no-polish, --no-memo, --seed,
/// --time-budget and --memo-file, writing into `options`.
void add_search_options(CLI::App *command, AutoschedulerOptions &options);

/// The same options as arguments, to pass on to a worker process.
std::vector<std::string> search_option_args(const AutoschedulerOptions &options);

}  // namespace hlsched::server
