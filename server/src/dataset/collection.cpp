#include "dataset/collection.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hlsched/engine/schedule_spec.h"
#include "random_pipeline.h"
#include "schedule_json.h"
#include "util/file_text.h"

namespace hlsched::dataset {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void replace_once(std::string &text, const std::string &from, const std::string &to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("random pipeline text changed: no '" + from + "'");
  text.replace(at, from.size(), to);
}

// The statements of C++ text, one per line, without indentation, comments and blank lines: Halide
// re-indents the schedule a plugin prints, and puts its own header around it.
std::string statements(const std::string &code) {
  std::istringstream lines(code);
  std::string line, out;
  while (std::getline(lines, line)) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 2, "//") == 0) continue;
    out += line.substr(start) + "\n";
  }
  return out;
}

std::string sample_options(const std::string &gpu, uint64_t seed, int walk) {
  return "gpu=" + gpu + ",strategy=sample,seed=" + std::to_string(seed) + ",sample=" + std::to_string(walk);
}

// Random pipelines have no GeneratorParams (generator non-empty); examples have "schedule".
server::bench::BenchVariant plugin_variant(const CollectionOptions &options, const std::string &app, const std::string &label,
                                   const fs::path &source, const std::string &generator, const std::string &hlsched_options) {
  const bool random = !generator.empty();
  server::bench::BenchVariant v;
  v.app = app;
  v.label = label;
  v.source = source;
  v.generator = generator;
  if (!random) v.params = {{"schedule", "none"}};  // examples: their manual schedule off
  v.scheduler.plugin = options.plugin;
  v.scheduler.autoscheduler = "Hlsched";
  v.scheduler.machine_params = options.machine_params;
  v.scheduler.environment = {{"HLSCHED_OPTIONS", hlsched_options}};
  v.predict = true;
  return v;
}

// The search's schedule, its candidates under other options and the random walks of one pipeline.
void add_scheduled_variants(const CollectionOptions &options, const std::string &app, const fs::path &source,
                            const std::string &generator, const json &pipeline, CollectionPlan &plan) {
  if (options.beam) {
    const std::string hlsched_options = "gpu=" + options.gpu_profile + ",strategy=beam";
    plan.variants.push_back({plugin_variant(options, app, "beam", source, generator, hlsched_options), pipeline,
                             {{"kind", "beam"}, {"options", hlsched_options}}});
  }
  for (int k = 0; k < options.candidates; k++) {
    const std::string hlsched_options = "gpu=" + options.gpu_profile + ",strategy=beam" +
                                        (options.search_options.empty() ? "" : "," + options.search_options) +
                                        ",candidate=" + std::to_string(k);
    plan.variants.push_back({plugin_variant(options, app, "c" + std::to_string(k), source, generator, hlsched_options),
                             pipeline, {{"kind", "candidate"}, {"options", hlsched_options}, {"candidate", k}}});
  }
  for (int walk = 0; walk < options.samples; walk++) {
    const std::string hlsched_options = sample_options(options.gpu_profile, options.sample_seed, walk);
    plan.variants.push_back(
        {plugin_variant(options, app, "s" + std::to_string(options.sample_seed) + "_" + std::to_string(walk), source,
                        generator, hlsched_options),
         pipeline,
         {{"kind", "sample"}, {"options", hlsched_options}, {"sample", {{"seed", options.sample_seed}, {"walk", walk}}}}});
  }
}

}  // namespace

int stages_for_seed(uint64_t seed, int min_stages, int max_stages) {
  if (min_stages < 1 || max_stages < min_stages) throw std::invalid_argument("bad stage range");
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL;  // splitmix64: the same number on every platform
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return min_stages + int(z % uint64_t(max_stages - min_stages + 1));
}

std::string pack_source(const std::vector<std::pair<uint64_t, int>> &seeds_and_stages) {
  std::string pack = "// Random pipelines for the cost model's dataset, one generator each (rp_<seed>), written by\n"
                     "// `hlsched dataset collect`; each is `hlsched random-pipeline --seed S --stages N` in its own\n"
                     "// namespace.\n";
  for (const auto &[seed, stages] : seeds_and_stages) {
    server::RandomPipelineOptions random;
    random.seed = seed;
    random.stages = stages;
    std::string text = server::random_pipeline_source(random);
    const std::string name = "rp_" + std::to_string(seed);
    replace_once(text, "namespace {\n", "namespace " + name + " {\n");
    replace_once(text, "}  // namespace\n", "}  // namespace " + name + "\n");
    replace_once(text, "HALIDE_REGISTER_GENERATOR(RandomPipeline, random_pipeline)",
                 "HALIDE_REGISTER_GENERATOR(::" + name + "::RandomPipeline, " + name + ")");
    pack += "\n" + text;
  }
  return pack;
}

