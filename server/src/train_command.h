// `hlsched train` and `hlsched model-bench`: the learned cost model's training and throughput.
//
//   hlsched train --data DATASET.jsonl.zst --out h200.weights [--seed N --epochs N ...]
//       rebuilds each record's pipeline (a worker, as the CLI does), re-featurizes its schedule
//       with this build's features (cached per pipeline), trains (engine: cost_training.h), prints
//       held-out metrics of the hand and the learned model, and writes the weights
//   hlsched train --features FILE --out W     trains on a features file (no rebuilding)
//   hlsched train --data D --dump-features F  writes the features file (and trains if --out)
//   hlsched model-bench SOURCE                cost model evaluations per second on one core
//
// Dataset records: docs/COST_MODEL.md ("Dataset format"). Only what training needs is read here:
// pipeline (id, kind, source, generator, params, random seed/stages), schedule (decisions, or a
// sample's seed and walk), measured (pipeline_ms, output_ok, kernels[].func/stage/ms).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/fidelity.h"
#include "hlsched/engine/cost_training.h"

namespace hlsched::server {

struct TrainRequest {
  std::vector<std::string> data;  ///< dataset files (.jsonl, .jsonl.zst, .jsonl.xz)
  std::string features;           ///< a features file instead of datasets
  std::string dump_features;
  std::string predictions;        ///< per-kernel predictions (TSV) after training
  std::string evaluate;           ///< weights to predict with instead of training (with predictions)
  std::string out;
  std::string repo_root = ".";    ///< example sources are relative to it
  std::string cache_dir;
  std::string gpu = "h200";
  double timeout_s = 120;         ///< per pipeline's featurization
  int jobs = 1;                   ///< pipelines featurized at once (a worker process each)
  bool json = false;
  bool untrained = false;         ///< write the untrained weights (the hand model) and stop
  bool keep_unfaithful = false;   ///< train on records whose rebuilt schedule is not the one measured
  TrainOptions train;
};

class TrainCommand {
public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

private:
  TrainRequest request_;
};

/// One record's fidelity check: does its schedule, rebuilt today, match what was measured?
struct RecordCheck {
  std::string id;
  dataset::Fidelity fidelity;
};

struct FeaturizedDataset {
  TrainingSet set;                            ///< faithful records only (unless keep_unfaithful)
  std::vector<RecordCheck> checks;            ///< every record of a featurized pipeline
  std::vector<std::string> failed_pipelines;  ///< "id: why" for pipelines that could not be featurized
};

/// The features of a dataset's records: one pipeline per `pipeline.id`, one schedule per record
/// that rebuilds as the schedule that was measured, labelled with its measurements.
FeaturizedDataset featurize_dataset(const TrainRequest &request);

/// `hlsched dataset check DATASET...`: per record, whether today's rebuild of its schedule is the
/// schedule measured (dataset/fidelity.h); prints the mismatches and a summary.
class DatasetCheckCommand {
public:
  CLI::App *add_to(CLI::App &dataset);
  int run() const;

private:
  TrainRequest request_;
  bool all_ = false;
};

/// A short report of the metrics, for people.
std::string metrics_line(const PredictionMetrics &m);

}  // namespace hlsched::server
