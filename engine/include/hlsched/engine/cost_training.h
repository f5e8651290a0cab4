// Training the learned cost model (engine/src/cost/learned_model.h) on measured runtimes.
//
// 1. featurize_schedules(): inside a worker, each measured schedule of a pipeline is rebuilt as a
//    search state (a random-walk sample by (seed, index), or a saved state) and every kernel's
//    features and cost terms are computed with this build's feature version.
// 2. The rows, with the measured pipeline time and the kernels' CUPTI times, form a TrainingSet;
//    its plain text form is the feature cache and the checked-in test data.
// 3. train_cost_model(): Adam on a loss over relative times among schedules of one pipeline plus
//    an absolute log-time term (and per-kernel log-time where CUPTI times exist), deterministic
//    for a seed, validated on pipelines held out by a hash of their id (never by sample).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

/// The feature version this build computes (weights and caches record theirs).
int cost_feature_version();

/// Names of the cost terms, in the order of KernelRow::values' last part.
std::vector<std::string> cost_term_name_list();

/// One kernel: its features (pipeline, schedule, then cost terms, flattened in the order of
/// features.h) and what is known of its time.
struct KernelRow {
  std::string func;
  int stage = 0;
  std::vector<double> values;
  double hand_ms = 0;
  double measured_ms = -1;  ///< CUPTI, when the dataset has it (< 0: unknown)
};

struct ScheduleRow {
  std::vector<KernelRow> kernels;
  double measured_ms = -1;  ///< the whole pipeline
  double hand_ms = 0;
};

struct PipelineRows {
  std::string id;  ///< names the pipeline: the validation split hashes it
  std::vector<ScheduleRow> schedules;
};

struct TrainingSet {
  std::vector<PipelineRows> pipelines;
  std::string provenance;  ///< one line
};

std::string training_set_to_text(const TrainingSet &set);
/// Throws std::runtime_error for a malformed text or one made with another feature version.
TrainingSet parse_training_set(const std::string &text);

/// Which schedule of a pipeline: the text of a saved search state (WarmStart::save,
/// "hlsched-warm-start-v1 ..."), else (or when that no longer matches) a random-walk sample
/// (sample_schedules' (seed, index)).
struct ScheduleRef {
  uint64_t sample_seed = 0;
  int sample_index = -1;    ///< >= 0: a sample
  std::string state_text;
};

/// What a schedule rebuilt from a ScheduleRef is, so that it can be compared with what was
/// measured (the dataset fidelity check): how it was rebuilt, its directives as today's code
/// makes them, and each kernel's launch as the kernel model sees it.
struct RebuiltSchedule {
  std::string from;  ///< "state" (its saved decisions), "walk" (its random walk), "" (not rebuilt)
  ScheduleSpec spec;
  struct Launch {
    std::string func;
    int stage = 0;
    double blocks = 0;             ///< the grid, all dimensions together
    double threads_per_block = 0;  ///< the launched block (KernelModel::block_shape), all dimensions
    /// Split into partial results (StageTiling::partials): Halide runs it as `<func>_intm`'s
    /// kernels, launched as this one, and a kernel of the stage that combines them.
    bool partials = false;
    /// Computed with a sibling (compute_with): no launch of its own; CUPTI times both Funcs as
    /// the sibling's kernel. Empty: a kernel of its own.
    std::string computed_with;
  };
  std::vector<Launch> kernels;
};

/// The rows of each schedule (empty kernels: it could not be rebuilt, e.g. the schedule space
/// changed since it was measured); with `rebuilt`, also what each schedule became.
std::vector<ScheduleRow> featurize_schedules(const PipelineDag &dag, const AutoschedulerOptions &options,
                                             const std::vector<ScheduleRef> &schedules,
                                             std::vector<RebuiltSchedule> *rebuilt = nullptr);

