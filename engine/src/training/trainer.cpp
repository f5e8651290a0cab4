// Training the hybrid cost model: the loss, Adam, the split by pipeline and the metrics.
//
// Loss per schedule s of pipeline g, with r_s = log(predicted_s) - log(measured_s), predicted_s
// the sum of its kernels' predictions plus the GPU profile's cost per call:
//   relative_weight * (r_s - mean_g r)^2   how schedules of one pipeline compare (ranking)
// + absolute_weight * r_s^2                 the times themselves
// + kernel_weight * (log e_k - log m_k)^2   per kernel, where CUPTI measured it
// + hand_prior_weight * (log p_k - log h_k)^2  per kernel: learned p_k against the hand model's h_k
// Log errors make a 2x too slow and a 2x too fast prediction equally bad. e_k is the kernel's
// prediction without its launch term: CUPTI times a kernel from its start on the GPU, the launch
// overhead shows only in the pipeline's time (between kernels). Compared with the launch term
// included, the many tiny kernels (half of the dataset's, under 5 us) pulled the launch
// coefficient one way and the pipeline times the other.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <stdexcept>

#include "cost/learned_model.h"
#include "hlsched/engine/cost_training.h"
#include "hlsched/engine/gpu_profile.h"
#include "training/rows.h"

namespace hlsched {

namespace {

struct Sample {
  std::vector<KernelFeatures> kernels;
  std::vector<double> kernel_measured_ms;  ///< < 0: unknown
  double measured_ms = 0;
};

struct Group {
  std::string id;
  std::vector<Sample> schedules;
};

uint64_t id_hash(const std::string &id) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a: the same split on every platform
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::vector<Group> usable_groups(const TrainingSet &set) {
  std::vector<Group> groups;
  for (const PipelineRows &p : set.pipelines) {
    Group g{p.id, {}};
    for (const ScheduleRow &s : p.schedules) {
      if (s.kernels.empty() || !(s.measured_ms > 0)) continue;
      Sample sample;
      sample.measured_ms = s.measured_ms;
      for (const KernelRow &k : s.kernels) {
        sample.kernels.push_back(features_of_row(k));
        sample.kernel_measured_ms.push_back(k.measured_ms);
      }
      g.schedules.push_back(std::move(sample));
    }
    if (!g.schedules.empty()) groups.push_back(std::move(g));
  }
  return groups;
}

// Mean and 1/std of the network's log-scaled inputs over the training kernels.
void set_normalization(CostModelWeights &w, const std::vector<const Group *> &groups) {
  Eigen::Matrix<double, kPfCount, 1> p, p_sum = decltype(p)::Zero(), p_sq = decltype(p)::Zero();
  Eigen::Matrix<double, kScheduleInputs, 1> s, s_sum = decltype(s)::Zero(), s_sq = decltype(s)::Zero();
  double n = 0;
  for (const Group *g : groups)
    for (const Sample &sample : g->schedules)
      for (const KernelFeatures &f : sample.kernels) {
        network_inputs(f, p, s);
        p_sum += p, p_sq += p.cwiseProduct(p), s_sum += s, s_sq += s.cwiseProduct(s), n += 1;
      }
  if (n == 0) return;
  auto scale_of = [](double variance) { return variance > 1e-12 ? 1.0 / std::sqrt(variance) : 1.0; };
  w.pipeline_mean = p_sum / n;
  w.schedule_mean = s_sum / n;
  for (int i = 0; i < kPfCount; i++) w.pipeline_scale[i] = scale_of(p_sq[i] / n - w.pipeline_mean[i] * w.pipeline_mean[i]);
  for (int i = 0; i < kScheduleInputs; i++)
    w.schedule_scale[i] = scale_of(s_sq[i] / n - w.schedule_mean[i] * w.schedule_mean[i]);
}

// Calls f(data, size) for each trained array of `w`, always in the same order.
template <typename W, typename F>
void for_each_parameter(W &w, F f) {
  f(w.embed.data(), w.embed.size());
  f(w.schedule.data(), w.schedule.size());
  f(w.schedule_bias.data(), w.schedule_bias.size());
  f(w.combine.data(), w.combine.size());
  f(w.combine_bias.data(), w.combine_bias.size());
  f(w.output.data(), w.output.size());
  f(w.output_bias.data(), w.output_bias.size());
}

class Adam {
public:
  explicit Adam(double learning_rate) : rate_(learning_rate) {}

