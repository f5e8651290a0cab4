#include "dataset/dataset_command.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "bench/bench_command.h"
#include "bench/bundle_builder.h"
#include "dataset/ingest.h"
#include "dataset/json_file.h"

namespace hlsched::dataset {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

}  // namespace

CollectionOptions with_this_builds_paths(CollectionOptions options) {
  if (options.examples_dir.empty()) options.examples_dir = server::bench::this_source_trees_examples();
  if (options.plugin.empty()) options.plugin = server::bench::this_builds_plugin();
  return options;
}

int collect(const CollectRequest &request) {
  const CollectionOptions options = with_this_builds_paths(request.collection);
  const fs::path out = request.out_dir;
  const fs::path work = out.string() + ".work";
  fs::create_directories(work);
  const CollectionPlan plan = plan_collection(options, work);
  if (plan.variants.empty()) throw std::invalid_argument("nothing to collect: give --random N or --example APP");
  if (const int status = build_collection_bundle(options, plan, request); status != 0) return status;
  std::cout << "run it on the GPU machine (results into $OUT):\n  bash " << (out / "run.sh").string()
            << " --time-budget 480 --app-timeout 60 --warmup 1 --min-reps 5 --seconds-per-variant 0.05 --kernel-reps 1\n"
            << "then: hlsched dataset ingest RESULTS.json --collection " << (out / "collection.json").string()
            << " -o DATASET.jsonl.zst --append\n";
  return 0;
}

int build_collection_bundle(const CollectionOptions &options, const CollectionPlan &plan, const CollectRequest &request) {
  const fs::path out = request.out_dir;
  const fs::path work = out.string() + ".work";
  fs::create_directories(work);
  server::bench::BundleOptions bundle;
  for (const auto &p : plan.variants) bundle.variants.push_back(p.variant);
  server::bench::use_this_builds_tools(bundle);
  bundle.toolchain.target = "x86-64-linux-sse41-avx-avx2-fma-cuda-cuda_capability_86";
  bundle.toolchain.time_limit = std::chrono::seconds(request.variant_timeout_s);
  bundle.toolchain.reuse_previous = request.resume;
  bundle.output_dir = out;
  bundle.work_dir = work;
  bundle.jobs = request.jobs;
  bundle.cache_dir = request.cache_dir;
  bundle.gpu_profile = options.gpu_profile;
  bundle.input_ranges["camera_pipe"]["input"] = {0, 1023};  // 10-bit raw data
  std::vector<json> predictions(plan.variants.size());
  auto mutex = std::make_shared<std::mutex>();
  bundle.on_prediction = [&predictions, mutex](size_t i, const json &result) {
    std::lock_guard<std::mutex> lock(*mutex);
    predictions[i] = result;
    predictions[i].erase("search");
    predictions[i].erase("funcs");
  };
  bundle.progress = [mutex](const std::string &line) {
    std::lock_guard<std::mutex> lock(*mutex);
    std::cerr << "collect: " << line << std::endl;
  };
  std::cerr << "collect: " << plan.variants.size() << " variants, " << plan.pack_sources.size()
            << " random-pipeline sources" << std::endl;

  const server::bench::BundleSummary summary = server::bench::build_bundle(bundle);
  for (const auto &w : summary.warnings) std::cerr << "hlsched: warning: " << w << "\n";
  if (!summary.ok) {
    std::cerr << "hlsched: error: " << summary.error << "\n";
    return 1;
  }
  const json manifest_of_bundle = read_json_file((work / "manifest.json").string(), "bundle manifest");
  const json collection = collection_manifest(options, plan, predictions, work / "variants",
                                              manifest_of_bundle.value("hlsched_commit", ""));
  std::ofstream(out / "collection.json") << collection.dump(1) << "\n";
  std::cout << "bundle: " << summary.archive.string() << " (" << (summary.archive_bytes >> 20) << " MiB), "
            << summary.compiled << " variants compiled, " << summary.failed << " failed, in " << int(summary.seconds)
            << " s\ncollection manifest: " << (out / "collection.json").string() << "\n";
  return 0;
}

int ingest(const IngestRequest &request) {
  const json results = read_json_file(request.results_path, "results");
  const json collection = read_json_file(request.collection_path, "collection manifest");
  IngestOptions options;
  options.driver = request.driver;
  options.keep_mismatched = request.keep_mismatched;
  IngestSummary summary;
  std::vector<Record> records = ingest_results(results, collection, options, summary);
  std::vector<Record> all;
  if (request.append && fs::exists(request.output_path)) all = load_dataset(request.output_path);
  std::set<std::string> ids;
  for (const Record &r : all) ids.insert(r.id);
  int duplicates = 0;
  for (Record &r : records) {
    if (!ids.insert(r.id).second) {
      duplicates++;  // ingesting the same run twice adds nothing
      continue;
    }
    all.push_back(std::move(r));
  }
  save_dataset(request.output_path, all);
  std::cout << "ingested " << summary.records - duplicates << " records (" << summary.not_measured
            << " variants not measured, " << summary.mismatched << " with outputs differing from the reference"
            << (request.keep_mismatched ? " kept" : " dropped") << ", " << summary.prediction_differs
            << " measured without a prediction: the plugin applied another schedule, " << duplicates
            << " already there) into " << request.output_path << "\n"
            << dataset_summary(all);
  return summary.records > 0 ? 0 : 1;
}

