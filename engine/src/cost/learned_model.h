// The hybrid cost model: a small network reads a kernel's features (features.h) and outputs one
// non-negative coefficient per named cost term; the kernel's predicted time is the sum of
// coefficient x term, a pipeline's the sum over its kernels. Because the terms keep their
// physical meaning, the per-stage breakdown shown to users stays explainable.
//
//   pipeline features --log, normalize--> linear embedding (kEmbed) --------------.
//   schedule features + terms --log, normalize--> linear + leaky ReLU (kHidden) --+--> linear + ReLU
//   (kHidden) --> linear (kTermCount) --> coefficient = max(0, hand coefficient + output)
//
// The output layer starts at zero, so an untrained network reproduces the hand model exactly.
// Weights are a plain text file (versioned, with the feature version they were made for); the
// default weights per GPU are compiled into the binary (cost/weights/, a CMake step). A file may
// hold several networks one after another (an ensemble, CostModelEnsemble): the model averages
// their coefficients.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "cost/features.h"

namespace hlsched {

struct AutoschedulerOptions;

constexpr int kEmbed = 8;
constexpr int kHidden = 16;
constexpr int kScheduleInputs = kSfCount + kTermCount;  ///< schedule features and the terms themselves
constexpr int kCombined = kEmbed + kHidden;

struct CostModelWeights {
  // Normalization of the log-scaled inputs (from the training set).
  Eigen::Matrix<double, kPfCount, 1> pipeline_mean = Eigen::Matrix<double, kPfCount, 1>::Zero();
  Eigen::Matrix<double, kPfCount, 1> pipeline_scale = Eigen::Matrix<double, kPfCount, 1>::Ones();
  Eigen::Matrix<double, kScheduleInputs, 1> schedule_mean = Eigen::Matrix<double, kScheduleInputs, 1>::Zero();
  Eigen::Matrix<double, kScheduleInputs, 1> schedule_scale = Eigen::Matrix<double, kScheduleInputs, 1>::Ones();

  Eigen::Matrix<double, kEmbed, kPfCount> embed;                  ///< pipeline embedding
  Eigen::Matrix<double, kHidden, kScheduleInputs> schedule;       ///< schedule layer
  Eigen::Matrix<double, kHidden, 1> schedule_bias;
  Eigen::Matrix<double, kHidden, kCombined> combine;              ///< combining layer
  Eigen::Matrix<double, kHidden, 1> combine_bias;
  Eigen::Matrix<double, kTermCount, kHidden> output;              ///< coefficient offsets
  Eigen::Matrix<double, kTermCount, 1> output_bias;

  std::string gpu;          ///< the GPU profile the weights were trained for
  std::string provenance;   ///< one line: data, date, command

  /// Small random hidden layers (deterministic per seed), zero output layer: the hand model.
  static CostModelWeights initial(uint64_t seed);