  void step(CostModelWeights &w, CostModelGradient &g) {
    std::vector<double *> params, grads;
    std::vector<Eigen::Index> sizes;
    for_each_parameter(w, [&](double *d, Eigen::Index n) { params.push_back(d), sizes.push_back(n); });
    for_each_parameter(g, [&](double *d, Eigen::Index) { grads.push_back(d); });
    if (m_.empty()) {
      const Eigen::Index total = std::accumulate(sizes.begin(), sizes.end(), Eigen::Index(0));
      m_.assign(size_t(total), 0.0);
      v_.assign(size_t(total), 0.0);
    }
    t_++;
    const double correction1 = 1 - std::pow(kBeta1, double(t_)), correction2 = 1 - std::pow(kBeta2, double(t_));
    size_t at = 0;
    for (size_t a = 0; a < params.size(); a++)
      for (Eigen::Index i = 0; i < sizes[a]; i++, at++) {
        const double grad = grads[a][i];
        m_[at] = kBeta1 * m_[at] + (1 - kBeta1) * grad;
        v_[at] = kBeta2 * v_[at] + (1 - kBeta2) * grad * grad;
        params[a][i] -= rate_ * (m_[at] / correction1) / (std::sqrt(v_[at] / correction2) + 1e-8);
      }
  }

private:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999;
  double rate_;
  std::vector<double> m_, v_;
  int64_t t_ = 0;
};

constexpr double kFloorMs = 1e-9;  // predictions are clamped here before the log

// A kernel's predicted time on the GPU, what CUPTI measures: all but its launch term.
double execution_ms(const KernelFeatures &f, double predicted_ms, double launch_coefficient) {
  return predicted_ms - launch_coefficient * f.terms_ms[kTermLaunch];
}
double execution_ms(const KernelFeatures &f, const CostModelForward &fwd) {
  return execution_ms(f, fwd.predicted_ms, fwd.coefficients[kTermLaunch]);
}
double hand_execution_ms(const KernelFeatures &f) {
  return f.hand_ms - hand_coefficients()[kTermLaunch] * f.terms_ms[kTermLaunch];
}

// The loss of `groups` under `w`; with `grad`, adds its gradient.
double loss_of(const CostModelWeights &w, const std::vector<const Group *> &groups, const TrainOptions &o,
               CostModelGradient *grad) {
  double schedules = 0, measured_kernels = 0, kernels = 0;
  for (const Group *g : groups)
    for (const Sample &s : g->schedules) {
      schedules += 1;
      kernels += double(s.kernels.size());
      for (double m : s.kernel_measured_ms) measured_kernels += m > 0;
    }
  if (schedules == 0) return 0;
  const double call_ms = pipeline_call_ms(o.gpu);  // the network's kernels need not absorb it
  double loss = 0;
  std::vector<std::vector<CostModelForward>> forwards;
  std::vector<double> r, predicted;
  for (const Group *g : groups) {
    forwards.assign(g->schedules.size(), {});
    r.assign(g->schedules.size(), 0);
    predicted.assign(g->schedules.size(), call_ms);
    double mean_r = 0;
    for (size_t i = 0; i < g->schedules.size(); i++) {
      const Sample &s = g->schedules[i];
      for (const KernelFeatures &f : s.kernels) {
        forwards[i].push_back(forward(w, f));
        predicted[i] += forwards[i].back().predicted_ms;
      }
      r[i] = std::log(std::max(predicted[i], kFloorMs)) - std::log(s.measured_ms);
      mean_r += r[i] / double(g->schedules.size());
    }
    for (size_t i = 0; i < g->schedules.size(); i++) {
      const Sample &s = g->schedules[i];
      loss += (o.relative_weight * (r[i] - mean_r) * (r[i] - mean_r) + o.absolute_weight * r[i] * r[i]) / schedules;
      const double d_r = (2 * o.relative_weight * (r[i] - mean_r) + 2 * o.absolute_weight * r[i]) / schedules;
      const double d_total = d_r / std::max(predicted[i], kFloorMs);
      for (size_t k = 0; k < s.kernels.size(); k++) {
        double d_kernel = d_total;
        if (o.hand_prior_weight > 0) {  // same inputs as the pipeline term: one backward pass for both
          const double p = std::max(forwards[i][k].predicted_ms, kFloorMs);
          const double e = std::log(p) - std::log(std::max(s.kernels[k].hand_ms, kFloorMs));
          loss += o.hand_prior_weight * e * e / kernels;
          d_kernel += 2 * o.hand_prior_weight * e / kernels / p;
        }
        const double measured = s.kernel_measured_ms[k];
        if (grad) backward(w, s.kernels[k], forwards[i][k], d_kernel, *grad);
        if (measured > 0 && o.kernel_weight > 0) {
          const double p = std::max(execution_ms(s.kernels[k], forwards[i][k]), kFloorMs);
          const double e = std::log(p) - std::log(measured);
          loss += o.kernel_weight * e * e / measured_kernels;
          if (grad) {
            KernelFeatures without_launch = s.kernels[k];
            without_launch.terms_ms[kTermLaunch] = 0;
            backward(w, without_launch, forwards[i][k], 2 * o.kernel_weight * e / measured_kernels / p, *grad);
          }
        }
      }
    }
  }
  return loss;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&v](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) j++;
    for (size_t k = i; k <= j; k++) r[order[k]] = 0.5 * double(i + j);  // ties share their mean rank
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double> &a, const std::vector<double> &b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = double(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); i++) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0.0;
}