CollectionPlan plan_collection(const CollectionOptions &options, const fs::path &work_dir) {
  CollectionPlan plan;
  for (const std::string &app : options.examples) {
    const fs::path source = options.examples_dir / app / (app + "_generator.cpp");
    if (!fs::exists(source)) throw std::invalid_argument("no example app '" + app + "' (" + source.string() + ")");
    const json pipeline{{"id", "example:" + app},
                        {"kind", "example"},
                        {"source", "examples/" + app + "/" + app + "_generator.cpp"},
                        {"generator", ""},
                        {"params", json::object()}};
    // The manual schedule first: the runner checks every other variant's outputs against it.
    server::bench::BenchVariant manual;
    manual.app = app;
    manual.label = "manual";
    manual.source = source;
    manual.params = {{"schedule", "manual"}};
    plan.variants.push_back({manual, pipeline, {{"kind", "manual"}, {"options", ""}}});
    add_scheduled_variants(options, app, source, "", pipeline, plan);
  }

  const fs::path pipelines_dir = work_dir / "pipelines";
  if (options.random_pipelines > 0) fs::create_directories(pipelines_dir);
  const int pack_size = std::max(1, options.pack_size);
  for (int first = 0; first < options.random_pipelines; first += pack_size) {
    std::vector<std::pair<uint64_t, int>> pack;
    for (int i = first; i < std::min(options.random_pipelines, first + pack_size); i++) {
      const uint64_t seed = options.first_seed + uint64_t(i);
      pack.emplace_back(seed, stages_for_seed(seed, options.min_stages, options.max_stages));
    }
    const fs::path source = pipelines_dir / ("pack_" + std::to_string(pack.front().first) + ".cpp");
    std::ofstream out(source);
    out << pack_source(pack);
    if (!out.flush()) throw std::runtime_error("cannot write " + source.string());
    plan.pack_sources.push_back(source);
    for (const auto &[seed, stages] : pack) {
      // The writer's version is part of the id: another version writes another pipeline.
      const int version = server::kRandomPipelineWriterVersion;
      const json pipeline{{"id", "random:s" + std::to_string(seed) + ":n" + std::to_string(stages) +
                                     (version > 1 ? ":w" + std::to_string(version) : "")},
                          {"kind", "random"},
                          {"source", ""},
                          {"generator", "random_pipeline"},
                          {"params", json::object()},
                          {"random", {{"seed", seed}, {"stages", stages}, {"writer_version", version}}}};
      // The simple scheduler's schedule first: the runner checks every other variant's outputs
      // against it. Not the beam's: beams of random pipelines 600155 and 600170 computed wrong
      // values, and the search's right candidates were then the ones dropped.
      const std::string app = "r" + std::to_string(seed), generator = "rp_" + std::to_string(seed);
      const std::string simple = "gpu=" + options.gpu_profile + ",strategy=simple";
      plan.variants.push_back({plugin_variant(options, app, "simple", source, generator, simple), pipeline,
                               {{"kind", "simple"}, {"options", simple}}});
      add_scheduled_variants(options, app, source, generator, pipeline, plan);
    }
  }
  return plan;
}

json collection_manifest(const CollectionOptions &options, const CollectionPlan &plan, const std::vector<json> &predictions,
                         const fs::path &variants_dir, const std::string &commit) {
  json variants = json::array();
  for (size_t i = 0; i < plan.variants.size(); i++) {
    const PlannedVariant &p = plan.variants[i];
    json entry{{"function", p.variant.function_name()},
               {"app", p.variant.app},
               {"pipeline", p.pipeline},
               {"schedule", p.schedule},
               {"prediction", i < predictions.size() ? predictions[i] : json()}};
    // The plugin searched again inside GenGen: a search that ran out of time may have chosen
    // differently. Its printed schedule must contain the predicted one, line for line.
    if (entry["prediction"].is_object() && entry["prediction"].contains("schedule")) {
      const std::string applied =
          server::read_file_text(variants_dir / (p.variant.function_name() + ".schedule.h")).value_or("");
      const std::string predicted = emit_schedule_source(
          server::schedule_spec_from_json(entry["prediction"]["schedule"]), EmitContext::PipelineFunction);
      entry["prediction_matches_applied"] =
          !applied.empty() && statements(applied).find(statements(predicted)) != std::string::npos;
    }
    variants.push_back(std::move(entry));
  }
  return {{"format", kCollectionFormat},
          {"name", options.name},
          {"commit", commit},
          {"gpu_profile", options.gpu_profile},
          {"random", {{"pipelines", options.random_pipelines}, {"first_seed", options.first_seed},
                      {"min_stages", options.min_stages}, {"max_stages", options.max_stages}}},
          {"samples", {{"count", options.samples}, {"seed", options.sample_seed}}},
          {"variants", variants}};
}

}  // namespace hlsched::dataset
