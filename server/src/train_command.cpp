#include "train_command.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "generator_analysis.h"
#include "hlsched/engine/generator_build.h"
#include "random_pipeline.h"

namespace hlsched::server {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every record of a dataset file; compressed files through the zstd or xz tool.
std::vector<json> read_records(const std::string &path) {
  if (!fs::exists(path)) throw std::invalid_argument("no dataset file " + path);
  std::string text;
  const auto ends_with = [&path](const std::string &suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".zst") || ends_with(".xz")) {
    std::string quoted = "'";
    for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    const std::string command = std::string(ends_with(".zst") ? "zstd" : "xz") + " -dc -- " + quoted;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    char buffer[1 << 16];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
    if (pclose(pipe) != 0) throw std::runtime_error("cannot decompress " + path);
  } else {
    text = read_file(path);
  }
  std::vector<json> records;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    number++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object()) throw std::invalid_argument(path + ":" + std::to_string(number) + ": not a JSON record");
    records.push_back(std::move(record));
  }
  return records;
}

const json &field(const json &j, const char *key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

// How the record's schedule is rebuilt: its decisions, else its random walk; null when neither
// (a manual schedule cannot be featurized).
json schedule_ref(const json &record) {
  const json &schedule = field(record, "schedule");
  json ref = json::object();
  const json &decisions = field(schedule, "decisions");
  if (decisions.is_string() && !decisions.get<std::string>().empty()) ref["state"] = decisions;
  const json &sample = field(schedule, "sample");
  if (field(sample, "walk").is_number_integer() && field(sample, "seed").is_number_integer())
    ref.update({{"sample_seed", sample["seed"]}, {"sample_index", sample["walk"]}});
  return ref.empty() ? json() : ref;
}

// The generator source of a record's pipeline: an example's file, or a random pipeline's text
// written into the cache.
fs::path pipeline_source(const json &pipeline, const TrainRequest &request, const fs::path &cache) {
  if (field(pipeline, "kind") == "random") {
    const json &random = field(pipeline, "random");
    RandomPipelineOptions options;
    options.seed = field(random, "seed").get<uint64_t>();
    options.stages = field(random, "stages").get<int>();
    const fs::path path = cache / "train-sources" /
                          ("random_s" + std::to_string(options.seed) + "_n" + std::to_string(options.stages) + ".cpp");
    if (!fs::exists(path)) {
      fs::create_directories(path.parent_path());
      std::ofstream(path) << random_pipeline_source(options);
    }
    return path;
  }
  // Relative to the repository: --repo-root, else a folder above a dataset file (datasets live
  // in the repository).
  const std::string relative = field(pipeline, "source").get<std::string>();
  std::vector<fs::path> roots = {request.repo_root};
  for (const std::string &data : request.data)
    for (fs::path p = fs::absolute(data).parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      roots.push_back(p);
  for (const fs::path &root : roots)
    if (fs::exists(root / relative)) return root / relative;
  throw std::runtime_error("cannot find " + relative + " (give --repo-root)");
}

// Measured ms per (func, stage): a stage Halide splits into several kernels sums them.
std::map<std::pair<std::string, int>, double> kernel_times(const json &measured) {
  std::map<std::pair<std::string, int>, double> times;
  for (const json &k : field(measured, "kernels")) {
    const std::string func = field(k, "func").is_string() ? k["func"].get<std::string>() : "";
    const int stage = field(k, "stage").is_number_integer() ? k["stage"].get<int>() : -1;
    if (func.empty() || stage < 0 || !field(k, "ms").is_number()) continue;
    times[{func, stage}] += k["ms"].get<double>();
  }
  return times;
}

// One pipeline's records featurized in a worker, cached by what determines the result.
std::vector<ScheduleRow> featurize_pipeline(const json &pipeline, const std::vector<json> &refs,
                                            const TrainRequest &request, const fs::path &cache) {
  const fs::path source = pipeline_source(pipeline, request, cache);
  std::map<std::string, std::string> params;
  for (const auto &[k, v] : field(pipeline, "params").items()) params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  const std::string generator = field(pipeline, "generator").is_string() ? pipeline["generator"].get<std::string>() : "";
  const std::string refs_text = json(refs).dump();

  std::string key = read_file(source) + '\0' + generator + '\0' + refs_text + '\0' + request.gpu + '\0' +
                    std::to_string(cost_feature_version());
  for (const auto &[k, v] : params) key += '\0' + k + "=" + v;
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a: stable across runs and builds
  for (unsigned char c : key) hash = (hash ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  const fs::path cached = cache / "features" / (std::string(hex) + ".txt");
  if (fs::exists(cached)) return parse_training_set(read_file(cached)).pipelines.at(0).schedules;

  AnalysisRequest analysis;
  analysis.source = source;
  analysis.task = "featurize";
  analysis.generator = generator;
  analysis.params = params;
  analysis.gpu_profile = request.gpu;
  analysis.search.gpu_profile = request.gpu;
  analysis.time_limit = std::chrono::milliseconds(int64_t(request.timeout_s * 1000));
  analysis.cache_dir = request.cache_dir;
  const fs::path refs_path = cache / "features" / (std::string(hex) + ".refs.json");
  fs::create_directories(refs_path.parent_path());
  std::ofstream(refs_path) << refs_text;
  analysis.schedule_path = refs_path.string();
  const AnalysisOutcome outcome = analyze_generator(analysis);
  fs::remove(refs_path);
  if (!outcome.ok()) throw std::runtime_error(outcome.message);
  const std::string text = outcome.result.value("features", std::string());
  std::vector<ScheduleRow> rows = parse_training_set(text).pipelines.at(0).schedules;
  std::ofstream(cached) << text;
  return rows;
}

}  // namespace

TrainingSet featurize_dataset(const TrainRequest &request) {
  const fs::path cache = request.cache_dir.empty() ? default_cache_dir() : fs::path(request.cache_dir);
  // Records by pipeline id, in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::vector<json>> by_pipeline;
  std::set<std::string> provenance;
  for (const std::string &path : request.data)
    for (json &record : read_records(path)) {
      const json &measured = field(record, "measured");
      if (!field(measured, "pipeline_ms").is_number() || field(measured, "output_ok") == false) continue;
      if (schedule_ref(record).is_null()) continue;
      const std::string id = field(field(record, "pipeline"), "id").get<std::string>();
      if (!by_pipeline.count(id)) order.push_back(id);
      const json &p = field(record, "provenance");
      if (p.is_object())
        provenance.insert(p.value("gpu", "?") + " " + p.value("measured", "?").substr(0, 10) + " " +
                          p.value("commit", "?").substr(0, 10));
      by_pipeline[id].push_back(std::move(record));
    }
  TrainingSet set;
  for (const std::string &p : provenance) set.provenance += (set.provenance.empty() ? "" : ", ") + p;
  set.provenance = "data: " + std::to_string(order.size()) + " pipelines (" + set.provenance + ")";
  int failed = 0;
  for (const std::string &id : order) {
    const std::vector<json> &records = by_pipeline[id];
    std::vector<json> refs;
    for (const json &r : records) refs.push_back(schedule_ref(r));
    std::vector<ScheduleRow> rows;
    try {
      rows = featurize_pipeline(records.front()["pipeline"], refs, request, cache);
    } catch (const std::exception &e) {
      spdlog::warn("hlsched train: skipping pipeline {}: {}", id, e.what());
      failed++;
      continue;
    }
    PipelineRows pipeline{id, {}};
    for (size_t i = 0; i < rows.size() && i < records.size(); i++) {
      if (rows[i].kernels.empty()) continue;  // not rebuilt: the schedule space changed since
      const json &measured = records[i]["measured"];
      rows[i].measured_ms = measured["pipeline_ms"].get<double>();
      const auto times = kernel_times(measured);
      for (KernelRow &k : rows[i].kernels)
        if (auto it = times.find({k.func, k.stage}); it != times.end()) k.measured_ms = it->second;
      pipeline.schedules.push_back(std::move(rows[i]));
    }
    if (!pipeline.schedules.empty()) set.pipelines.push_back(std::move(pipeline));
  }
  if (failed) spdlog::warn("hlsched train: {} of {} pipelines could not be featurized", failed, order.size());
  return set;
}

std::string metrics_line(const PredictionMetrics &m) {
  char line[400];
  std::snprintf(line, sizeof line,
                "%d pipelines, %d schedules: median error %.1f%%, geomean pred/meas %.2f, worst %.2fx, "
                "rank correlation %.3f; %d kernels: median error %.1f%%",
                m.pipelines, m.schedules, 100 * m.median_pipeline_error, m.geomean_ratio, m.worst_ratio,
                m.rank_correlation, m.kernels, 100 * m.median_kernel_error);
  return line;
}

CLI::App *TrainCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("train", "Train the learned cost model on measured schedules");
  TrainRequest &r = request_;
  cmd->add_option("--data", r.data, "Dataset file (JSON lines, .zst/.xz compressed; repeatable)");
  cmd->add_option("--features", r.features, "Train on a features file (from --dump-features) instead");
  cmd->add_option("--dump-features", r.dump_features, "Write the dataset's features to this file");
  cmd->add_option("--out", r.out, "Write the trained weights here (text)");
  cmd->add_option("--repo-root", r.repo_root, "Folder example sources are relative to (default: .)");
  cmd->add_option("--cache-dir", r.cache_dir, "Build and feature cache (default $HLSCHED_CACHE_DIR or ~/.cache/hlsched)");
  cmd->add_option("--gpu", r.gpu, "GPU profile the terms are computed for");
  cmd->add_option("--timeout", r.timeout_s, "Seconds per pipeline's featurization")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", r.train.seed, "Seed: initialization and batch order (same seed, same weights)");
  cmd->add_option("--epochs", r.train.epochs, "Passes over the training pipelines")->check(CLI::PositiveNumber);
  cmd->add_option("--learning-rate", r.train.learning_rate, "Adam step size")->check(CLI::PositiveNumber);
  cmd->add_option("--batch", r.train.pipelines_per_batch, "Pipelines per step")->check(CLI::PositiveNumber);
  cmd->add_option("--validation-one-in", r.train.validation_one_in,
                  "Hold out pipelines whose id hashes to 0 modulo this (0: none)");
  cmd->add_flag("--json", r.json, "Print the report as JSON");
  cmd->add_flag("--untrained", r.untrained, "Write untrained weights (they predict what the hand model does) to --out");
  return cmd;
}

int TrainCommand::run() const {
  TrainRequest r = request_;
  r.train.gpu = r.gpu;
  if (r.untrained) {
    if (r.out.empty()) throw std::invalid_argument("train --untrained: give --out");
    std::ofstream(r.out) << initial_weights_text(r.train.seed, r.gpu);
    return 0;
  }
  if (r.data.empty() == r.features.empty()) throw std::invalid_argument("train: give --data or --features (one of them)");
  if (r.out.empty() && r.dump_features.empty()) throw std::invalid_argument("train: nothing to do without --out or --dump-features");
  const TrainingSet set = r.features.empty() ? featurize_dataset(r) : parse_training_set(read_file(r.features));
  if (!r.dump_features.empty()) std::ofstream(r.dump_features) << training_set_to_text(set);
  if (r.out.empty()) return 0;
  const TrainReport report = train_cost_model(set, r.train);
  std::ofstream(r.out) << report.weights_text;
  if (r.json) {
    auto metrics = [](const PredictionMetrics &m) {
      return json{{"pipelines", m.pipelines}, {"schedules", m.schedules}, {"kernels", m.kernels},
                  {"median_pipeline_error", m.median_pipeline_error}, {"median_kernel_error", m.median_kernel_error},
                  {"worst_ratio", m.worst_ratio}, {"geomean_ratio", m.geomean_ratio},
                  {"rank_correlation", m.rank_correlation}};
    };
    std::cout << json{{"training_pipelines", report.training_pipelines},
                      {"validation_pipelines", report.validation_pipelines},
                      {"initial_training_loss", report.initial_training_loss},
                      {"training_loss", report.training_loss},
                      {"validation_loss", report.validation_loss},
                      {"hand_validation", metrics(report.hand_validation)},
                      {"learned_validation", metrics(report.learned_validation)},
                      {"hand_training", metrics(report.hand_training)},
                      {"learned_training", metrics(report.learned_training)}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << "trained on " << report.training_pipelines << " pipelines, validated on " << report.validation_pipelines
            << " held-out pipelines\n"
            << "loss (training): " << report.initial_training_loss << " before, "
            << (report.training_loss.empty() ? 0.0 : report.training_loss.back()) << " after "
            << report.training_loss.size() << " epochs\n"
            << "held out, hand model:    " << metrics_line(report.hand_validation) << "\n"
            << "held out, learned model: " << metrics_line(report.learned_validation) << "\n"
            << "training, hand model:    " << metrics_line(report.hand_training) << "\n"
            << "training, learned model: " << metrics_line(report.learned_training) << "\n"
            << "weights written to " << r.out << "\n";
  return 0;
}

}  // namespace hlsched::server
