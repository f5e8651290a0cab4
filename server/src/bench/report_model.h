// What `hlsched report` shows, extracted once from a runner's results JSON (format in
// server/bench_runner/orchestrator.h) so that the markdown tables and the chart agree.
//
// The physical floor of an app is the time to read each input once and write each output once
// at the device-to-device copy bandwidth the runner measured in the same run:
//   floor_ms = (input_bytes + output_bytes) / copy_bandwidth
// A variant's "fraction of the floor" is floor_ms / runtime_ms (1 = as fast as moving the data).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hlsched::server::bench {

struct KernelTime {
  std::string name, func;
  int stage = -1;
  double ms = 0;  ///< median per call
  double launches_per_call = 0;
};

struct StagePrediction {
  std::string func, placement, bound;
  int stage = 0;
  double predicted_ms = 0;
};

struct Measurement {
  std::string function, label;
  std::string status;   ///< "ok", "failed", "not_compiled", "skipped"
  std::string error;
  double median_ms = 0, p10_ms = 0, p90_ms = 0;
  int repetitions = 0;
  bool output_matches = true;
  std::string check_detail;  ///< when it does not match: which output, how many elements
  std::vector<KernelTime> kernels;  ///< empty without CUPTI
  std::optional<double> predicted_ms;   ///< hlsched's prediction for this variant
  std::vector<StagePrediction> predicted_stages;

  /// Measured and checked: usable in comparisons.
  bool usable() const { return status == "ok" && output_matches; }
};

struct AppRow {
  std::string app;
  double input_bytes = 0, output_bytes = 0;
  std::optional<double> floor_ms;
  std::map<std::string, Measurement> by_label;

  const Measurement *find(const std::string &label) const;
  /// floor / runtime of a usable measurement.
  std::optional<double> floor_fraction(const std::string &label) const;
};

struct ReportModel {
  std::string device, date, commit, target;
  std::string backend;  ///< "cuda" or "host": how runtimes were timed
  bool tree_dirty = false;
  std::optional<double> copy_gb_per_s;
  bool complete = true;
  std::vector<std::string> labels;  ///< column order: manual, li2018, hlsched, then the rest
  std::vector<AppRow> apps;
  nlohmann::json options;           ///< how it was measured (the runner's options)
};

/// Throws std::invalid_argument when the JSON is not a results file of the runner.
ReportModel build_report_model(const nlohmann::json &results);

/// t_baseline / t_ours for an app, when both are usable (> 1: ours is faster).
std::optional<double> speedup(const AppRow &row, const std::string &ours, const std::string &baseline);

/// Geometric mean of the values (nullopt when empty).
std::optional<double> geometric_mean(const std::vector<double> &values);

}  // namespace hlsched::server::bench
