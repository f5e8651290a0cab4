#include "cost/learned_model.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "hlsched/engine/autoscheduler.h"
#include "util/replace_file.h"

namespace hlsched {

namespace {

constexpr char kMagic[] = "hlsched-cost-weights";
constexpr int kFormatVersion = 1;
constexpr double kLeak = 0.01;
// Terms are milliseconds spanning 1e-6..1e3: log(x + floor) keeps the tiny ones apart.
constexpr double kTermFloorMs = 1e-6;

template <typename M>
void write_array(std::ostream &out, const char *name, const M &m) {
  out << name << ' ' << m.size();
  // Column-major, as Eigen stores it; full precision so that a round trip is exact.
  out.precision(17);
  for (Eigen::Index i = 0; i < m.size(); i++) out << ' ' << m.data()[i];
  out << '\n';
}

template <typename M>
void read_array(const std::map<std::string, std::vector<double>> &arrays, const char *name, M &m) {
  auto it = arrays.find(name);
  if (it == arrays.end()) throw std::runtime_error(std::string("cost model weights: missing '") + name + "'");
  if (Eigen::Index(it->second.size()) != m.size())
    throw std::runtime_error(std::string("cost model weights: '") + name + "' has " + std::to_string(it->second.size()) +
                             " values, expected " + std::to_string(m.size()) + " (made for another network shape)");
  for (Eigen::Index i = 0; i < m.size(); i++) m.data()[i] = it->second[size_t(i)];
}

// An array of an older feature version, whose terms were the first `rows` x `cols` of today's:
// read into that corner, the rest left as `m` already holds it (zero weights for the new terms'
// inputs and outputs, which then contribute nothing).
template <typename M>
void read_corner(const std::map<std::string, std::vector<double>> &arrays, const char *name, M &m,
                 Eigen::Index rows, Eigen::Index cols) {
  Eigen::MatrixXd old(rows, cols);
  read_array(arrays, name, old);
  m.topLeftCorner(rows, cols) = old;
}

}  // namespace

CostModelWeights CostModelWeights::initial(uint64_t seed) {
  CostModelWeights w;
  std::mt19937_64 rng(seed);
  auto fill = [&rng](auto &m, double fan_in) {
    std::normal_distribution<double> normal(0.0, 1.0 / std::sqrt(fan_in));
    for (Eigen::Index i = 0; i < m.size(); i++) m.data()[i] = normal(rng);
  };
  fill(w.embed, kPfCount);
  fill(w.schedule, kScheduleInputs);
  fill(w.combine, kCombined);
  w.schedule_bias.setZero();
  w.combine_bias.setConstant(0.1);  // hidden units start alive
  w.output.setZero();
  w.output_bias.setZero();
  w.gpu = "h200";
  w.provenance = "untrained (reproduces the hand model)";
  return w;
}

std::string provenance_summary(const std::string &provenance) {
  // "data: 1588 pipelines (NVIDIA H200 2026-12-01 9f7b78225e, ...); trained on ..."
  const size_t open = provenance.find(" ("), close = provenance.find(')', open == std::string::npos ? 0 : open);
  if (provenance.rfind("data: ", 0) != 0 || open == std::string::npos || close == std::string::npos)
    return provenance;
  std::set<std::string> gpus, dates;
  size_t builds = 0;
  std::istringstream list(provenance.substr(open + 2, close - open - 2));
  for (std::string entry; std::getline(list >> std::ws, entry, ',');) {
    // "GPU NAME WORDS DATE COMMIT": the date is the second word from the end.
    const size_t commit = entry.rfind(' '), date = commit == std::string::npos ? commit : entry.rfind(' ', commit - 1);
    if (date == std::string::npos) return provenance;
    gpus.insert(entry.substr(0, date));
    dates.insert(entry.substr(date + 1, commit - date - 1));
    builds++;
  }
  if (builds == 0) return provenance;
  std::string gpu_list;
  for (const std::string &g : gpus) gpu_list += (gpu_list.empty() ? "" : ", ") + g;
  std::string out = provenance.substr(0, open) + " measured on " + gpu_list + " " + *dates.begin();
  if (dates.size() > 1) out += " to " + *dates.rbegin();
  out += " (" + std::to_string(builds) + (builds == 1 ? " build)" : " builds)");
  return out + provenance.substr(close + 1);
}

std::string CostModelWeights::to_text() const {
  std::ostringstream out;
  out << kMagic << ' ' << kFormatVersion << '\n';
  out << "feature_version " << kFeatureVersion << '\n';
  out << "gpu " << gpu << '\n';
  std::string one_line = provenance;
  for (char &c : one_line)
    if (c == '\n') c = ' ';
  out << "provenance " << one_line << '\n';
  write_array(out, "pipeline_mean", pipeline_mean);
  write_array(out, "pipeline_scale", pipeline_scale);
  write_array(out, "schedule_mean", schedule_mean);
  write_array(out, "schedule_scale", schedule_scale);
  write_array(out, "embed", embed);
  write_array(out, "schedule", schedule);
  write_array(out, "schedule_bias", schedule_bias);
  write_array(out, "combine", combine);
  write_array(out, "combine_bias", combine_bias);
  write_array(out, "output", output);
  write_array(out, "output_bias", output_bias);
  return out.str();
}

CostModelWeights CostModelWeights::parse(const std::string &text) {
  std::istringstream in(text);
  std::string magic, key;
  int version = 0, feature_version = 0;
  if (!(in >> magic >> version) || magic != kMagic) throw std::runtime_error("not a cost model weights file");
  if (version != kFormatVersion)
    throw std::runtime_error("cost model weights format " + std::to_string(version) + ", this build reads " +
                             std::to_string(kFormatVersion));
  if (!(in >> key >> feature_version) || key != "feature_version")
    throw std::runtime_error("cost model weights: missing feature_version");
  const bool previous = feature_version == kPreviousFeatureVersion;
  if (feature_version != kFeatureVersion && !previous)
    throw std::runtime_error("cost model weights were trained on features version " + std::to_string(feature_version) +
                             "; this build computes version " + std::to_string(kFeatureVersion) + " (and reads " +
                             std::to_string(kPreviousFeatureVersion) + "): retrain them");
  CostModelWeights w;
  std::map<std::string, std::vector<double>> arrays;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (!(fields >> key)) continue;
    if (key == "gpu") {
      fields >> w.gpu;
      continue;
    }
    if (key == "provenance") {
      std::getline(fields >> std::ws, w.provenance);
      continue;
    }
    size_t count = 0;
    if (!(fields >> count) || count > 100000) throw std::runtime_error("cost model weights: bad line for '" + key + "'");
    std::vector<double> values(count);
    for (double &v : values)
      if (!(fields >> v) || !std::isfinite(v)) throw std::runtime_error("cost model weights: bad value in '" + key + "'");
    arrays[key] = std::move(values);
  }
  read_array(arrays, "pipeline_mean", w.pipeline_mean);
  read_array(arrays, "pipeline_scale", w.pipeline_scale);
  read_array(arrays, "embed", w.embed);
  read_array(arrays, "combine", w.combine);
  read_array(arrays, "combine_bias", w.combine_bias);
  read_array(arrays, "schedule_bias", w.schedule_bias);
  if (!previous) {
    read_array(arrays, "schedule_mean", w.schedule_mean);
    read_array(arrays, "schedule_scale", w.schedule_scale);
    read_array(arrays, "schedule", w.schedule);
    read_array(arrays, "output", w.output);
    read_array(arrays, "output_bias", w.output_bias);
    return w;
  }
  // Version 2: the same network less the terms version 3 appended (inputs and outputs), which
  // get zero weights (and mean 0, scale 1): it predicts what it did in a build of version 2.
  const int old_inputs = kScheduleInputs - kTermsAddedInVersion3, old_terms = kTermCount - kTermsAddedInVersion3;
  w.schedule_mean.setZero();
  w.schedule_scale.setOnes();
  w.schedule.setZero();
  w.output.setZero();
  w.output_bias.setZero();
  read_corner(arrays, "schedule_mean", w.schedule_mean, old_inputs, 1);
  read_corner(arrays, "schedule_scale", w.schedule_scale, old_inputs, 1);
  read_corner(arrays, "schedule", w.schedule, kHidden, old_inputs);
  read_corner(arrays, "output", w.output, old_terms, kHidden);
  read_corner(arrays, "output_bias", w.output_bias, old_terms, 1);
  return w;
}

