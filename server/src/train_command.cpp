#include "train_command.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
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
#include "dataset/compressed_lines.h"
#include "dataset/dataset_record.h"
#include "dataset/fidelity.h"
#include "random_pipeline.h"

namespace hlsched::server {

using nlohmann::json;
namespace fs = std::filesystem;
namespace asio = boost::asio;

namespace {

// Every record of a dataset file, .zst and .xz ones decompressed (dataset::read_text).
std::vector<json> read_records(const std::string &path) {
  const std::string text = dataset::read_text(path);
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

// Names this build: features cached by an older build of hlsched (another search space, another
// state_to_spec) are not reused. The running executable's size and modification time.
std::string engine_build_id() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return "?";
  const auto size = fs::file_size(exe, error);
  const auto time = fs::last_write_time(exe, error).time_since_epoch().count();
  return std::to_string(size) + ":" + std::to_string(time);
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
  if (ref.empty()) return json();
  // The directives that were measured, for the fidelity check (dataset/fidelity.h).
  if (field(schedule, "spec").is_object()) ref["spec"] = schedule["spec"];
  return ref;
}

// The generator source of a record's pipeline: an example's file, or a random pipeline's text
// written into the cache.
fs::path pipeline_source(const json &pipeline, const TrainRequest &request, const fs::path &cache) {
  if (field(pipeline, "kind") == "random") {
    const json &random = field(pipeline, "random");
    RandomPipelineOptions options;
    options.seed = field(random, "seed").get<uint64_t>();
    options.stages = field(random, "stages").get<int>();
    options.writer_version = dataset::random_writer_version(random);
    const fs::path path = cache / "train-sources" /
                          ("random_s" + std::to_string(options.seed) + "_n" + std::to_string(options.stages) +
                           (options.writer_version > 1 ? "_w" + std::to_string(options.writer_version) : "") + ".cpp");
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

// One pipeline's records featurized in a worker, cached by what determines the result: the
// worker's answer ({"features": text, "rebuilt": [...]}, one rebuilt entry per ref).
json featurize_pipeline(const json &pipeline, const std::vector<json> &refs, const TrainRequest &request,
                        const fs::path &cache) {
  const fs::path source = pipeline_source(pipeline, request, cache);
  std::map<std::string, std::string> params;
  for (const auto &[k, v] : field(pipeline, "params").items()) params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  const std::string generator = field(pipeline, "generator").is_string() ? pipeline["generator"].get<std::string>() : "";
  const std::string refs_text = json(refs).dump();

  // The build's own version too: the rebuilt schedules depend on the search space and
  // state_to_spec, not only on the feature version.
  std::string key = dataset::read_text(source) + '\0' + generator + '\0' + refs_text + '\0' + request.gpu + '\0' +
                    std::to_string(cost_feature_version()) + '\0' + engine_build_id();
  for (const auto &[k, v] : params) key += '\0' + k + "=" + v;
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a: stable across runs and builds
  for (unsigned char c : key) hash = (hash ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  const fs::path cached = cache / "features" / (std::string(hex) + ".json");
  if (fs::exists(cached)) {
    json answer = json::parse(dataset::read_text(cached), nullptr, /*allow_exceptions=*/false);
    if (answer.is_object() && answer.contains("features") && answer.contains("rebuilt")) return answer;
  }

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
  json answer = {{"features", outcome.result.value("features", std::string())},
                 {"rebuilt", outcome.result.value("rebuilt", json::array())}};
  std::ofstream(cached) << answer.dump();
  return answer;
}

// Per kernel, for analysis (scripts/cost_model/analyze_features.py --predictions): whether its
// pipeline is held out, the schedule's measured and predicted times, the kernel's CUPTI time and
// the hand and learned predictions (with the launch term: the terms' last column is launch), and
// the learned one without its launch term (what CUPTI measures); and what a call of the pipeline
// adds once to its kernels' sum (call_ms, the same on every row).
void write_predictions(const TrainingSet &set, const std::string &weights_text, const TrainOptions &split,
                       const std::string &path) {
  std::ofstream out(path);
  out << "held_out\tpipeline\tschedule\tschedule_measured_ms\tfunc\tstage\tkernel_measured_ms\thand_ms\tlearned_ms\tlaunch_term_ms\tlearned_kernel_ms\tcall_ms\n";
  const double call_ms = pipeline_call_ms(weights_gpu(weights_text));
  const std::vector<std::string> terms = cost_term_name_list();
  const size_t launch = size_t(std::find(terms.begin(), terms.end(), "launch") - terms.begin());
  const size_t terms_at = set.pipelines.empty() || set.pipelines[0].schedules.empty() ||
                                  set.pipelines[0].schedules[0].kernels.empty()
                              ? 0
                              : set.pipelines[0].schedules[0].kernels[0].values.size() - terms.size();
  for (const PipelineRows &p : set.pipelines) {
    const bool held_out = held_out_of_training(p.id, split);
    for (size_t i = 0; i < p.schedules.size(); i++) {
      const ScheduleRow &s = p.schedules[i];
      const std::vector<double> learned = predict_kernels_ms(weights_text, s.kernels);
      const std::vector<double> learned_on_gpu = predict_kernels_ms(weights_text, s.kernels, /*without_launch=*/true);
      for (size_t k = 0; k < s.kernels.size(); k++) {
        const KernelRow &row = s.kernels[k];
        out << held_out << '\t' << p.id << '\t' << i << '\t' << s.measured_ms << '\t' << row.func << '\t' << row.stage
            << '\t' << row.measured_ms << '\t' << row.hand_ms << '\t' << learned[k] << '\t'
            << row.values.at(terms_at + launch) << '\t' << learned_on_gpu[k] << '\t' << call_ms << '\n';
      }
    }
  }
}

}  // namespace

FeaturizedDataset featurize_dataset(const TrainRequest &request) {
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
  FeaturizedDataset out;
  TrainingSet &set = out.set;
  for (const std::string &p : provenance) set.provenance += (set.provenance.empty() ? "" : ", ") + p;
  set.provenance = "data: " + std::to_string(order.size()) + " pipelines (" + set.provenance + ")";
  // Each pipeline in a worker process of its own, `jobs` at a time; the answers in order.
  std::vector<json> answers(order.size());
  std::vector<std::string> errors(order.size());
  {
    asio::thread_pool workers(size_t(std::max(1, request.jobs)));
    for (size_t p = 0; p < order.size(); p++)
      asio::post(workers, [&, p] {
        const std::vector<json> &records = by_pipeline.at(order[p]);
        std::vector<json> refs;
        for (const json &r : records) refs.push_back(schedule_ref(r));
        try {
          answers[p] = featurize_pipeline(records.front()["pipeline"], refs, request, cache);
        } catch (const std::exception &e) {
          errors[p] = e.what();
        }
      });
    workers.join();
  }
  for (size_t p = 0; p < order.size(); p++) {
    const std::string &id = order[p];
    const std::vector<json> &records = by_pipeline[id];
    std::vector<ScheduleRow> rows;
    json rebuilt;
    try {
      if (!errors[p].empty()) throw std::runtime_error(errors[p]);
      rows = parse_training_set(answers[p]["features"].get<std::string>()).pipelines.at(0).schedules;
      rebuilt = answers[p]["rebuilt"];
    } catch (const std::exception &e) {
      spdlog::warn("hlsched train: skipping pipeline {}: {}", id, e.what());
      out.failed_pipelines.push_back(id + ": " + e.what());
      continue;
    }
    PipelineRows pipeline{id, {}};
    for (size_t i = 0; i < rows.size() && i < records.size(); i++) {
      RecordCheck check{field(records[i], "id").is_string() ? records[i]["id"].get<std::string>() : id,
                        dataset::check_fidelity(records[i], i < rebuilt.size() ? rebuilt[i] : json())};
      const bool keep = !rows[i].kernels.empty() && (check.fidelity.ok() || request.keep_unfaithful);
      out.checks.push_back(std::move(check));
      if (!keep) continue;
      const json &measured = records[i]["measured"];
      rows[i].measured_ms = measured["pipeline_ms"].get<double>();
      const auto times = dataset::measured_by_model_kernel(measured, i < rebuilt.size() ? rebuilt[i] : json());
      for (KernelRow &k : rows[i].kernels)
        if (auto it = times.find(dataset::kernel_key(k.func, k.stage)); it != times.end()) k.measured_ms = it->second.ms;
      pipeline.schedules.push_back(std::move(rows[i]));
    }
    if (!pipeline.schedules.empty()) set.pipelines.push_back(std::move(pipeline));
  }
  if (!out.failed_pipelines.empty())
    spdlog::warn("hlsched train: {} of {} pipelines could not be featurized", out.failed_pipelines.size(), order.size());
  int unfaithful = 0;
  for (const RecordCheck &c : out.checks) unfaithful += !c.fidelity.ok();
  if (unfaithful)
    spdlog::warn("hlsched train: {} of {} records do not rebuild as the schedule measured ({}; `hlsched dataset check` "
                 "lists them)",
                 unfaithful, out.checks.size(), request.keep_unfaithful ? "kept: --keep-unfaithful" : "left out");
  return out;
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
  cmd->add_option("--jobs", r.jobs, "Pipelines featurized at once (a worker process each)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", r.train.seed, "Seed: initialization and batch order (same seed, same weights)");
  cmd->add_option("--epochs", r.train.epochs, "Passes over the training pipelines")->check(CLI::PositiveNumber);
  cmd->add_option("--learning-rate", r.train.learning_rate, "Adam step size")->check(CLI::PositiveNumber);
  cmd->add_option("--batch", r.train.pipelines_per_batch, "Pipelines per step")->check(CLI::PositiveNumber);
  cmd->add_option("--relative-weight", r.train.relative_weight, "Loss weight of errors relative to the pipeline's mean (ranking)");
  cmd->add_option("--absolute-weight", r.train.absolute_weight, "Loss weight of the schedules' log-time errors");
  cmd->add_option("--kernel-weight", r.train.kernel_weight, "Loss weight of the kernels' log-time errors (CUPTI)");
  cmd->add_option("--hand-prior", r.train.hand_prior_weight,
                  "Loss weight of each kernel's log distance from the hand model's prediction (0: none)");
  cmd->add_option("--members", r.train.members,
                  "Networks to train (seeds --seed, --seed + 1, ...), kept as an ensemble whose mean predicts")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--restarts", r.train.restarts,
                  "Initializations per network (more seeds); the one with the lowest training loss is kept")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--validation-one-in", r.train.validation_one_in,
                  "Hold out pipelines whose id hashes to --validation-fold (0) modulo this (0: none)");
  cmd->add_option("--validation-fold", r.train.validation_fold,
                  "Hold out the pipelines whose id hash modulo --validation-one-in is this (cross-validation)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--hold-out", r.train.held_out_prefixes,
                  "Also hold out pipelines whose id starts with this (repeatable; \"example:\": the examples)");
  cmd->add_flag("--keep-unfaithful", r.keep_unfaithful,
                "Train also on records that no longer rebuild as the schedule measured (hlsched dataset check)");
  cmd->add_option("--predictions", r.predictions, "Write every kernel's measured, hand and learned times here (TSV)");
  cmd->add_option("--evaluate", r.evaluate,
                  "Do not train: write --predictions of these weights, every pipeline marked held out");
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
  if (!r.evaluate.empty() && r.predictions.empty()) throw std::invalid_argument("train --evaluate: give --predictions");
  if (r.out.empty() && r.dump_features.empty() && r.evaluate.empty()) throw std::invalid_argument("train: nothing to do without --out or --dump-features");
  const TrainingSet set = r.features.empty() ? featurize_dataset(r).set : parse_training_set(dataset::read_text(r.features));
  if (!r.dump_features.empty()) std::ofstream(r.dump_features) << training_set_to_text(set);
  if (!r.evaluate.empty()) {  // fixed weights on other records: one fold of one, all held out
    TrainOptions all_held_out;
    all_held_out.validation_one_in = 1;
    all_held_out.validation_fold = 0;
    write_predictions(set, dataset::read_text(r.evaluate), all_held_out, r.predictions);
    return 0;
  }
  if (r.out.empty()) return 0;
  const TrainReport report = train_cost_model(set, r.train);
  std::ofstream(r.out) << report.weights_text;
  if (!r.predictions.empty()) write_predictions(set, report.weights_text, r.train, r.predictions);
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

namespace hlsched::server {

CLI::App *DatasetCheckCommand::add_to(CLI::App &dataset) {
  CLI::App *cmd = dataset.add_subcommand(
      "check", "Rebuild every record's schedule with this build and compare it with what was measured");
  TrainRequest &r = request_;
  cmd->add_option("datasets", r.data, "Dataset files (.jsonl, .jsonl.zst)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--repo-root", r.repo_root, "Folder example sources are relative to (default: .)");
  cmd->add_option("--cache-dir", r.cache_dir, "Build and feature cache (default $HLSCHED_CACHE_DIR or ~/.cache/hlsched)");
  cmd->add_option("--gpu", r.gpu, "GPU profile the schedules are rebuilt for");
  cmd->add_option("--timeout", r.timeout_s, "Seconds per pipeline's rebuild")->check(CLI::PositiveNumber);
  cmd->add_option("--jobs", r.jobs, "Pipelines rebuilt at once (a worker process each)")->check(CLI::PositiveNumber);
  cmd->add_flag("--all", all_, "List every record, faithful ones too");
  return cmd;
}

int DatasetCheckCommand::run() const {
  const FeaturizedDataset data = featurize_dataset(request_);
  std::map<std::string, int> by_reason;
  int faithful = 0, from_walk = 0, whole_tiles_added = 0;
  for (const RecordCheck &c : data.checks) {
    faithful += c.fidelity.ok();
    whole_tiles_added += c.fidelity.ok() && c.fidelity.whole_tiles_added;
    from_walk += c.fidelity.rebuilt_from == "walk";
    if (c.fidelity.ok() && !all_) continue;
    std::cout << (c.fidelity.ok() ? "ok       " : "MISMATCH ") << c.id << " (rebuilt from "
              << (c.fidelity.rebuilt_from.empty() ? "nothing" : c.fidelity.rebuilt_from) << ")\n";
    std::set<std::string> reasons;
    for (const std::string &m : c.fidelity.mismatches) {
      std::cout << "  " << m << "\n";
      // The kind of mismatch: its words up to the first number or colon.
      std::string kind = m.substr(0, m.find_first_of(":0123456789"));
      if (kind.rfind("kernel ", 0) == 0) kind = m.find(" launched ") != std::string::npos ? "kernel launch differs"
                                                : m.find(" did not run") != std::string::npos ? "kernel missing in the run"
                                                                                              : "kernel missing in the rebuild";
      reasons.insert(kind);
    }
    for (const std::string &k : reasons) by_reason[k]++;
  }
  for (const std::string &f : data.failed_pipelines) std::cout << "PIPELINE NOT REBUILT " << f << "\n";
  std::cout << "\n" << data.checks.size() << " records checked (measured, outputs matched, not manual): " << faithful
            << " rebuild as measured, " << data.checks.size() - faithful << " do not; " << from_walk
            << " rebuilt from their random walk (decisions no longer match)";
  if (whole_tiles_added)
    std::cout << "; " << whole_tiles_added << " of those that rebuild add a schedule for outputs of whole tiles"
              << " (measured before it existed: their general schedule ran)";
  if (!data.failed_pipelines.empty()) std::cout << "; " << data.failed_pipelines.size() << " pipelines not rebuilt";
  std::cout << "\n";
  for (const auto &[reason, n] : by_reason) std::cout << "  " << n << " records: " << reason << "\n";
  return 0;
}

}  // namespace hlsched::server
