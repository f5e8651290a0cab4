// Planning a collection: which variants, how random pipelines are packed into generator sources.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <set>

#include "dataset/collection.h"
#include "random_pipeline.h"

namespace fs = std::filesystem;
using namespace hlsched::dataset;

TEST_CASE("stage counts are spread over the range and fixed per seed", "[dataset][collection]") {
  std::set<int> seen;
  for (uint64_t seed = 100; seed < 400; seed++) {
    const int stages = stages_for_seed(seed, 2, 12);
    CHECK(stages >= 2);
    CHECK(stages <= 12);
    CHECK(stages == stages_for_seed(seed, 2, 12));
    seen.insert(stages);
  }
  CHECK(seen.size() == 11);
  CHECK_THROWS(stages_for_seed(1, 5, 4));
}

TEST_CASE("a pack holds each random pipeline under its own generator name", "[dataset][collection]") {
  const std::string pack = pack_source({{11, 3}, {12, 5}});
  for (const std::string name : {"rp_11", "rp_12"}) {
    CHECK_THAT(pack, Catch::Contains("namespace " + name + " {"));
    CHECK_THAT(pack, Catch::Contains("HALIDE_REGISTER_GENERATOR(::" + name + "::RandomPipeline, " + name + ")"));
  }
  CHECK_THAT(pack, !Catch::Contains("HALIDE_REGISTER_GENERATOR(RandomPipeline, random_pipeline)"));
  // Otherwise the pipeline is exactly `hlsched random-pipeline`'s: its body appears unchanged.
  hlsched::server::RandomPipelineOptions options;
  options.seed = 12;
  options.stages = 5;
  const std::string single = hlsched::server::random_pipeline_source(options);
  const size_t body = single.find("class RandomPipeline");
  const size_t end = single.find("}  // namespace");
  REQUIRE(body != std::string::npos);
  CHECK_THAT(pack, Catch::Contains(single.substr(body, end - body)));
}

TEST_CASE("a collection plans reference, beam, candidate and sampled variants", "[dataset][collection]") {
  const fs::path work = fs::temp_directory_path() / ("hlsched-collection-test-" + std::to_string(::getpid()));
  CollectionOptions options;
  options.random_pipelines = 5;
  options.first_seed = 500;
  options.samples = 3;
  options.sample_seed = 9;
  options.pack_size = 2;
  options.examples = {"blur"};
  options.examples_dir = HLSCHED_SOURCE_DIR "/examples";
  options.plugin = "/nowhere/libautoschedule_hlsched.so";
  options.candidates = 2;
  options.search_options = "model=learned";
  const CollectionPlan plan = plan_collection(options, work);

  // blur: manual (the reference, first), beam, 2 candidates, 3 walks; 5 random pipelines: the
  // simple scheduler's (their reference, first), beam, 2 candidates, 3 walks.
  REQUIRE(plan.variants.size() == 7 + 5 * 7);
  CHECK(plan.variants[0].variant.function_name() == "blur__manual");
  CHECK(plan.variants[0].schedule["kind"] == "manual");
  CHECK_FALSE(plan.variants[0].variant.scheduler.uses_plugin());
  CHECK(plan.variants[1].schedule["kind"] == "beam");
  CHECK(plan.variants[1].variant.predict);
  const auto &candidate = plan.variants[3];
  CHECK(candidate.variant.function_name() == "blur__c1");
  CHECK(candidate.variant.scheduler.environment.at("HLSCHED_OPTIONS") == "gpu=h200,strategy=beam,model=learned,candidate=1");
  CHECK(candidate.schedule["kind"] == "candidate");
  CHECK(candidate.schedule["candidate"] == 1);
  const auto &walk = plan.variants[6];
  CHECK(walk.variant.function_name() == "blur__s9_2");
  CHECK(walk.variant.scheduler.environment.at("HLSCHED_OPTIONS") == "gpu=h200,strategy=sample,seed=9,sample=2");
  CHECK(walk.schedule["sample"]["walk"] == 2);

  CHECK(plan.pack_sources.size() == 3);  // 2 + 2 + 1
  for (const auto &source : plan.pack_sources) CHECK(fs::exists(source));
  const auto &random = plan.variants[7];
  CHECK(random.variant.app == "r500");
  CHECK(random.variant.function_name() == "r500__simple");
  CHECK(random.schedule["kind"] == "simple");
  CHECK(random.variant.scheduler.environment.at("HLSCHED_OPTIONS") == "gpu=h200,strategy=simple");
  CHECK(random.variant.generator == "rp_500");
  CHECK(random.pipeline["random"]["seed"] == 500);
  CHECK(random.pipeline["id"] == "random:s500:n" + std::to_string(stages_for_seed(500, 2, 12)) + ":w2");
  CHECK(random.pipeline["random"]["writer_version"] == hlsched::server::kRandomPipelineWriterVersion);
  CHECK(plan.variants.back().variant.source == plan.pack_sources.back());

  options.examples = {"no_such_app"};
  CHECK_THROWS_WITH(plan_collection(options, work), Catch::Contains("no_such_app"));
  fs::remove_all(work);
}
