// `hlsched autotune`: the loop that keeps the learned cost model trained for a GPU
// (docs/COST_MODEL.md, "Training weights for your GPU").
//
//   hlsched autotune [--random 100 --samples 4 ...] --dataset D.jsonl.zst --weights-out W
//       1. sample: plans random pipelines (and examples) under sampled and searched schedules
//       2. bundle: AOT-compiles them into a benchmark bundle (hlsched dataset collect)
//       3. run: on this machine's GPU when it has one (the CUDA driver reports one and the
//          bundle's runner is here); otherwise prints the command to run the bundle elsewhere and stops
//       4. ingest: the results become dataset records, appended to D
//       5. retrain: `hlsched train --data D --out W`, when this build has the trainer
//   hlsched autotune --ingest RESULTS.json --collection BUNDLE/collection.json --dataset D ...
//       steps 4 and 5 for a bundle that ran elsewhere
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "dataset/dataset_command.h"

namespace hlsched::dataset {

struct AutotuneRequest {
  CollectRequest collect;
  std::string dataset = "engine/training/data/dataset.jsonl.zst";
  std::string weights_out;        ///< empty: ingest only, no retraining
  std::string ingest_results;     ///< given: skip steps 1-3
  std::string collection_path;    ///< with ingest_results (default: <bundle>/collection.json)
  std::string driver;
  double run_budget_s = 600;      ///< the local run's time budget
  bool force_no_gpu = false;      ///< behave as if there were no GPU (tests, dry runs)
};

/// The runner options the loop measures with (also printed for remote runs).
std::string runner_options(double time_budget_s);

/// True when a GPU the runner can use is present: the CUDA driver reports one (local_gpu.h).
bool local_gpu_present();

int autotune(const AutotuneRequest &request);

class AutotuneCommand {
public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

private:
  AutotuneRequest request_;
  bool all_examples_ = false;
};

}  // namespace hlsched::dataset
