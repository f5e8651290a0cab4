// Ingesting a real H200 run (a few variants of the first collection, data/): what the records say.
#include <catch2/catch.hpp>


#include "dataset/ingest.h"
#include "dataset/json_file.h"

using namespace hlsched::dataset;
using nlohmann::json;

namespace {

json read(const std::string &name) {
  return read_json_file(std::string(HLSCHED_DATASET_TEST_DATA) + "/" + name, "test data");
}

}  // namespace

TEST_CASE("ingest joins the runner's results with the collection manifest", "[dataset][ingest]") {
  const json results = read("results_small.json"), collection = read("collection_small.json");
  IngestOptions options;
  options.driver = "580.159.04";
  IngestSummary summary;
  const std::vector<Record> records = ingest_results(results, collection, options, summary);
  CHECK(summary.records == 6);
  CHECK(summary.not_measured == 1);  // r100014__beam: cuLaunchKernel failed on the GPU
  REQUIRE(records.size() == 6);
  for (const Record &r : records) {
    CHECK(r.provenance.gpu == "NVIDIA H200");
    CHECK(r.provenance.driver == "580.159.04");
    CHECK_FALSE(r.provenance.commit.empty());
    CHECK(r.pipeline.id == "random:s100001:n" + std::to_string(r.pipeline.random_stages));
    CHECK(r.pipeline.random_seed == 100001);
    REQUIRE(r.predicted.has_value());
    CHECK(r.predicted->pipeline_ms > 0);
    CHECK_FALSE(r.predicted->stages.at(0).terms_ms.empty());
    CHECK(r.schedule.decisions.rfind("hlsched-warm-start-v1", 0) == 0);
    CHECK_FALSE(r.schedule.code.empty());
    CHECK(r.measured.pipeline_ms > 0);
    CHECK(r.measured.output_ok);
    CHECK_FALSE(r.measured.kernels.empty());
    // Every measured kernel is attributed to a Func the prediction knows.
    for (const auto &k : r.measured.kernels) CHECK_FALSE(k.func.empty());
  }
  CHECK(records[0].schedule.kind == "beam");
  CHECK(records[3].schedule.kind == "sample");
  CHECK(records[3].schedule.sample_walk == 2);
  CHECK(records[3].id == "h200-2026-12-01-c1/r100001__s1_2");

  // Without --driver the runner's CUDA driver API version stands in.
  IngestSummary again;
  CHECK(ingest_results(results, collection, IngestOptions{}, again)[0].provenance.driver.rfind("CUDA driver API", 0) == 0);
}

TEST_CASE("ingest rejects files of the wrong kind", "[dataset][ingest]") {
  IngestSummary summary;
  CHECK_THROWS_WITH(ingest_results(json::object(), read("collection_small.json"), {}, summary),
                    Catch::Contains("results.json"));
  CHECK_THROWS_WITH(ingest_results(read("results_small.json"), json::object(), {}, summary),
                    Catch::Contains("collection manifest"));
}
