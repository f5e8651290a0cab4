// The plugin's options: Halide 14's plugin interface passes only MachineParams, so the
// autoscheduler's knobs reach libautoschedule_hlsched.so as one string in the HLSCHED_OPTIONS
// environment variable ("gpu=a100,beam_size=16,no_freeze"). The plugin and `hlsched bench`
// (which predicts the schedule the plugin will apply) both read it here, so they cannot differ.
#pragma once

#include <string>

#include "hlsched/engine/autoscheduler.h"

namespace hlsched {

struct PluginOptions {
  AutoschedulerOptions engine;
  int sample_index = -1;       ///< strategy=sample: which random walk of engine.seed (default 0)
  std::string decisions_path;  ///< a schedule's saved decisions: applied as they are, no search
};

/// Reads "key=value,flag,..." over `options` (keys not named keep their values). Keys are the
/// CLI's option names, and a key's underscores may be written for its dashes ("work_budget=4");
/// values are taken as written. Throws std::invalid_argument naming the option for an unknown
/// key, a malformed number, or a combination the plugin cannot apply (sample= without
/// strategy=sample, candidate= without strategy=beam).
void read_plugin_options(const std::string &text, PluginOptions &options);

/// read_plugin_options over the defaults.
PluginOptions parse_plugin_options(const std::string &text);

}  // namespace hlsched