std::string dataset_summary(const std::vector<Record> &records) {
  std::set<std::string> pipelines, random_pipelines, examples, gpus;
  std::map<std::string, int> schedules;
  int64_t kernels = 0, predicted = 0;
  double lo = 0, hi = 0;
  for (const Record &r : records) {
    pipelines.insert(r.pipeline.id);
    (r.pipeline.kind == "random" ? random_pipelines : examples).insert(r.pipeline.id);
    gpus.insert(r.provenance.gpu);
    schedules[r.schedule.kind]++;
    kernels += int64_t(r.measured.kernels.size());
    predicted += r.predicted.has_value();
    const double ms = r.measured.pipeline_ms;
    lo = lo == 0 ? ms : std::min(lo, ms);
    hi = std::max(hi, ms);
  }
  std::ostringstream out;
  out << records.size() << " records (" << predicted << " with the hand model's prediction) over " << pipelines.size()
      << " pipelines (" << random_pipelines.size() << " random, " << examples.size() << " examples); schedules:";
  for (const auto &[kind, n] : schedules) out << " " << kind << " " << n;
  out << "; " << kernels << " kernel samples (CUPTI); measured " << format_ms(lo) << " to " << format_ms(hi) << "; GPUs:";
  for (const auto &g : gpus) out << " " << g;
  out << "\n";
  return out.str();
}

void add_collect_options(CLI::App &cmd, CollectRequest &request, bool &all_examples) {
  CollectionOptions &c = request.collection;
  cmd.add_option("--name", c.name, "Collection name (record ids and provenance; make it unique per run)");
  cmd.add_option("--random", c.random_pipelines, "Random pipelines (hlsched random-pipeline)");
  cmd.add_option("--first-seed", c.first_seed, "Their seeds: first-seed, first-seed + 1, ...");
  cmd.add_option("--min-stages", c.min_stages, "Fewest stages of a random pipeline")->check(CLI::Range(1, 500));
  cmd.add_option("--max-stages", c.max_stages, "Most stages of a random pipeline")->check(CLI::Range(1, 500));
  cmd.add_option("--samples", c.samples, "Random walks (strategy=sample) per pipeline")->check(CLI::NonNegativeNumber);
  cmd.add_option("--sample-seed", c.sample_seed, "Seed of the random walks");
  cmd.add_option("--candidates", c.candidates,
                 "The beam search's best K distinct schedules (plugin candidate=0..K-1) per pipeline")
      ->check(CLI::Range(0, 64));
  cmd.add_option("--search-options", c.search_options,
                 "HLSCHED_OPTIONS of the candidates' search, e.g. model=learned,weights=W.weights");
  cmd.add_option("--example", c.examples, "Example app (repeatable)");
  cmd.add_flag("--all-examples", all_examples, "Every example app");
  cmd.add_option("--gpu", c.gpu_profile, "hlsched GPU profile to schedule and predict with");
  cmd.add_option("--plugin", c.plugin, "libautoschedule_hlsched.so to schedule with (default: this build's)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--out", request.out_dir, "Bundle folder (collection.json goes there too)");
  cmd.add_option("--jobs", request.jobs, "Parallel compilations")->check(CLI::PositiveNumber);
}

CollectRequest finish_collect_request(CollectRequest request, bool all_examples) {
  if (all_examples)
    for (const auto &app : server::bench::example_apps(server::bench::this_source_trees_examples()))
      request.collection.examples.push_back(app);
  if (request.collection.max_stages < request.collection.min_stages)
    throw std::invalid_argument("--max-stages is below --min-stages");
  return request;
}

CLI::App *DatasetCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("dataset", "The cost model's training data: collect, ingest, summary");
  cmd->require_subcommand(1);

  collect_ = cmd->add_subcommand("collect", "Build a bundle of random pipelines and examples under sampled and searched schedules");
  add_collect_options(*collect_, collect_request_, all_examples_);
  collect_->add_flag("--no-beam", no_beam_, "Leave out the beam search's schedule");
  collect_->add_option("--pack-size", collect_request_.collection.pack_size, "Random pipelines per generator source")
      ->check(CLI::PositiveNumber);
  collect_->add_option("--variant-timeout", collect_request_.variant_timeout_s, "Seconds one variant may take to compile");
  collect_->add_option("--cache-dir", collect_request_.cache_dir, "Generator build cache");
  collect_->add_flag("--resume", collect_request_.resume,
                     "Keep the variants an interrupted build of the same --out compiled (same GenGen command)");

  ingest_ = cmd->add_subcommand("ingest", "Turn a device run's results into dataset records");
  ingest_->add_option("results", ingest_request_.results_path, "The runner's results.json")->required()->check(CLI::ExistingFile);
  ingest_->add_option("--collection,--manifest", ingest_request_.collection_path, "collection.json of the bundle")
      ->required()->check(CLI::ExistingFile);
  ingest_->add_option("--output,-o", ingest_request_.output_path, "The dataset (.jsonl.zst)")->required();
  ingest_->add_flag("--append", ingest_request_.append, "Add to the dataset instead of replacing it");
  ingest_->add_option("--driver", ingest_request_.driver, "NVIDIA driver version for the provenance");
  ingest_->add_flag("--keep-mismatched", ingest_request_.keep_mismatched, "Keep variants whose outputs differed");

  summary_ = cmd->add_subcommand("summary", "Count a dataset's pipelines, schedules and kernel samples");
  summary_->add_option("dataset", summary_path_, "The dataset (.jsonl.zst)")->required()->check(CLI::ExistingFile);
  return cmd;
}

int DatasetCommand::run() const {
  if (*collect_) {
    CollectRequest request = finish_collect_request(collect_request_, all_examples_);
    request.collection.beam = !no_beam_;
    return collect(request);
  }
  if (*ingest_) return ingest(ingest_request_);
  if (*summary_) {
    std::cout << dataset_summary(load_dataset(summary_path_));
    return 0;
  }
  return 2;
}

}  // namespace hlsched::dataset
