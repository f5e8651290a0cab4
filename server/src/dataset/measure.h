// `hlsched schedule --measure K`: benchmark the search's K best candidates on a GPU and keep the
// fastest measured one (issue 13; docs/COST_MODEL.md, "Measuring the best candidates").
//
// Two halves, so that it works on a machine without a GPU (Halide cannot run on the GPU machine):
//   1. plan + bundle: the search's K best distinct schedules (schedule_candidates), one benchmark
//      variant each (the plugin's candidate=i), built into a bundle with its collection manifest;
//   2. pick: the runner's results joined with the manifest; the fastest candidate whose outputs
//      matched the reference (candidate 0, the search's choice) wins; every measured candidate
//      becomes a dataset record.
// With a GPU here (local_gpu.h) one command does both and runs the bundle in between; without
// one, the first half prints how to run the bundle and `--measure-results` does the second.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dataset/collection.h"
#include "dataset/dataset_command.h"
#include "generator_analysis.h"

namespace hlsched::dataset {

/// The plugin's HLSCHED_OPTIONS that make it apply candidate `candidate` of the search `search`
/// describes (every option that shapes the search; no memo file, whose warm start would).
std::string candidate_plugin_options(const AutoschedulerOptions &search, const std::string &gpu_profile, int candidate);

/// One variant per candidate (label "c<i>", schedule kind "candidate"), in candidate order: the
/// first is the runner's reference output. `decisions_files[i]` holds candidate i's saved
/// decisions (its result's "decisions"): the plugin applies them as they are, and the prediction
/// is made from them, with no search that a busy machine could cut short into another schedule.
CollectionPlan plan_measure(const server::AnalysisRequest &analysis, const CollectionOptions &options,
                            const std::vector<std::string> &decisions_files);

/// What became of one candidate on the GPU.
struct CandidateOutcome {
  int candidate = 0;
  std::string function;     ///< the bundle's variant
  double predicted_ms = 0;  ///< 0: no prediction
  std::string status;       ///< "ok", "output differs", "applied another schedule", "not measured", or the failure
  double measured_ms = 0;   ///< median, when the status is "ok"
  std::string schedule_code;
};

struct MeasurePick {
  std::vector<CandidateOutcome> candidates;  ///< in candidate order
  int fastest = -1;  ///< index into candidates of the fastest "ok" one; -1: none
};

/// Joins a runner's results.json with the collection manifest of a --measure bundle. Throws
/// std::invalid_argument when either is not what it should be.
MeasurePick pick_fastest(const nlohmann::json &results, const nlohmann::json &collection);

/// The table of candidates (predicted and measured) and the winner's schedule, for people.
std::string measure_report(const MeasurePick &pick);

struct MeasureRequest {
  server::AnalysisRequest analysis;  ///< source, generator, params, GPU profile, search options
  int count = 8;                     ///< K
  std::string out_dir = ".bundle-measure";
  std::string results_path;          ///< given: only the second half, from these results
  std::string dataset = "engine/training/data/dataset.jsonl.zst";  ///< the records are appended here
  std::string driver;                ///< NVIDIA driver version for the records' provenance
  double run_budget_s = 300;         ///< the local run's time budget
  bool force_no_gpu = false;         ///< behave as if there were no GPU
  int jobs = 2;
};

/// The whole command; returns the process exit code.
int measure_schedule(const MeasureRequest &request);

}  // namespace hlsched::dataset