// `weights` null: the hand model (each kernel's hand_ms).
PredictionMetrics metrics_of(const std::vector<const Group *> &groups, const CostModelEnsemble *weights,
                             double call_ms) {
  PredictionMetrics m;
  std::vector<double> errors, kernel_errors;
  double log_ratio_sum = 0, rank_sum = 0;
  int ranked = 0;
  for (const Group *g : groups) {
    std::vector<double> predicted, measured;
    for (const Sample &s : g->schedules) {
      double total = call_ms;
      for (size_t k = 0; k < s.kernels.size(); k++) {
        double p = s.kernels[k].hand_ms, on_gpu = hand_execution_ms(s.kernels[k]);
        if (weights) {
          const EnsemblePrediction fwd = predict_with_ensemble(*weights, s.kernels[k]);
          p = fwd.predicted_ms;
          on_gpu = execution_ms(s.kernels[k], fwd.predicted_ms, fwd.coefficients[kTermLaunch]);
        }
        total += p;
        if (s.kernel_measured_ms[k] > 0) {
          kernel_errors.push_back(std::fabs(on_gpu - s.kernel_measured_ms[k]) / s.kernel_measured_ms[k]);
          m.kernels++;
        }
      }
      total = std::max(total, kFloorMs);
      predicted.push_back(total);
      measured.push_back(s.measured_ms);
      errors.push_back(std::fabs(total - s.measured_ms) / s.measured_ms);
      const double ratio = total / s.measured_ms;
      log_ratio_sum += std::log(ratio);
      m.worst_ratio = std::max({m.worst_ratio, ratio, 1 / ratio});
      m.schedules++;
    }
    m.pipelines++;
    if (predicted.size() >= 3) {
      rank_sum += spearman(predicted, measured);
      ranked++;
    }
  }
  m.median_pipeline_error = median(errors);
  m.median_kernel_error = median(kernel_errors);
  m.geomean_ratio = m.schedules ? std::exp(log_ratio_sum / m.schedules) : 1.0;
  m.rank_correlation = ranked ? rank_sum / ranked : 0.0;
  return m;
}

std::vector<const Group *> pointers(const std::vector<Group> &groups) {
  std::vector<const Group *> out;
  for (const Group &g : groups) out.push_back(&g);
  return out;
}

// One network, initialized and shuffled by `seed`; its loss curves go to `report`.
CostModelWeights train_network(const std::vector<const Group *> &training, const std::vector<const Group *> &validation,
                               const TrainOptions &options, uint64_t seed, TrainReport &report) {
  CostModelWeights w = CostModelWeights::initial(seed);
  w.gpu = options.gpu;
  set_normalization(w, training);
  Adam adam(options.learning_rate);
  std::mt19937_64 rng(seed);
  const size_t batch = size_t(std::max(1, options.pipelines_per_batch));
  std::vector<const Group *> order = training;
  report.initial_training_loss = loss_of(w, training, options, nullptr);
  report.training_loss.clear();
  report.validation_loss.clear();
  for (int epoch = 0; epoch < options.epochs; epoch++) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t start = 0; start < order.size(); start += batch) {
      const std::vector<const Group *> part(order.begin() + long(start),
                                            order.begin() + long(std::min(order.size(), start + batch)));
      CostModelGradient grad = zero_gradient();
      loss_of(w, part, options, &grad);
      adam.step(w, grad);
    }
    report.training_loss.push_back(loss_of(w, training, options, nullptr));
    report.validation_loss.push_back(loss_of(w, validation, options, nullptr));
  }
  return w;
}

std::string shortest(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

}  // namespace

bool held_out_of_training(const std::string &id, const TrainOptions &options) {
  for (const std::string &prefix : options.held_out_prefixes)
    if (id.rfind(prefix, 0) == 0) return true;
  return options.validation_one_in > 0 &&
         id_hash(id) % uint64_t(options.validation_one_in) == uint64_t(options.validation_fold);
}

