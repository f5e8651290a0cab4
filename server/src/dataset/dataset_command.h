// `hlsched dataset`: the cost model's training data (docs/COST_MODEL.md, "Dataset format").
//
//   hlsched dataset collect --random 150 --samples 5 --example blur ... --out .bundle-data
//       plans the variants (collection.h), builds their benchmark bundle and writes the
//       collection manifest (<out>/collection.json) beside it
//   hlsched dataset ingest RESULTS.json --collection <out>/collection.json -o data.jsonl.zst
//       joins a device run's results with the manifest into records (appends with --append)
//   hlsched dataset summary data.jsonl.zst
//       pipelines, schedules, kernel samples and the measured range
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/collection.h"
#include "dataset/dataset_record.h"

namespace hlsched::dataset {

/// What `collect` does, as a function `hlsched autotune` reuses. Returns the process exit code.
struct CollectRequest {
  CollectionOptions collection;
  std::string out_dir = ".bundle-data";
  int jobs = 2;
  int variant_timeout_s = 180;  ///< per GenGen run: a pathological random schedule is dropped
  std::string cache_dir;
  bool resume = false;  ///< keep variants an earlier, interrupted build of the same --out compiled
};
int collect(const CollectRequest &request);

/// The examples folder and plugin of this source tree and build where `options` leaves them empty.
CollectionOptions with_this_builds_paths(CollectionOptions options);

/// collect()'s second half, for any plan (`hlsched schedule --measure` plans its own): builds
/// the plan's bundle into request.out_dir and writes the collection manifest beside it
/// (request.collection is not read: `options` is). Returns the process exit code.
int build_collection_bundle(const CollectionOptions &options, const CollectionPlan &plan, const CollectRequest &request);

/// The options `dataset collect` and `autotune` share: what to collect (collection, bundle
/// folder, parallel compilations). --all-examples sets `all_examples`; then call
/// finish_collect_request().
void add_collect_options(CLI::App &cmd, CollectRequest &request, bool &all_examples);

/// The request as given on the command line, completed: every example app when `all_examples`;
/// throws std::invalid_argument on a stage range that is empty.
CollectRequest finish_collect_request(CollectRequest request, bool all_examples);

struct IngestRequest {
  std::string results_path, collection_path, output_path;
  bool append = false;
  std::string driver;
  bool keep_mismatched = false;
};
int ingest(const IngestRequest &request);

/// A few lines about a dataset: records, pipelines, schedules by kind, kernel samples, range.
std::string dataset_summary(const std::vector<Record> &records);

class DatasetCommand {
public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

private:
  CLI::App *collect_ = nullptr, *ingest_ = nullptr, *summary_ = nullptr;
  CollectRequest collect_request_;
  bool all_examples_ = false, no_beam_ = false;
  IngestRequest ingest_request_;
  std::string summary_path_;
};

}  // namespace hlsched::dataset