  /// Plain text: "hlsched-cost-weights 1", "feature_version N", then one line per array
  /// ("name count v1 v2 ..."). parse() throws std::runtime_error naming what is wrong; it reads
  /// kFeatureVersion and kPreviousFeatureVersion (whose network gets zero weights for the terms
  /// added since, so it predicts as it did) and refuses others.
  std::string to_text() const;
  static CostModelWeights parse(const std::string &text);
  static CostModelWeights load(const std::string &path);
  void save(const std::string &path) const;
};

/// What the network computes for one kernel, kept for training's backward pass.
struct CostModelForward {
  Eigen::Matrix<double, kPfCount, 1> pipeline_in;
  Eigen::Matrix<double, kScheduleInputs, 1> schedule_in;
  Eigen::Matrix<double, kCombined, 1> combined;       ///< embedding, then leaky-ReLU schedule layer
  Eigen::Matrix<double, kHidden, 1> schedule_pre;     ///< before the leaky ReLU
  Eigen::Matrix<double, kHidden, 1> hidden;           ///< after the ReLU
  Eigen::Matrix<double, kTermCount, 1> raw;           ///< hand coefficient + output layer
  Eigen::Matrix<double, kTermCount, 1> coefficients;  ///< max(0, raw)
  double predicted_ms = 0;
};

/// The network's inputs for a kernel (log-scaled, not yet normalized).
void network_inputs(const KernelFeatures &f, Eigen::Matrix<double, kPfCount, 1> &pipeline,
                    Eigen::Matrix<double, kScheduleInputs, 1> &schedule);

CostModelForward forward(const CostModelWeights &w, const KernelFeatures &f);
/// The same from network_inputs() already computed (an ensemble's members share them).
CostModelForward forward(const CostModelWeights &w, const KernelFeatures &f,
                         const Eigen::Matrix<double, kPfCount, 1> &pipeline_inputs,
                         const Eigen::Matrix<double, kScheduleInputs, 1> &schedule_inputs);

/// Several networks trained alike from different seeds (a weights file may hold several, one
/// after another, each a complete weights text): their coefficients are averaged, so the
/// prediction is the mean of theirs. Averaging cancels much of what one seed's network gets wrong
/// on pipelines it never saw (docs/PERFORMANCE.md, "Cost model, fifth round").
using CostModelEnsemble = std::vector<CostModelWeights>;
/// Throws std::runtime_error as CostModelWeights::parse does, naming the member.
CostModelEnsemble parse_weights_ensemble(const std::string &text);
CostModelEnsemble load_weights_ensemble(const std::string &path);
std::string ensemble_to_text(const CostModelEnsemble &members);

/// The ensemble's mean coefficients and prediction for one kernel.
struct EnsemblePrediction {
  Eigen::Matrix<double, kTermCount, 1> coefficients;
  double predicted_ms = 0;
};
EnsemblePrediction predict_with_ensemble(const CostModelEnsemble &members, const KernelFeatures &f);

/// Gradients of the weights (same shapes; normalization and metadata unused).
using CostModelGradient = CostModelWeights;
CostModelGradient zero_gradient();
/// Adds to `grad` the gradient of a loss whose derivative by the kernel's predicted ms is `d_ms`.
void backward(const CostModelWeights &w, const KernelFeatures &f, const CostModelForward &fwd, double d_ms,
              CostModelGradient &grad);

/// The learned model as the search uses it.
class LearnedCostModel {
public:
  explicit LearnedCostModel(CostModelWeights weights, std::string source);
  LearnedCostModel(CostModelEnsemble members, std::string source);

  /// The kernel's cost: terms_ms holds coefficient x term for every term that contributes.
  KernelCost cost(const PipelineDag &dag, const ScheduleState &state, const KernelModel &kernel,
                  const GpuProfile &gpu) const;
  const std::string &source() const { return source_; }  ///< "embedded h200" or a file path
  const std::string &fingerprint() const { return fingerprint_; }  ///< hash of the weights, hex
  const CostModelWeights &weights() const { return members_.front(); }  ///< the first member
  const CostModelEnsemble &members() const { return members_; }

private:
  CostModelEnsemble members_;
  std::string source_;
  std::string fingerprint_;
};

/// A weights file's provenance in one short line for people (hovers, `hlsched schedule`): the
/// list of measured builds "data: N pipelines (GPU DATE COMMIT, ...)" becomes its GPUs, first and
/// last date and count; anything not in that form is returned as it is.
std::string provenance_summary(const std::string &provenance);

/// Whether the options name a weights file or their GPU profile has embedded weights.
bool learned_weights_available(const AutoschedulerOptions &options);

/// The model `options` ask for: nullptr for the hand model ("hand", and "both" where no learned
/// weights are available: the hand model alone), else ("learned", or "both" whose reported costs
/// are the learned model's) the learned model with options.weights (a file) or the GPU's embedded
/// weights. Throws std::invalid_argument for an unknown model name, unreadable weights or
/// "learned" on a GPU without embedded weights.
std::shared_ptr<const LearnedCostModel> select_cost_model(const AutoschedulerOptions &options);

/// A kernel's cost under `model` (the hand model when null).
KernelCost predict_kernel_cost(const LearnedCostModel *model, const PipelineDag &dag, const ScheduleState &state,
                               const KernelModel &kernel, const GpuProfile &gpu);

/// The embedded default weights of a GPU profile ("" when there are none).
std::string embedded_weights_text(const std::string &gpu_name);

}  // namespace hlsched
