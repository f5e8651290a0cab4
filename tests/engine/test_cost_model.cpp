// The learned cost model: an untrained network is exactly the hand model; the hand model stays
// selectable; weights round-trip through their text; inference equals an independent reference
// computation from the documented text format; training on the small checked-in dataset
// (synthetic labels, tests/data/cost_model/) converges and is deterministic for a seed.
// (Cost: a few featurized random schedules and a few seconds of training.)
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/cost_training.h"
#include "hlsched/engine/gpu_profile.h"
#include "hlsched/engine/loop_nest.h"
#include "cost/learned_model.h"
#include "search/beam_search.h"

using namespace hlsched;

namespace {

std::vector<ScheduleRow> featurized_samples(const std::string &generator, const GeneratorParams &params, int count) {
  auto inst = instantiate_generator(generator, default_gpu_target(), params);
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  std::vector<ScheduleRef> refs;
  for (int i = 0; i < count; i++) refs.push_back({3, i, ""});
  return featurize_schedules(dag, AutoschedulerOptions{}, refs);
}

TrainingSet checked_in_dataset() {
  std::ifstream in(std::string(HLSCHED_SOURCE_DIR) + "/tests/data/cost_model/synthetic.features");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return parse_training_set(text.str());
}

// The network of cost/learned_model.h computed from the weights text alone, with plain loops.
struct ReferenceModel {
  std::map<std::string, std::vector<double>> arrays;

  explicit ReferenceModel(const std::string &text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string name;
      size_t count = 0;
      if (!(fields >> name >> count)) continue;  // header lines
      std::vector<double> values(count);
      for (double &v : values) fields >> v;
      if (fields) arrays[name] = values;
    }
  }

  // out = M x, M of rows x cols stored column-major.
  static std::vector<double> times(const std::vector<double> &m, const std::vector<double> &x, size_t rows) {
    std::vector<double> out(rows, 0.0);
    for (size_t c = 0; c < x.size(); c++)
      for (size_t r = 0; r < rows; r++) out[r] += m[c * rows + r] * x[c];
    return out;
  }

  double predict(const KernelRow &row, const std::vector<double> &hand_coefficients) const {
    const size_t p = arrays.at("pipeline_mean").size(), s = arrays.at("schedule_mean").size();
    const size_t t = arrays.at("output_bias").size(), h = arrays.at("schedule_bias").size();
    const size_t e = arrays.at("embed").size() / p;
    std::vector<double> xp(p), xs(s);
    for (size_t i = 0; i < p; i++)
      xp[i] = (std::log1p(std::max(0.0, row.values[i])) - arrays.at("pipeline_mean")[i]) * arrays.at("pipeline_scale")[i];
    const std::vector<std::string> names = cost_term_name_list();
    const size_t launch = size_t(std::find(names.begin(), names.end(), "launch") - names.begin());
    for (size_t i = 0; i < s; i++) {
      const double v = std::max(0.0, row.values[p + i]);
      // The launch term is read at twice its value: the scale of the profiles' launch before it was halved.
      const double logged = i < s - t ? std::log1p(v) : std::log(1e-6 + (i == s - t + launch ? 2 * v : v));
      xs[i] = (logged - arrays.at("schedule_mean")[i]) * arrays.at("schedule_scale")[i];
    }
    std::vector<double> combined = times(arrays.at("embed"), xp, e);
    std::vector<double> a = times(arrays.at("schedule"), xs, h);
    for (size_t i = 0; i < h; i++) {
      const double v = a[i] + arrays.at("schedule_bias")[i];
      combined.push_back(v > 0 ? v : 0.01 * v);
    }
    std::vector<double> hidden = times(arrays.at("combine"), combined, h);
    for (size_t i = 0; i < h; i++) hidden[i] = std::max(0.0, hidden[i] + arrays.at("combine_bias")[i]);
    const std::vector<double> out = times(arrays.at("output"), hidden, t);
    double ms = 0;
    for (size_t i = 0; i < t; i++) {
      const double coefficient = std::max(0.0, out[i] + arrays.at("output_bias")[i] + hand_coefficients[i]);
      ms += coefficient * row.values[p + s - t + i];
    }
    return ms;
  }
};

}  // namespace

