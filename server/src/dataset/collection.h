// A collection: the variants one device run measures for the dataset, and the record of what
// each one is (the "collection manifest", which `hlsched dataset ingest` joins with the runner's
// results).
//
// Per random pipeline (`hlsched random-pipeline`, stages drawn per seed) and per example app:
// the beam search's schedule, candidates of the search under other options and random walks of
// the search's options (the plugin's strategy=sample); examples also get their manual schedule,
// random pipelines the simple scheduler's, the reference their outputs are checked against. Random pipelines are written into "packs": one generator source holding many
// pipelines, each registered under its own name, so that g++ builds one shared object per pack
// rather than one per pipeline (the generator builds dominate otherwise).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_variant.h"

namespace hlsched::dataset {

inline constexpr const char *kCollectionFormat = "hlsched-collection-v1";

struct CollectionOptions {
  std::string name = "collection";  ///< names the records' ids and provenance
  int random_pipelines = 0;
  uint64_t first_seed = 100000;     ///< random pipelines use seeds first_seed, first_seed + 1, ...
  int min_stages = 2, max_stages = 12;
  int samples = 5;                  ///< random walks per pipeline (examples and random ones)
  uint64_t sample_seed = 1;         ///< walks 0 .. samples-1 of this seed
  bool beam = true;                 ///< also the beam search's schedule
  /// The beam search's best `candidates` distinct schedules (candidate=0..K-1) under
  /// `search_options` (e.g. "model=learned,weights=W"): what a model picks is what it most needs
  /// to see measured (a model is never corrected on schedules it rates badly and so never picks).
  int candidates = 0;
  std::string search_options;
  std::vector<std::string> examples;  ///< example apps (each also gets its manual schedule)
  int pack_size = 25;               ///< random pipelines per generator source
  std::string gpu_profile = "h200";
  std::filesystem::path examples_dir;
  std::filesystem::path plugin;     ///< libautoschedule_hlsched.so
  std::string machine_params = "132,50000000,40";
};

/// One variant to build, with what the dataset records about its pipeline and schedule.
struct PlannedVariant {
  server::bench::BenchVariant variant;
  nlohmann::json pipeline;  ///< a dataset PipelineRef as JSON (dataset_record.h)
  nlohmann::json schedule;  ///< {"kind", "options", "sample": {"seed", "walk"}}
};

struct CollectionPlan {
  std::vector<PlannedVariant> variants;
  std::vector<std::filesystem::path> pack_sources;
};

/// The number of stages random pipeline `seed` gets: spread evenly over [min, max] by a hash of
/// the seed, so any range of seeds mixes small and large pipelines.
int stages_for_seed(uint64_t seed, int min_stages, int max_stages);

/// One generator source holding the random pipelines of these seeds, pipeline `seed` registered
/// as "rp_<seed>" (namespace rp_<seed>); otherwise exactly `hlsched random-pipeline`'s text.
std::string pack_source(const std::vector<std::pair<uint64_t, int>> &seeds_and_stages);

/// Plans the variants; writes the pack sources into `work_dir`/pipelines.
CollectionPlan plan_collection(const CollectionOptions &options, const std::filesystem::path &work_dir);

/// The collection manifest: the plan, each variant's whole prediction result (by index; null
/// where there is none) and whether the schedule the plugin applied (`variants_dir`/
/// <function>.schedule.h) is the one predicted.
nlohmann::json collection_manifest(const CollectionOptions &options, const CollectionPlan &plan,
                                   const std::vector<nlohmann::json> &predictions,
                                   const std::filesystem::path &variants_dir, const std::string &commit);

}  // namespace hlsched::dataset