TrainReport train_cost_model(const TrainingSet &set, const TrainOptions &options) {
  const std::vector<Group> groups = usable_groups(set);
  std::vector<const Group *> training, validation;
  for (const Group &g : groups) (held_out_of_training(g.id, options) ? validation : training).push_back(&g);
  if (training.empty()) throw std::runtime_error("no training pipelines with measured schedules in the dataset");

  TrainReport report;
  report.training_pipelines = int(training.size());
  report.validation_pipelines = int(validation.size());
  // Members differ only by seed (seed, seed + 1, ...): the same data, the same split. The report's
  // loss curves are the first member's.
  CostModelEnsemble members;
  std::vector<uint64_t> seeds;
  const int count = std::max(1, options.members);
  for (int m = 0; m < count; m++) {
    TrainReport member_report;
    uint64_t kept_seed = options.seed + uint64_t(m);
    CostModelWeights kept = train_network(training, validation, options, kept_seed, member_report);
    for (int r = 1; r < options.restarts; r++) {
      TrainReport trial_report;
      const uint64_t seed = options.seed + uint64_t(m) + uint64_t(r) * uint64_t(count);
      CostModelWeights trial = train_network(training, validation, options, seed, trial_report);
      if (trial_report.training_loss.back() < member_report.training_loss.back()) {
        kept = std::move(trial);
        kept_seed = seed;
        member_report = std::move(trial_report);
      }
    }
    members.push_back(std::move(kept));
    seeds.push_back(kept_seed);
    if (m == 0) {
      report.initial_training_loss = member_report.initial_training_loss;
      report.training_loss = member_report.training_loss;
      report.validation_loss = member_report.validation_loss;
    }
  }
  const double call_ms = pipeline_call_ms(options.gpu);
  report.hand_training = metrics_of(training, nullptr, call_ms);
  report.learned_training = metrics_of(training, &members, call_ms);
  report.hand_validation = metrics_of(validation, nullptr, call_ms);
  report.learned_validation = metrics_of(validation, &members, call_ms);
  for (size_t m = 0; m < members.size(); m++)
    members[m].provenance = set.provenance + "; trained on " + std::to_string(training.size()) + " pipelines, seed " +
                            std::to_string(seeds[m]) + ", " + std::to_string(options.epochs) + " epochs" +
                            (options.hand_prior_weight > 0 ? ", hand prior " + shortest(options.hand_prior_weight) : "") +
                            (count > 1 ? ", member " + std::to_string(m + 1) + " of " + std::to_string(count) : "");
  report.weights_text = ensemble_to_text(members);
  return report;
}

PredictionMetrics evaluate_cost_model(const TrainingSet &set, const std::string &weights_text) {
  const std::vector<Group> groups = usable_groups(set);
  if (weights_text.empty()) return metrics_of(pointers(groups), nullptr, pipeline_call_ms(TrainOptions{}.gpu));
  const CostModelEnsemble w = parse_weights_ensemble(weights_text);
  return metrics_of(pointers(groups), &w, pipeline_call_ms(w.front().gpu));
}

double pipeline_call_ms(const std::string &gpu) { return find_gpu_profile(gpu).pipeline_call_seconds * 1e3; }

std::string weights_gpu(const std::string &weights_text) {
  return weights_text.empty() ? TrainOptions{}.gpu : parse_weights_ensemble(weights_text).front().gpu;
}

std::vector<double> predict_kernels_ms(const std::string &weights_text, const std::vector<KernelRow> &kernels,
                                       bool without_launch) {
  std::vector<double> ms;
  if (weights_text.empty()) {
    for (const KernelRow &k : kernels)
      ms.push_back(without_launch ? hand_execution_ms(features_of_row(k)) : k.hand_ms);
    return ms;
  }
  const CostModelEnsemble w = parse_weights_ensemble(weights_text);
  for (const KernelRow &k : kernels) {
    const KernelFeatures f = features_of_row(k);
    const EnsemblePrediction fwd = predict_with_ensemble(w, f);
    ms.push_back(without_launch ? execution_ms(f, fwd.predicted_ms, fwd.coefficients[kTermLaunch]) : fwd.predicted_ms);
  }
  return ms;
}

std::string reserialize_weights(const std::string &weights_text) {
  return ensemble_to_text(parse_weights_ensemble(weights_text));
}

std::string initial_weights_text(uint64_t seed, const std::string &gpu) {
  CostModelWeights w = CostModelWeights::initial(seed);
  w.gpu = gpu;
  return w.to_text();
}

}  // namespace hlsched