CostModelWeights CostModelWeights::load(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read cost model weights " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return parse(text.str());
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

void CostModelWeights::save(const std::string &path) const {
  const std::string text = to_text();
  replace_file(path, std::ios::out, [&text](std::ostream &out) { out << text; });
}

void network_inputs(const KernelFeatures &f, Eigen::Matrix<double, kPfCount, 1> &pipeline,
                    Eigen::Matrix<double, kScheduleInputs, 1> &schedule) {
  for (int i = 0; i < kPfCount; i++) pipeline[i] = std::log1p(std::max(0.0, f.pipeline[size_t(i)]));
  for (int i = 0; i < kSfCount; i++) schedule[i] = std::log1p(std::max(0.0, f.schedule[size_t(i)]));
  for (int i = 0; i < kTermCount; i++)
    schedule[kSfCount + i] = std::log(kTermFloorMs + std::max(0.0, f.terms_ms[size_t(i)]));
  // The network reads the launch term at the scale its weights were trained with, so the
  // embedded weights still compute the coefficients they did.
  schedule[kSfCount + kTermLaunch] =
      std::log(kTermFloorMs + kOldLaunchPerLaunch * std::max(0.0, f.terms_ms[size_t(kTermLaunch)]));
}

CostModelForward forward(const CostModelWeights &w, const KernelFeatures &f) {
  Eigen::Matrix<double, kPfCount, 1> pipeline;
  Eigen::Matrix<double, kScheduleInputs, 1> schedule;
  network_inputs(f, pipeline, schedule);
  return forward(w, f, pipeline, schedule);
}

CostModelForward forward(const CostModelWeights &w, const KernelFeatures &f,
                         const Eigen::Matrix<double, kPfCount, 1> &pipeline_inputs,
                         const Eigen::Matrix<double, kScheduleInputs, 1> &schedule_inputs) {
  CostModelForward fwd;
  fwd.pipeline_in = (pipeline_inputs - w.pipeline_mean).cwiseProduct(w.pipeline_scale);
  fwd.schedule_in = (schedule_inputs - w.schedule_mean).cwiseProduct(w.schedule_scale);
  fwd.combined.head<kEmbed>() = w.embed * fwd.pipeline_in;
  fwd.schedule_pre = w.schedule * fwd.schedule_in + w.schedule_bias;
  fwd.combined.tail<kHidden>() = fwd.schedule_pre.unaryExpr([](double v) { return v > 0 ? v : kLeak * v; });
  fwd.hidden = (w.combine * fwd.combined + w.combine_bias).cwiseMax(0.0);
  const CostTerms &hand = hand_coefficients();
  fwd.raw = w.output * fwd.hidden + w.output_bias;
  for (int i = 0; i < kTermCount; i++) fwd.raw[i] += hand[size_t(i)];
  fwd.coefficients = fwd.raw.cwiseMax(0.0);
  fwd.predicted_ms = 0;
  for (int i = 0; i < kTermCount; i++) fwd.predicted_ms += fwd.coefficients[i] * f.terms_ms[size_t(i)];
  return fwd;
}

CostModelEnsemble parse_weights_ensemble(const std::string &text) {
  // Members start at each line that begins with the magic word.
  std::vector<size_t> starts;
  for (size_t at = 0; at < text.size(); at = text.find('\n', at) == std::string::npos ? text.size() : text.find('\n', at) + 1)
    if (text.compare(at, sizeof kMagic - 1, kMagic) == 0) starts.push_back(at);
  if (starts.empty()) throw std::runtime_error("not a cost model weights file");
  CostModelEnsemble members;
  for (size_t i = 0; i < starts.size(); i++) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
    try {
      members.push_back(CostModelWeights::parse(text.substr(starts[i], end - starts[i])));
    } catch (const std::runtime_error &e) {
      if (starts.size() == 1) throw;
      throw std::runtime_error("member " + std::to_string(i + 1) + " of " + std::to_string(starts.size()) + ": " + e.what());
    }
  }
  return members;
}