TEST_CASE("an untrained learned model predicts exactly what the hand model does", "[cost_model]") {
  const std::string untrained = initial_weights_text(11, "h200");
  for (const auto &[generator, params] : std::vector<std::pair<std::string, GeneratorParams>>{
           {"pyramid_small", {{"levels", "3"}}}, {"stencil_small", {{"radius", "2"}}}, {"reductions_small", {}}}) {
    INFO(generator);
    int kernels = 0;
    for (const ScheduleRow &s : featurized_samples(generator, params, 6)) {
      const std::vector<double> learned = predict_kernels_ms(untrained, s.kernels);
      for (size_t k = 0; k < s.kernels.size(); k++, kernels++) {
        CHECK(s.kernels[k].hand_ms > 0);
        CHECK(learned[k] == Approx(s.kernels[k].hand_ms).epsilon(1e-9));
      }
    }
    CHECK(kernels > 0);
  }
}

TEST_CASE("the hand model stays selectable next to the learned one", "[cost_model]") {
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {{"radius", "2"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  // The default ranks by both models (its costs the learned one's); the hand model stays selectable.
  CHECK(AutoschedulerOptions{}.model == "both");
  AutoschedulerOptions hand;
  hand.model = "hand";
  hand.work_budget = 600;
  hand.time_budget_s = 600;
  AutoschedulerOptions learned = hand;
  learned.model = "learned";
  // One file per process: test runs of other build trees share /tmp, and a run rewriting the
  // file while another reads it would hand that one a torn weights file.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("hlsched-test-untrained-" + std::to_string(::getpid()) + ".weights")).string();
  std::ofstream(path) << initial_weights_text(3, "h200");
  learned.weights = path;

  const ScheduleResult by_hand = schedule_pipeline(inst.pipeline, dag, hand);
  const ScheduleResult by_learned = schedule_pipeline(inst.pipeline, dag, learned);
  CHECK(by_hand.cost_model.find("hand-set") != std::string::npos);
  CHECK(by_learned.cost_model.find("learned") != std::string::npos);
  // Untrained, both models cost every state alike: the same search, the same prediction.
  CHECK(by_learned.predicted_runtime_ms == Approx(by_hand.predicted_runtime_ms).epsilon(1e-9));

  AutoschedulerOptions unknown = hand;
  unknown.model = "oracle";
  CHECK_THROWS_AS(schedule_pipeline(inst.pipeline, dag, unknown), std::invalid_argument);
  AutoschedulerOptions missing = learned;
  missing.weights = path + ".missing";
  CHECK_THROWS(schedule_pipeline(inst.pipeline, dag, missing));
  std::filesystem::remove(path);

  // A GPU nobody trained weights for: the default is the hand model alone, learned an error.
  AutoschedulerOptions on_a100;
  on_a100.gpu_profile = "a100";
  on_a100.work_budget = 600;
  on_a100.time_budget_s = 600;
  AutoschedulerOptions a100_by_hand = on_a100;
  a100_by_hand.model = "hand";
  const ScheduleResult by_default = schedule_pipeline(inst.pipeline, dag, on_a100);
  CHECK(by_default.schedule_code == schedule_pipeline(inst.pipeline, dag, a100_by_hand).schedule_code);
  CHECK(by_default.cost_model.find("hand-set") != std::string::npos);
  on_a100.model = "learned";
  CHECK_THROWS_WITH(schedule_pipeline(inst.pipeline, dag, on_a100), Catch::Contains("no embedded cost model weights"));
}

TEST_CASE("trained weights round-trip and inference equals a reference computation", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  TrainOptions options;
  options.epochs = 20;
  const TrainReport report = train_cost_model(set, options);
  CHECK(reserialize_weights(report.weights_text) == report.weights_text);
  CHECK_THROWS(reserialize_weights("hlsched-cost-weights 1\nfeature_version 999\n"));

  const std::vector<std::string> terms = cost_term_name_list();
  REQUIRE(terms.size() >= 5);
  std::vector<double> hand(terms.size(), 0.0);
  for (const char *name : {"throughput", "latency", "sync", "launch", "non_affine_excess"})
    hand[size_t(std::find(terms.begin(), terms.end(), name) - terms.begin())] = 1;
  const ReferenceModel reference(report.weights_text);
  int compared = 0;
  for (const PipelineRows &p : set.pipelines)
    for (const ScheduleRow &s : p.schedules) {
      const std::vector<double> ms = predict_kernels_ms(report.weights_text, s.kernels);
      for (size_t k = 0; k < s.kernels.size(); k++, compared++)
        CHECK(ms[k] == Approx(reference.predict(s.kernels[k], hand)).epsilon(1e-9));
    }
  CHECK(compared > 50);
}

TEST_CASE("a weights file's list of measured builds reads as one short line", "[cost_model]") {
  CHECK(provenance_summary("data: 12 pipelines (NVIDIA H200 2026-12-02 29f8cb7e8d, NVIDIA H200 2026-12-01 "
                           "9f7b78225e, NVIDIA A100 2026-12-03 0d2128d711); trained on 10 pipelines, seed 4") ==
        "data: 12 pipelines measured on NVIDIA A100, NVIDIA H200 2026-12-01 to 2026-12-03 (3 builds); "
        "trained on 10 pipelines, seed 4");
  CHECK(provenance_summary("data: 3 pipelines (NVIDIA H200 2026-12-01 9f7b78225e)") ==
        "data: 3 pipelines measured on NVIDIA H200 2026-12-01 (1 build)");
  // Other forms are left as they are.
  for (const char *other : {"untrained (reproduces the hand model)", "data: 3 pipelines (oneword)", "data: 3 pipelines"})
    CHECK(provenance_summary(other) == other);
}

TEST_CASE("weights of the previous feature version load and predict as they did", "[cost_model]") {
  // Version 3 appended terms; a version 2 network reads them with zero weights, so its prediction
  // is the version 2 network's on the terms it knew (the reference reads the file as it is).
  std::ifstream in(std::string(HLSCHED_SOURCE_DIR) + "/engine/training/weights/h200-2026-12-01-v2.weights");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(text.str().find("feature_version 2\n") != std::string::npos);
  const std::vector<std::string> terms = cost_term_name_list();
  std::vector<double> hand(terms.size(), 0.0);
  for (const char *name : {"throughput", "latency", "sync", "launch", "non_affine_excess"})
    hand[size_t(std::find(terms.begin(), terms.end(), name) - terms.begin())] = 1;
  const ReferenceModel reference(text.str());
  REQUIRE(reference.arrays.at("output_bias").size() < terms.size());
  int compared = 0;
  for (const ScheduleRow &s : featurized_samples("reductions_small", {}, 4)) {
    const std::vector<double> ms = predict_kernels_ms(text.str(), s.kernels);
    for (size_t k = 0; k < s.kernels.size(); k++, compared++)
      CHECK(ms[k] == Approx(reference.predict(s.kernels[k], hand)).epsilon(1e-9));
  }
  CHECK(compared > 4);
  // Saved again, they are version 3 weights that predict the same.
  CHECK(reserialize_weights(text.str()).find("feature_version " + std::to_string(cost_feature_version())) !=
        std::string::npos);
  // Older versions and damaged arrays are refused, saying why.
  std::string version1 = text.str();
  version1.replace(version1.find("feature_version 2"), 17, "feature_version 1");
  CHECK_THROWS_WITH(reserialize_weights(version1), Catch::Contains("retrain"));
  std::string short_output = text.str();
  short_output.replace(short_output.find("\noutput_bias "), 13, "\noutput_bias_x ");
  CHECK_THROWS_WITH(reserialize_weights(short_output), Catch::Contains("output_bias"));
}

TEST_CASE("an ensemble of networks predicts the mean of its members", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  TrainOptions options;
  options.epochs = 10;
  options.members = 3;
  const TrainReport ensemble = train_cost_model(set, options);
  std::vector<std::string> members;
  for (int m = 0; m < 3; m++) {
    TrainOptions one = options;
    one.members = 1;
    one.seed = options.seed + uint64_t(m);
    members.push_back(train_cost_model(set, one).weights_text);
  }
  // The file is the members' texts one after another, and round-trips.
  size_t headers = 0;
  for (size_t at = ensemble.weights_text.find("hlsched-cost-weights"); at != std::string::npos;
       at = ensemble.weights_text.find("hlsched-cost-weights", at + 1))
    headers++;
  CHECK(headers == 3);
  CHECK(reserialize_weights(ensemble.weights_text) == ensemble.weights_text);
  int compared = 0;
  for (const PipelineRows &p : set.pipelines)
    for (const ScheduleRow &s : p.schedules) {
      const std::vector<double> mean = predict_kernels_ms(ensemble.weights_text, s.kernels);
      std::vector<double> sum(s.kernels.size(), 0.0);
      for (const std::string &m : members) {
        const std::vector<double> ms = predict_kernels_ms(m, s.kernels);
        for (size_t k = 0; k < ms.size(); k++) sum[k] += ms[k];
      }
      for (size_t k = 0; k < mean.size(); k++, compared++) CHECK(mean[k] == Approx(sum[k] / 3).epsilon(1e-9));
    }
  CHECK(compared > 50);
  // A damaged member is named.
  std::string damaged = ensemble.weights_text;
  const size_t second = damaged.find("hlsched-cost-weights", 1);
  damaged.replace(damaged.find("feature_version", second), 17, "feature_version 9");
  CHECK_THROWS_WITH(reserialize_weights(damaged), Catch::Contains("member 2 of 3"));
}

TEST_CASE("training on the checked-in dataset converges, deterministically per seed", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  TrainOptions options;
  options.epochs = 150;
  options.seed = 5;
  const TrainReport first = train_cost_model(set, options);
  REQUIRE(first.training_loss.size() == 150);
  INFO("loss " << first.initial_training_loss << " -> " << first.training_loss.back());
  // The labels come from coefficients 0.3x..3x the hand model's: the loss must fall tenfold.
  CHECK(first.training_loss.back() * 10 < first.initial_training_loss);
  CHECK(first.validation_pipelines > 0);
  CHECK(first.learned_validation.median_pipeline_error < first.hand_validation.median_pipeline_error);

  const TrainReport again = train_cost_model(set, options);
  CHECK(again.weights_text == first.weights_text);
  options.seed = 6;
  CHECK(train_cost_model(set, options).weights_text != first.weights_text);
}

TEST_CASE("pipelines named by a held-out prefix are validated on, never trained on", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  TrainOptions options;
  options.epochs = 5;
  options.validation_one_in = 0;
  options.held_out_prefixes = {"synthetic:pyramid_small:"};
  CHECK(held_out_of_training("synthetic:pyramid_small:levels=3", options));
  CHECK_FALSE(held_out_of_training("synthetic:stencil_small:radius=2", options));
  const TrainReport report = train_cost_model(set, options);
  CHECK(report.validation_pipelines == 5);
  CHECK(report.training_pipelines == int(set.pipelines.size()) - 5);
  // With a hash fold as well, a pipeline is held out by either rule.
  options.validation_one_in = 4;
  int by_either = 0;
  for (const PipelineRows &p : set.pipelines) by_either += held_out_of_training(p.id, options);
  CHECK(by_either > 5);
}

TEST_CASE("features files reject another feature version", "[cost_model]") {
  TrainingSet set = checked_in_dataset();
  std::string text = training_set_to_text(set);
  CHECK(training_set_to_text(parse_training_set(text)) == text);
  const std::string version = " " + std::to_string(cost_feature_version()) + "\n";
  text.replace(text.find(version), version.size(), " 999\n");
  CHECK_THROWS(parse_training_set(text));
}

TEST_CASE("features of the old launch price read as the profiles price it now", "[cost_model]") {
  // The checked-in file is format 1: 5 us per launch in its terms and hand times; read, 2.5 us.
  std::ifstream in(std::string(HLSCHED_SOURCE_DIR) + "/tests/data/cost_model/synthetic.features");
  std::stringstream file;
  file << in.rdbuf();
  REQUIRE(file.str().rfind("hlsched-features 1 ", 0) == 0);
  const TrainingSet set = parse_training_set(file.str());
  const std::vector<std::string> names = cost_term_name_list();
  const size_t launch = size_t(std::find(names.begin(), names.end(), "launch") - names.begin());
  const size_t terms_at = set.pipelines.at(0).schedules.at(0).kernels.at(0).values.size() - names.size();
  const GpuProfile &h200 = find_gpu_profile("h200");
  int launching = 0;
  for (const PipelineRows &p : set.pipelines)
    for (const ScheduleRow &s : p.schedules) {
      double kernels_hand = 0;
      for (const KernelRow &k : s.kernels) {
        const double term = k.values[terms_at + launch];
        CHECK((term == 0 || term == Approx(h200.kernel_launch_seconds * 1e3)));
        launching += term > 0;
        kernels_hand += k.hand_ms;
      }
      CHECK(s.hand_ms == Approx(kernels_hand));
    }
  CHECK(launching > 50);
  // Written again, they are format 2, read as they are.
  const std::string text = training_set_to_text(set);
  CHECK(text.rfind("hlsched-features 2 ", 0) == 0);
  CHECK(training_set_to_text(parse_training_set(text)) == text);
}

TEST_CASE("a pipeline's predicted time is its kernels' plus one call", "[cost_model]") {
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {{"radius", "2"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &h200 = find_gpu_profile("h200");
  REQUIRE(h200.pipeline_call_seconds > 0);
  for (const char *model : {"hand", "learned"}) {
    AutoschedulerOptions options;
    options.model = model;
    const ScheduleResult r = schedule_pipeline(inst.pipeline, dag, options);
    double kernels = 0;
    for (const StageCost &c : r.stages) kernels += c.predicted_ms;
    CHECK(r.predicted_runtime_ms == Approx(kernels + h200.pipeline_call_seconds * 1e3));
  }
}

TEST_CASE("a dataset's saved decisions rebuild the very schedule that was sampled", "[cost_model]") {
  // Datasets keep each schedule's decisions as warm-start text without the file's checksum line;
  // training must rebuild the state from them, not redraw a random walk (which gives another
  // schedule once the search space changes).
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {{"radius", "2"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const std::vector<ScheduleResult> sampled = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 1, 3, 2);
  REQUIRE(sampled.size() == 1);
  REQUIRE_FALSE(sampled[0].decisions.empty());

  std::vector<RebuiltSchedule> from_text, from_walk;
  const auto by_text = featurize_schedules(dag, AutoschedulerOptions{}, {{0, -1, sampled[0].decisions}}, &from_text);
  const auto by_walk = featurize_schedules(dag, AutoschedulerOptions{}, {{3, 2, ""}}, &from_walk);
  REQUIRE(from_text.size() == 1);
  CHECK(from_text[0].from == "state");
  CHECK(from_walk[0].from == "walk");
  REQUIRE(by_text[0].kernels.size() == by_walk[0].kernels.size());
  for (size_t k = 0; k < by_text[0].kernels.size(); k++) CHECK(by_text[0].kernels[k].values == by_walk[0].kernels[k].values);
  // Rebuilt from its decisions, the schedule prints as the one sampled, launch sizes included.
  CHECK(loop_nest_lines(dag, from_text[0].spec) == loop_nest_lines(dag, sampled[0].schedule));
  CHECK(from_text[0].kernels.size() == by_text[0].kernels.size());
  for (const RebuiltSchedule::Launch &l : from_text[0].kernels) CHECK((l.blocks >= 1 && l.threads_per_block >= 1));
}

TEST_CASE("restarts keep, per network, the initialization that trains to the lowest loss", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  TrainOptions options;
  options.epochs = 10;
  options.members = 2;
  options.restarts = 2;
  const TrainReport restarted = train_cost_model(set, options);
  // Member 0 tries seeds 1 and 3 (seed + member + restart x members): it is the one with the lower
  // final training loss, network for network.
  std::vector<TrainReport> singles;
  for (uint64_t seed : {uint64_t(1), uint64_t(3)}) {
    TrainOptions one = options;
    one.members = 1;
    one.restarts = 1;
    one.seed = seed;
    singles.push_back(train_cost_model(set, one));
  }
  const TrainReport &best = singles[0].training_loss.back() <= singles[1].training_loss.back() ? singles[0] : singles[1];
  CHECK(restarted.training_loss.back() == Approx(best.training_loss.back()).epsilon(1e-12));
  CHECK(restarted.training_loss.back() <= std::min(singles[0].training_loss.back(), singles[1].training_loss.back()));
  // The kept seed is named in the member's provenance.
  const std::string kept_seed = best.weights_text.substr(best.weights_text.find("seed "), 7);
  CHECK(restarted.weights_text.find(kept_seed) != std::string::npos);
}

TEST_CASE("a hand prior keeps the trained model's predictions near the hand model's", "[cost_model]") {
  const TrainingSet set = checked_in_dataset();
  std::vector<KernelRow> kernels;
  for (const PipelineRows &p : set.pipelines)
    for (const ScheduleRow &s : p.schedules) kernels.insert(kernels.end(), s.kernels.begin(), s.kernels.end());
  REQUIRE(!kernels.empty());
  const std::vector<double> hand = predict_kernels_ms("", kernels, false);
  // Mean |log(learned / hand)| over the dataset's kernels.
  const auto distance_from_hand = [&](double prior) {
    TrainOptions options;
    options.epochs = 40;
    options.hand_prior_weight = prior;
    const TrainReport report = train_cost_model(set, options);
    const std::vector<double> learned = predict_kernels_ms(report.weights_text, kernels, false);
    double sum = 0;
    for (size_t k = 0; k < kernels.size(); k++) sum += std::abs(std::log(learned[k] / hand[k]));
    return std::make_pair(sum / double(kernels.size()), report);
  };
  const auto [free_distance, free_report] = distance_from_hand(0);
  const auto [held_distance, held_report] = distance_from_hand(20);
  INFO("mean |log(learned / hand)|: no prior " << free_distance << ", prior 20 " << held_distance);
  // The labels are 0.3x..3x the hand model's: free, the network moves away from it; held, far less.
  CHECK(free_distance > 0.1);
  CHECK(held_distance < 0.5 * free_distance);
  CHECK(held_report.weights_text.find("hand prior 20") != std::string::npos);
  CHECK(free_report.weights_text.find("hand prior") == std::string::npos);
}

TEST_CASE("model=both returns, of what the hand and learned searches found, the schedule they agree on best",
          "[cost_model]") {
  int picks_differ = 0;
  for (const auto &[generator, params] : std::vector<std::pair<std::string, GeneratorParams>>{
           {"pyramid_small", {{"levels", "3"}}}, {"stencil_small", {{"radius", "2"}}}, {"reductions_small", {}}}) {
    INFO(generator);
    auto inst = instantiate_generator(generator, default_gpu_target(), params);
    const PipelineDag dag = build_pipeline_dag(inst.pipeline);
    AutoschedulerOptions hand;
    hand.model = "hand";
    hand.work_budget = 600;  // every pass completes: the same searches as inside model=both
    hand.time_budget_s = 600;
    AutoschedulerOptions learned = hand;
    learned.model = "learned";  // the embedded weights
    AutoschedulerOptions both = hand;
    both.model = "both";
    both.work_budget = 1200;
    both.time_budget_s = 1200;

    // Every schedule either search found, priced by both models as the searches price it
    // (search_price_ms), by its learned model's code; and its reported learned time.
    const auto search_price = [](const ScheduleResult &r) {
      double ms = 0;
      for (const StageCost &c : r.stages) ms += search_price_ms(c.predicted_ms, c.terms_ms);
      return ms;
    };
    std::map<std::string, std::pair<double, double>> costs;
    std::map<std::string, double> reported;
    for (const AutoschedulerOptions &o : {hand, learned})
      for (const ScheduleResult &r : schedule_candidates(inst.pipeline, dag, o, 6)) {
        const ScheduleResult as_hand = schedule_from_decisions(inst.pipeline, dag, hand, r.decisions);
        const ScheduleResult as_learned = schedule_from_decisions(inst.pipeline, dag, learned, r.decisions);
        costs[as_learned.schedule_code] = {search_price(as_hand), search_price(as_learned)};
        reported[as_learned.schedule_code] = as_learned.predicted_runtime_ms;
      }
    const std::string hand_first =
        schedule_from_decisions(inst.pipeline, dag, learned, schedule_pipeline(inst.pipeline, dag, hand).decisions).schedule_code;
    const std::string learned_first = schedule_pipeline(inst.pipeline, dag, learned).schedule_code;
    picks_differ += hand_first != learned_first;
    const auto agreement = [](const std::pair<double, double> &c) { return std::sqrt(c.first * c.second); };
    std::string expected;
    for (const auto &[code, c] : costs)
      if (expected.empty() || agreement(c) < agreement(costs[expected])) expected = code;

    const std::vector<ScheduleResult> picked = schedule_candidates(inst.pipeline, dag, both, 6);
    REQUIRE(!picked.empty());
    CHECK(picked[0].schedule_code == expected);
    CHECK(picked[0].predicted_runtime_ms == Approx(reported[expected]).epsilon(1e-9));
    CHECK(picked[0].cost_model.find("hand and learned") != std::string::npos);
    for (size_t i = 0; i < picked.size(); i++) {
      INFO("candidate " << i);
      REQUIRE(costs.count(picked[i].schedule_code));
      if (i > 0) CHECK(agreement(costs[picked[i - 1].schedule_code]) <= agreement(costs[picked[i].schedule_code]));
    }
  }
  // Otherwise the check above cannot tell the agreement from either model alone.
  CHECK(picks_differ > 0);
}
