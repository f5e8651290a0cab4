// What the benchmark measures: variants, each one generator compiled with one schedule.
//
// A variant is (app, label, generator params, how to schedule). The standard labels are
//   manual   the generator's own schedule            (schedule=manual)
//   li2018   Halide 14's GPU autoscheduler plugin    (schedule=none, -p libautoschedule_li2018.so)
//   hlsched  our plugin                              (schedule=none, -p libautoschedule_hlsched.so)
// and any number of extra variants come from a JSON file (schedules drawn by `hlsched sample`,
// other plugins, other generator params):
//   [{"app": "blur", "label": "sample_3", "params": {"schedule": "none"},
//     "plugin": "build/lib/libautoschedule_hlsched.so", "autoscheduler": "Hlsched",
//     "environment": {"HLSCHED_OPTIONS": "strategy=simple"}, "predict": true}]
// ("source", "generator" and "machine_params" are optional: the app's example, its only
// generator, the H200's parameters).
//
// Autoscheduled variants are scheduled by the plugin inside GenGen, never by pasting the text a
// plugin prints (Li2018's text does not compile as written).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace hlsched::server::bench {

/// How a variant is scheduled: by the generator itself (no plugin), or by an autoscheduler plugin
/// that GenGen loads.
struct SchedulerSpec {
  std::filesystem::path plugin;  ///< empty: the generator's own schedule (its params decide)
  std::string autoscheduler;     ///< the plugin's registered name, for GenGen's -s
  std::string machine_params;    ///< GenGen's machine_params= (Halide 14's plugin interface)
  std::map<std::string, std::string> environment;  ///< variables the plugin reads

  bool uses_plugin() const { return !plugin.empty(); }
};

struct BenchVariant {
  std::string app;                 ///< examples/<app>, and the results' row
  std::string label;               ///< the results' column: "manual", "li2018", "hlsched", ...
  std::filesystem::path source;    ///< the generator source
  std::string generator;           ///< registered generator name; empty: the only one
  std::map<std::string, std::string> params;  ///< GeneratorParams
  SchedulerSpec scheduler;
  /// Record hlsched's predicted runtime for this variant (`hlsched schedule` of the same
  /// generator and params); true for our plugin's variants.
  bool predict = false;

  /// The AOT function name: a C identifier unique per (app, label), e.g. "blur__li2018".
  std::string function_name() const;
};

/// Paths and settings shared by the standard variants.
struct StandardSchedulers {
  std::filesystem::path hlsched_plugin;
  std::filesystem::path li2018_plugin;
  std::string machine_params = "132,50000000,40";  ///< H200: SMs, L2 bytes, balance
  std::string hlsched_options;  ///< HLSCHED_OPTIONS for our plugin, e.g. "strategy=simple"
};

/// The labels that standard_variants() knows.
const std::vector<std::string> &standard_labels();

/// The standard variants of one example app (source examples/<app>/<app>_generator.cpp).
/// Throws std::invalid_argument for an unknown label.
std::vector<BenchVariant> standard_variants(const std::string &app, const std::filesystem::path &source,
                                            const std::vector<std::string> &labels, const StandardSchedulers &schedulers);

/// The apps of an examples folder: every <app>/<app>_generator.cpp, sorted.
std::vector<std::string> example_apps(const std::filesystem::path &examples_dir);

/// Reads extra variants (format above). Relative paths are relative to the file's folder;
/// a missing "source" means examples_dir/<app>/<app>_generator.cpp. Throws std::invalid_argument
/// saying what is wrong.
std::vector<BenchVariant> load_variants_file(const std::filesystem::path &path, const std::filesystem::path &examples_dir,
                                             const std::string &default_machine_params);

}  // namespace hlsched::server::bench