CostModelEnsemble load_weights_ensemble(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read cost model weights " + path);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return parse_weights_ensemble(text.str());
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

std::string ensemble_to_text(const CostModelEnsemble &members) {
  std::string text;
  for (const CostModelWeights &w : members) text += w.to_text();
  return text;
}

EnsemblePrediction predict_with_ensemble(const CostModelEnsemble &members, const KernelFeatures &f) {
  Eigen::Matrix<double, kPfCount, 1> pipeline;
  Eigen::Matrix<double, kScheduleInputs, 1> schedule;
  network_inputs(f, pipeline, schedule);
  EnsemblePrediction out;
  out.coefficients.setZero();
  for (const CostModelWeights &w : members) out.coefficients += forward(w, f, pipeline, schedule).coefficients;
  out.coefficients /= double(std::max<size_t>(1, members.size()));
  for (int i = 0; i < kTermCount; i++) out.predicted_ms += out.coefficients[i] * f.terms_ms[size_t(i)];
  return out;
}

CostModelGradient zero_gradient() {
  CostModelGradient g;
  g.embed.setZero();
  g.schedule.setZero();
  g.schedule_bias.setZero();
  g.combine.setZero();
  g.combine_bias.setZero();
  g.output.setZero();
  g.output_bias.setZero();
  return g;
}

void backward(const CostModelWeights &w, const KernelFeatures &f, const CostModelForward &fwd, double d_ms,
              CostModelGradient &grad) {
  Eigen::Matrix<double, kTermCount, 1> d_raw;
  for (int i = 0; i < kTermCount; i++) {
    const double d_coef = d_ms * f.terms_ms[size_t(i)];
    // max(0, raw): a coefficient at zero still moves when the loss wants it larger (a projected
    // gradient), so a term switched off early can come back.
    d_raw[i] = fwd.raw[i] > 0 || d_coef < 0 ? d_coef : 0.0;
  }
  grad.output.noalias() += d_raw * fwd.hidden.transpose();
  grad.output_bias += d_raw;
  Eigen::Matrix<double, kHidden, 1> d_hidden = w.output.transpose() * d_raw;
  for (int i = 0; i < kHidden; i++)
    if (fwd.hidden[i] <= 0) d_hidden[i] = 0;
  grad.combine.noalias() += d_hidden * fwd.combined.transpose();
  grad.combine_bias += d_hidden;
  const Eigen::Matrix<double, kCombined, 1> d_combined = w.combine.transpose() * d_hidden;
  grad.embed.noalias() += d_combined.head<kEmbed>() * fwd.pipeline_in.transpose();
  Eigen::Matrix<double, kHidden, 1> d_pre = d_combined.tail<kHidden>();
  for (int i = 0; i < kHidden; i++)
    if (fwd.schedule_pre[i] <= 0) d_pre[i] *= kLeak;
  grad.schedule.noalias() += d_pre * fwd.schedule_in.transpose();
  grad.schedule_bias += d_pre;
}

LearnedCostModel::LearnedCostModel(CostModelWeights weights, std::string source)
    : LearnedCostModel(CostModelEnsemble{std::move(weights)}, std::move(source)) {}

LearnedCostModel::LearnedCostModel(CostModelEnsemble members, std::string source)
    : members_(std::move(members)), source_(std::move(source)) {
  if (members_.empty()) throw std::invalid_argument("a learned cost model needs at least one network");
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(ensemble_to_text(members_))));
  fingerprint_ = hex;
}

