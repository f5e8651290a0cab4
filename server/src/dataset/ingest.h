// Turning a device run into dataset records: the runner's results.json (what was measured)
// joined with the collection manifest (what each variant is, and what the hand model predicted).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dataset/collection.h"
#include "dataset/dataset_record.h"

namespace hlsched::dataset {

struct IngestOptions {
  std::string driver;       ///< the NVIDIA driver version, when known (the runner records the API version)
  bool keep_mismatched = false;  ///< keep variants whose outputs differed from the reference
};

struct IngestSummary {
  int records = 0;
  int not_measured = 0;     ///< failed, skipped or not compiled
  int mismatched = 0;       ///< outputs differed (dropped unless keep_mismatched)
  int not_in_collection = 0;
  int prediction_differs = 0;  ///< the plugin applied another schedule than the predicted one: no prediction kept
};

/// One record per variant that ran. Throws std::invalid_argument when either file is not what
/// it should be.
std::vector<Record> ingest_results(const nlohmann::json &results, const nlohmann::json &collection,
                                   const IngestOptions &options, IngestSummary &summary);

}  // namespace hlsched::dataset