struct TrainOptions {
  uint64_t seed = 1;
  int epochs = 300;
  double learning_rate = 3e-3;
  int pipelines_per_batch = 8;
  double relative_weight = 1.0;  ///< log-time errors relative to the pipeline's mean error
  double absolute_weight = 0.3;  ///< log-time errors themselves
  double kernel_weight = 0.3;    ///< per-kernel log-time errors (CUPTI)
  /// Per kernel, (log learned - log hand)^2: a prior that keeps the network's coefficients near the
  /// hand model's unless the measurements say otherwise, so kernels unlike the data's (the search's
  /// own picks) are predicted as the hand model predicts them rather than by extrapolation.
  double hand_prior_weight = 0;
  int validation_one_in = 8;     ///< pipelines whose id hashes to validation_fold mod this are held out
  int validation_fold = 0;       ///< which of the validation_one_in folds (cross-validation: 0..one_in-1)
  /// Pipelines whose id starts with one of these are held out too ("example:": weights checked on
  /// the examples without having seen them, before they are embedded).
  std::vector<std::string> held_out_prefixes;
  int members = 1;               ///< networks trained with seeds seed, seed + 1, ...: an ensemble averaging them
  /// Initializations tried per member (seeds seed + m, then + members, + 2 x members, ...); the one
  /// with the lowest final training loss is kept. On the four H200 datasets one seed in three
  /// stopped at a training loss of 0.71 where the others reached 0.41 and below.
  int restarts = 1;
  std::string gpu = "h200";
};

/// How well predictions match measurements on a set of pipelines.
struct PredictionMetrics {
  int pipelines = 0, schedules = 0, kernels = 0;
  double median_pipeline_error = 0;  ///< median |predicted - measured| / measured, per schedule
  double median_kernel_error = 0;    ///< the same per kernel against CUPTI (kernels with a time), launch term left out
  double worst_ratio = 1;            ///< max of predicted/measured and measured/predicted
  double geomean_ratio = 1;          ///< geometric mean of predicted / measured
  double rank_correlation = 0;       ///< Spearman within each pipeline (>= 3 schedules), averaged
};

struct TrainReport {
  double initial_training_loss = 0;     ///< before the first step (the hand model's loss)
  std::vector<double> training_loss;    ///< per epoch
  std::vector<double> validation_loss;  ///< per epoch (0 without validation pipelines)
  PredictionMetrics hand_validation, learned_validation, hand_training, learned_training;
  int training_pipelines = 0, validation_pipelines = 0;
  std::string weights_text;             ///< the trained weights (CostModelWeights::to_text)
};

TrainReport train_cost_model(const TrainingSet &set, const TrainOptions &options);

/// Whether train_cost_model holds the pipeline `id` out of training (validates on it): its id's
/// hash falls in the validation fold, or it starts with one of the held-out prefixes.
bool held_out_of_training(const std::string &id, const TrainOptions &options);

/// What one call of a pipeline costs on `gpu` beyond its kernels (GpuProfile::pipeline_call_seconds),
/// in ms: a pipeline's predicted time is this plus its kernels' predictions.
double pipeline_call_ms(const std::string &gpu);

/// The GPU that weights (text) were trained for; the hand model's default for empty text.
std::string weights_gpu(const std::string &weights_text);

/// Metrics of weights (text; empty: the hand model) on all of `set`.
PredictionMetrics evaluate_cost_model(const TrainingSet &set, const std::string &weights_text);

/// Each kernel's predicted ms under weights (text; empty: the hand model). `without_launch`:
/// its time on the GPU as CUPTI measures it (all but the launch term).
std::vector<double> predict_kernels_ms(const std::string &weights_text, const std::vector<KernelRow> &kernels,
                                       bool without_launch = false);

/// Weights text parsed and written again (a round trip gives the same text). Throws
/// std::runtime_error for malformed weights.
std::string reserialize_weights(const std::string &weights_text);

/// The untrained weights text (reproduces the hand model), for `gpu`.
std::string initial_weights_text(uint64_t seed, const std::string &gpu);

/// Throughput of the cost models on `dag`: kernels of random schedules costed again and again.
struct CostModelThroughput {
  int kernels = 0;
  double hand_per_second = 0;      ///< cost_of_kernel on a built kernel model
  double learned_per_second = 0;   ///< features + network on a built kernel model
  double model_build_per_second = 0;  ///< build_kernel_model, for scale
};
CostModelThroughput measure_cost_model_throughput(const PipelineDag &dag, const AutoschedulerOptions &options,
                                                  double seconds);

}  // namespace hlsched