KernelCost LearnedCostModel::cost(const PipelineDag &dag, const ScheduleState &state, const KernelModel &kernel,
                                  const GpuProfile &gpu) const {
  if (kernel.partials_regroup > 0) {
    // A total's partial results combined in two levels change only the combine's steps and two
    // launches. No feature tells the network the levels apart and its data has none, and its
    // coefficients cannot price the combine alone: its reduction_chain term holds both the
    // partial results' steps and the combine's, and the coefficient, fit mostly to the former,
    // puts a combine step at ~2 ns where CUPTI measures 22-25 ns. So it prices the kernel with
    // one level, and the hand model's difference is added, at most halving it (measured on an
    // H100: 1.23x faster on 10 pipelines, the combine 25 us -> 3 us; the network alone priced
    // the two levels 1.1-1.5x slower).
    KernelModel one_level = kernel;
    one_level.partials_regroup = 0;
    KernelCost c = cost(dag, state, one_level, gpu);
    const KernelCost with = cost_of_kernel(kernel, gpu), without = cost_of_kernel(one_level, gpu);
    c.total_ms = std::max(c.total_ms + with.total_ms - without.total_ms, 0.5 * c.total_ms);
    // Its two more launches are launches (search_price_ms counts them as it counts the others).
    const auto launches = [](const KernelCost &k) { return k.terms_ms.count("launch") ? k.terms_ms.at("launch") : 0.0; };
    c.terms_ms["launch"] += launches(with) - launches(without);
    return c;
  }
  const KernelFeatures f = kernel_features(dag, state, kernel, gpu);
  const EnsemblePrediction fwd = predict_with_ensemble(members_, f);
  KernelCost cost;
  cost.total_ms = fwd.predicted_ms;
  double largest = -1;
  const auto &names = cost_term_names();
  for (int i = 0; i < kTermCount; i++) {
    const double contribution = fwd.coefficients[i] * f.terms_ms[size_t(i)];
    if (contribution == 0) continue;
    cost.terms_ms[names[size_t(i)]] = contribution;
    if (contribution > largest) largest = contribution, cost.bound = names[size_t(i)];
  }
  cost.occupancy = f.schedule[kSfOccupancy];
  return cost;
}

