// `hlsched schedule --measure K`: the candidates' plan, and the pick from a runner's results (a
// real H200 run of one random pipeline's variants, data/, relabelled as candidates 0..6).
#include <catch2/catch.hpp>


#include "dataset/measure.h"
#include "dataset/json_file.h"

using namespace hlsched::dataset;
using nlohmann::json;

namespace {

json read(const std::string &name) {
  return read_json_file(std::string(HLSCHED_DATASET_TEST_DATA) + "/" + name, "test data");
}

// The small collection's variants (r100001's beam schedule, its walks 0-4, r100014's beam
// schedule, which failed to launch) as --measure candidates 0..6, in that order.
json as_candidates(json collection) {
  int i = 0;
  for (json &v : collection["variants"]) v["schedule"] = {{"kind", "candidate"}, {"options", ""}, {"candidate", i++}};
  return collection;
}

json &result_of(json &results, const std::string &function) {
  for (json &v : results["variants"])
    if (v["function"] == function) return v;
  FAIL("no variant " << function);
  throw;
}

}  // namespace

TEST_CASE("the fastest measured candidate with matching outputs is picked", "[dataset][measure]") {
  json results = read("results_small.json");
  json collection = as_candidates(read("collection_small.json"));

  MeasurePick pick = pick_fastest(results, collection);
  REQUIRE(pick.candidates.size() == 7);
  REQUIRE(pick.fastest == 0);  // r100001__beam, 0.0269 ms: the fastest of the run
  CHECK(pick.candidates[0].measured_ms == Approx(0.026912));
  CHECK(pick.candidates[0].predicted_ms == Approx(0.017815).epsilon(1e-3));
  CHECK(pick.candidates[6].status.find("cuLaunchKernel failed") != std::string::npos);
  CHECK(pick.candidates[6].measured_ms == 0);

  // Its outputs differ from the reference: the next fastest, walk 3 (0.0514 ms), wins.
  result_of(results, "r100001__beam")["check"]["ok"] = false;
  pick = pick_fastest(results, collection);
  CHECK(pick.candidates[0].status == "output differs");
  REQUIRE(pick.fastest == 4);
  CHECK(pick.candidates[4].function == "r100001__s1_3");

  // What the plugin applied is not the predicted schedule: measured, never picked; then walk 0.
  collection["variants"][4]["prediction_matches_applied"] = false;
  pick = pick_fastest(results, collection);
  CHECK(pick.candidates[4].status == "applied another schedule");
  REQUIRE(pick.fastest == 1);

  // A candidate the run never reached (time budget) is "not measured".
  json &variants = results["variants"];
  for (auto it = variants.begin(); it != variants.end(); ++it)
    if ((*it)["function"] == "r100001__s1_0") {
      variants.erase(it);
      break;
    }
  pick = pick_fastest(results, collection);
  CHECK(pick.candidates[1].status == "not measured");
  REQUIRE(pick.fastest == 5);  // walk 4, 0.0570 ms, is faster than walks 1 (0.0587) and 2 (0.0603)

  const std::string report = measure_report(pick);
  CHECK_THAT(report, Catch::Contains("fastest measured: candidate 5, 0.05704 ms"));
  CHECK_THAT(report, Catch::Contains(pick.candidates[5].schedule_code));
  CHECK_THAT(report, Catch::Contains("not measured"));
}

TEST_CASE("no candidate to pick when none ran with matching outputs", "[dataset][measure]") {
  json results = read("results_small.json");
  for (json &v : results["variants"])
    if (v["status"] == "ok") v["check"]["ok"] = false;
  const MeasurePick pick = pick_fastest(results, as_candidates(read("collection_small.json")));
  CHECK(pick.fastest == -1);
  CHECK_THAT(measure_report(pick), Catch::Contains("nothing to pick"));
}

TEST_CASE("the pick rejects files that are not a --measure run", "[dataset][measure]") {
  const json results = read("results_small.json");
  CHECK_THROWS_WITH(pick_fastest(results, read("collection_small.json")), Catch::Contains("no --measure candidates"));
  CHECK_THROWS_WITH(pick_fastest(json::object(), as_candidates(read("collection_small.json"))),
                    Catch::Contains("results.json"));
  CHECK_THROWS_WITH(pick_fastest(results, json::object()), Catch::Contains("collection manifest"));
}

TEST_CASE("a --measure plan has one variant per candidate, the first the reference", "[dataset][measure]") {
  hlsched::server::AnalysisRequest analysis;
  analysis.source = std::string(HLSCHED_SOURCE_DIR) + "/examples/blur/blur_generator.cpp";
  analysis.search.beam_size = 16;
  analysis.search.freeze = false;
  CollectionOptions options;
  options.examples_dir = std::string(HLSCHED_SOURCE_DIR) + "/examples";
  options.plugin = "/plugin.so";
  const CollectionPlan plan = plan_measure(analysis, options, {"/m/c0.decisions", "/m/c1.decisions", "/m/c2.decisions"});
  REQUIRE(plan.variants.size() == 3);
  for (int i = 0; i < 3; i++) {
    const PlannedVariant &p = plan.variants[size_t(i)];
    CHECK(p.variant.function_name() == "blur__c" + std::to_string(i));
    CHECK(p.variant.predict);
    CHECK(p.variant.scheduler.plugin == "/plugin.so");
    const std::string env = p.variant.scheduler.environment.at("HLSCHED_OPTIONS");
    CHECK_THAT(env, Catch::Contains("strategy=beam,candidate=" + std::to_string(i) + ","));
    CHECK_THAT(env, Catch::Contains("beam-size=16") && Catch::Contains("no-freeze"));
    CHECK_THAT(env, Catch::EndsWith(",decisions=/m/c" + std::to_string(i) + ".decisions"));
    CHECK(p.schedule["kind"] == "candidate");
    CHECK(p.schedule["candidate"] == i);
    CHECK(p.pipeline["id"] == "example:blur");
    CHECK(p.pipeline["kind"] == "example");
  }

  analysis.source = "/elsewhere/my-filter.cpp";
  analysis.generator = "edges";
  const CollectionPlan other = plan_measure(analysis, options, {"/m/c0.decisions"});
  CHECK(other.variants[0].variant.function_name() == "my_filter_edges__c0");
  CHECK(other.variants[0].pipeline["kind"] == "generator");
  CHECK(other.variants[0].pipeline["id"] == "generator:/elsewhere/my-filter.cpp:edges");
}
