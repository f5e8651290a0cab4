#include "dataset/measure.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "bench/bench_command.h"
#include "dataset/autotune_command.h"
#include "dataset/local_gpu.h"
#include "dataset/json_file.h"

namespace hlsched::dataset {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The app name of a generator source: a C identifier (function names are <app>__<label>), e.g.
// examples/blur/blur_generator.cpp -> "blur", my-filters/edge.cpp -> "edge".
std::string app_name(const fs::path &source, const std::string &generator) {
  std::string stem = source.stem().string();
  const std::string suffix = "_generator";
  if (stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0)
    stem.resize(stem.size() - suffix.size());
  if (!generator.empty()) stem += "_" + generator;
  for (char &c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  if (stem.empty() || std::isdigit(static_cast<unsigned char>(stem[0]))) stem = "g" + stem;
  return stem;
}

// "example" when the source is examples/<app>/<app>_generator.cpp of this tree, else "generator".
json pipeline_ref(const server::AnalysisRequest &analysis, const CollectionOptions &options) {
  const fs::path source = fs::absolute(analysis.source).lexically_normal();
  const fs::path examples = fs::absolute(options.examples_dir).lexically_normal();
  const std::string app = source.parent_path().filename().string();
  const bool example = source.parent_path().parent_path() == examples && source.filename() == app + "_generator.cpp";
  json params = json::object();
  for (const auto &[k, v] : analysis.params) params[k] = v;
  if (example)
    return {{"id", "example:" + app}, {"kind", "example"}, {"source", "examples/" + app + "/" + app + "_generator.cpp"},
            {"generator", analysis.generator}, {"params", params}};
  // Absolute: `hlsched train` finds the source again from wherever it runs.
  return {{"id", "generator:" + source.string() + (analysis.generator.empty() ? "" : ":" + analysis.generator)},
          {"kind", "generator"},
          {"source", source.string()},
          {"generator", analysis.generator},
          {"params", params}};
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

// Why a variant of the runner's results is not a usable measurement ("" when it is).
std::string failure_of(const json &variant) {
  const std::string status = variant.value("status", "");
  if (status != "ok") {
    const std::string error = variant.value("error", "");
    return error.empty() ? (status.empty() ? std::string("failed") : status) : status + ": " + error;
  }
  if (!variant.value("check", json::object()).value("ok", false)) return "output differs";
  return "";
}

// The run, the pick and the records, once the runner's results exist.
int pick_and_record(const MeasureRequest &request, const std::string &results_path, const std::string &collection_path) {
  const json results = read_json_file(results_path, "results");
  const json collection = read_json_file(collection_path, "collection manifest");
  const MeasurePick pick = pick_fastest(results, collection);
  std::cout << measure_report(pick);
  IngestRequest ingest_request;
  ingest_request.results_path = results_path;
  ingest_request.collection_path = collection_path;
  ingest_request.output_path = request.dataset;
  ingest_request.append = true;
  ingest_request.driver = request.driver;
  if (const fs::path parent = fs::path(request.dataset).parent_path(); !parent.empty()) fs::create_directories(parent);
  std::cout << "\n";
  ingest(ingest_request);  // prints what it added; a run with nothing measured adds nothing
  return pick.fastest >= 0 ? 0 : 1;
}

}  // namespace

std::string candidate_plugin_options(const AutoschedulerOptions &search, const std::string &gpu_profile, int candidate) {
  std::string text = "gpu=" + gpu_profile + ",strategy=beam,candidate=" + std::to_string(candidate) +
                     ",beam-size=" + std::to_string(search.beam_size) + ",passes=" + std::to_string(search.passes) +
                     ",seed=" + std::to_string(search.seed) + ",work-budget=" + number_text(search.work_budget) +
                     ",time-budget=" + number_text(search.time_budget_s) +
                     ",model=" + search.model;
  if (!search.weights.empty()) text += ",weights=" + fs::absolute(search.weights).string();
  if (!search.freeze) text += ",no-freeze";
  if (!search.sampling) text += ",no-sampling";
  if (!search.polish) text += ",no-polish";
  return text;
}

CollectionPlan plan_measure(const server::AnalysisRequest &analysis, const CollectionOptions &options,
                            const std::vector<std::string> &decisions_files) {
  CollectionPlan plan;
  const json pipeline = pipeline_ref(analysis, options);
  const std::string app = app_name(analysis.source, analysis.generator);
  for (size_t i = 0; i < decisions_files.size(); i++) {
    const std::string hlsched_options = candidate_plugin_options(analysis.search, options.gpu_profile, int(i)) +
                                        ",decisions=" + fs::absolute(decisions_files[i]).string();
    server::bench::BenchVariant v;
    v.app = app;
    v.label = "c" + std::to_string(i);
    v.source = fs::absolute(analysis.source);
    v.generator = analysis.generator;
    v.params = analysis.params;
    v.scheduler.plugin = options.plugin;
    v.scheduler.autoscheduler = "Hlsched";
    v.scheduler.machine_params = options.machine_params;
    v.scheduler.environment = {{"HLSCHED_OPTIONS", hlsched_options}};
    v.predict = true;
    plan.variants.push_back(
        {v, pipeline, {{"kind", "candidate"}, {"options", hlsched_options}, {"candidate", int(i)}}});
  }
  return plan;
}

MeasurePick pick_fastest(const json &results, const json &collection) {
  if (results.value("format", "") != "hlsched-bench-results-v1")
    throw std::invalid_argument("the results are not a benchmark runner's results.json");
  if (collection.value("format", "") != kCollectionFormat || !collection.contains("variants"))
    throw std::invalid_argument("the collection manifest is not of format " + std::string(kCollectionFormat));
  if (!results.contains("variants") || !results["variants"].is_array())
    throw std::invalid_argument("the results.json has no variants");
  std::map<std::string, const json *> measured;
  for (const json &v : results["variants"]) measured[v.value("function", "")] = &v;

  MeasurePick pick;
  for (const json &entry : collection["variants"]) {
    const json schedule = entry.value("schedule", json::object());
    if (schedule.value("kind", "") != "candidate") continue;  // not a --measure bundle's variant
    CandidateOutcome c;
    c.candidate = schedule.value("candidate", 0);
    c.function = entry.value("function", "");
    const json prediction = entry.value("prediction", json());
    if (prediction.is_object() && !prediction.contains("error")) {
      c.predicted_ms = prediction.value("predicted_runtime_ms", 0.0);
      c.schedule_code = prediction.value("schedule_code", "");
    }
    const auto it = measured.find(c.function);
    if (it == measured.end()) {
      c.status = "not measured";
    } else if (const std::string failure = failure_of(*it->second); !failure.empty()) {
      c.status = failure;
    } else if (!entry.value("prediction_matches_applied", false) || c.schedule_code.empty()) {
      // The plugin's search (inside GenGen) chose another schedule than the one predicted, e.g.
      // out of time under load: what ran is not the schedule we would print.
      c.status = "applied another schedule";
      c.measured_ms = it->second->value("runtime_ms", json::object()).value("median", 0.0);
    } else {
      c.status = "ok";
      c.measured_ms = it->second->value("runtime_ms", json::object()).value("median", 0.0);
    }
    pick.candidates.push_back(std::move(c));
  }
  if (pick.candidates.empty()) throw std::invalid_argument("the collection manifest has no --measure candidates");
  for (size_t i = 0; i < pick.candidates.size(); i++) {
    const CandidateOutcome &c = pick.candidates[i];
    if (c.status == "ok" && c.measured_ms > 0 &&
        (pick.fastest < 0 || c.measured_ms < pick.candidates[size_t(pick.fastest)].measured_ms))
      pick.fastest = int(i);
  }
  return pick;
}

std::string measure_report(const MeasurePick &pick) {
  std::ostringstream out;
  out << "candidate  predicted      measured\n";
  for (size_t i = 0; i < pick.candidates.size(); i++) {
    const CandidateOutcome &c = pick.candidates[i];
    char line[256];
    std::snprintf(line, sizeof line, "%s c%-7d %-14s %-14s %s\n", int(i) == pick.fastest ? "*" : " ", c.candidate,
                  c.predicted_ms > 0 ? format_ms(c.predicted_ms).c_str() : "-",
                  c.measured_ms > 0 ? format_ms(c.measured_ms).c_str() : "-", c.status.c_str());
    out << line;
  }
  if (pick.fastest < 0) {
    out << "\nno candidate ran with outputs matching the reference (candidate 0): nothing to pick\n";
    return out.str();
  }
  const CandidateOutcome &best = pick.candidates[size_t(pick.fastest)];
  out << "\nfastest measured: candidate " << best.candidate << ", " << format_ms(best.measured_ms) << " (predicted "
      << format_ms(best.predicted_ms) << ")";
  const CandidateOutcome &first = pick.candidates.front();
  if (best.candidate != first.candidate && first.status == "ok")
    out << "; the search's own choice (candidate " << first.candidate << ") measured " << format_ms(first.measured_ms)
        << ", " << number_text(double(int(first.measured_ms / best.measured_ms * 100 + 0.5)) / 100) << "x slower";
  out << "\n\n" << best.schedule_code;
  if (!best.schedule_code.empty() && best.schedule_code.back() != '\n') out << "\n";
  return out.str();
}

int measure_schedule(const MeasureRequest &request) {
  const fs::path bundle = request.out_dir;
  const std::string collection_path = (bundle / "collection.json").string();
  if (!request.results_path.empty()) return pick_and_record(request, request.results_path, collection_path);

  // 1. The candidates: one search, its best `count` distinct schedules.
  server::AnalysisRequest analysis = request.analysis;
  analysis.task = "candidates";
  analysis.sample_count = request.count;
  analysis.search.memo_path.clear();  // a warm start would make the plugin's search another one
  const server::AnalysisOutcome found = server::analyze_generator(analysis);
  if (!found.ok()) {
    std::cerr << "hlsched: error: " << found.message << "\n";
    return found.status == server::AnalysisOutcome::Status::InternalError ? 4 : 1;
  }
  const json &candidates = found.result["candidates"];
  std::cerr << "measure: the search gave " << candidates.size() << " distinct candidates (asked for " << request.count
            << ")" << std::endl;

  // 2. Their bundle.
  CollectionOptions options;
  options.gpu_profile = analysis.gpu_profile;
  options = with_this_builds_paths(options);
  options.name = "measure-" + app_name(analysis.source, analysis.generator) + "-" + utc_stamp();
  options.random_pipelines = 0;
  options.samples = 0;
  // Each candidate's decisions, for the plugin inside GenGen and for the prediction beside it.
  const fs::path decisions_dir = bundle.string() + ".decisions";
  fs::create_directories(decisions_dir);
  std::vector<std::string> decisions_files;
  for (size_t i = 0; i < candidates.size(); i++) {
    const fs::path file = decisions_dir / ("c" + std::to_string(i) + ".decisions");
    std::ofstream out(file);
    out << candidates[i].value("decisions", "");
    if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
    decisions_files.push_back(file.string());
  }
  const CollectionPlan plan = plan_measure(analysis, options, decisions_files);
  CollectRequest collect;
  collect.out_dir = request.out_dir;
  collect.jobs = request.jobs;
  collect.cache_dir = analysis.cache_dir.string();
  if (const int status = build_collection_bundle(options, plan, collect); status != 0) return status;

  // 3. Run it here, or say how to run it elsewhere.
  const int gpus = request.force_no_gpu ? 0 : local_cuda_device_count();
  if (gpus == 0) {
    std::cout << "\nmeasure: no GPU on this machine (the CUDA driver reports none). Run the bundle on a machine with "
                 "an NVIDIA GPU and its driver (it needs nothing else; copy the folder " << bundle.string() << "):\n"
              << "  bash " << (bundle / "run.sh").string() << " --output results.json "
              << runner_options(request.run_budget_s) << "\n"
              << "then pick the fastest here, with the results.json it wrote (the same command, plus):\n"
              << "  hlsched schedule " << analysis.source.string() << " ... --measure " << request.count
              << " --measure-out " << bundle.string() << " --measure-results results.json\n";
    return 0;
  }
  std::cerr << "measure: running the bundle on this machine's GPU" << std::endl;
  const std::string results = (bundle / "results.json").string();
  std::string command = "bash '" + (bundle / "run.sh").string() + "' --output '" + results + "' " +
                        runner_options(request.run_budget_s);
  const int status = std::system(command.c_str());
  if (!fs::exists(results)) {
    std::cerr << "hlsched: error: the runner wrote no " << results << " (exit status " << status << ")\n";
    return 1;
  }
  return pick_and_record(request, results, collection_path);
}

}  // namespace hlsched::dataset