bool learned_weights_available(const AutoschedulerOptions &options) {
  return !options.weights.empty() || !embedded_weights_text(options.gpu_profile).empty();
}

std::shared_ptr<const LearnedCostModel> select_cost_model(const AutoschedulerOptions &options) {
  if (options.model == "hand") return nullptr;
  // "both" (hand and learned together, autoscheduler.cpp) reports the learned model's costs; the
  // default, it falls back to the hand model alone on a GPU nobody has trained weights for.
  if (options.model != "learned" && options.model != "both")
    throw std::invalid_argument("unknown cost model '" + options.model + "' (hand, learned, both)");
  if (options.model == "both" && !learned_weights_available(options)) return nullptr;
  if (!options.weights.empty())
    return std::make_shared<const LearnedCostModel>(load_weights_ensemble(options.weights), options.weights);
  const std::string text = embedded_weights_text(options.gpu_profile);
  if (text.empty())
    throw std::invalid_argument("no embedded cost model weights for GPU '" + options.gpu_profile +
                                "': train some (hlsched train) and pass --weights, or use --model hand");
  return std::make_shared<const LearnedCostModel>(parse_weights_ensemble(text), "embedded " + options.gpu_profile);
}

KernelCost predict_kernel_cost(const LearnedCostModel *model, const PipelineDag &dag, const ScheduleState &state,
                               const KernelModel &kernel, const GpuProfile &gpu) {
  return model ? model->cost(dag, state, kernel, gpu) : cost_of_kernel(kernel, gpu);
}

}  // namespace hlsched
