// One measured (pipeline, schedule) pair of the cost model's dataset, and its loader.
//
// A dataset is a file of JSON lines (`.jsonl.zst`, compressed_lines.h), one record per measured
// variant; docs/COST_MODEL.md ("Dataset format") documents every field. The types here mirror the
// JSON one to one, so a trainer needs neither the JSON nor Halide to read a dataset; re-featurizing
// a schedule (rebuilding its search state from `decisions`, see engine/src/search/warm_start.h)
// needs the pipeline, which `pipeline` says how to rebuild.
//
// Engine-independent: this library knows JSON and zstd, nothing of Halide or the engine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hlsched::dataset {

inline constexpr const char *kRecordFormat = "hlsched-dataset-v1";

/// Where and how the measurement was made.
struct Provenance {
  std::string measured;       ///< UTC time the run started, ISO 8601
  std::string gpu;            ///< the device's name, e.g. "NVIDIA H200"
  std::string driver;         ///< the NVIDIA driver ("580.159.04"), else the CUDA driver API version
  std::string commit;         ///< hlsched commit that built the bundle (plugin, cost model)
  bool tree_dirty = false;    ///< the bundle was built from a tree with uncommitted changes
  std::string collection;     ///< name of the collection (one bundle, one device run)
  std::string target;         ///< the Halide target the variant was compiled for
  std::string gpu_profile;    ///< hlsched's GPU profile used for scheduling and predictions
};

/// How to rebuild the pipeline.
struct PipelineRef {
  std::string id;             ///< "example:blur", "random:s123:n7" (same id = same pipeline)
  std::string kind;           ///< "example" or "random"
  std::string source;         ///< example: the generator source, relative to the repository
  std::string generator;      ///< registered generator name ("random_pipeline" for random ones)
  std::map<std::string, std::string> params;  ///< GeneratorParams
  uint64_t random_seed = 0;   ///< random: `hlsched random-pipeline --seed S --stages N --writer-version W`
  int random_stages = 0;
  int random_writer_version = 1;  ///< absent from the records of writer version 1
};

/// The schedule that was compiled and measured.
struct ScheduleRef {
  std::string kind;           ///< "beam" (the search's), "sample" (a random walk), "manual"
  std::string options;        ///< the plugin's HLSCHED_OPTIONS ("" for manual)
  uint64_t sample_seed = 0;   ///< sample: walk `sample_walk` of `sample_seed`
  int sample_walk = -1;
  std::string code;           ///< the body of schedule() that was applied (empty for manual)
  std::string decisions;      ///< the search state, warm-start text format (empty for manual)
  nlohmann::json spec;        ///< the schedule as directives (schedule_json.h); null for manual
};

/// The hand cost model's prediction for one stage of the schedule.
struct StagePrediction {
  std::string func;
  int stage = 0;
  std::string placement;      ///< "root kernel", "inline", ...
  double predicted_ms = 0;
  std::map<std::string, double> terms_ms;  ///< the cost terms that add up to predicted_ms
  std::string bound;
  int64_t points = 0;
  double bytes = 0, operations = 0;
};

struct Prediction {
  std::string cost_model;
  double pipeline_ms = 0;
  std::vector<StagePrediction> stages;
};

/// One GPU kernel of the measured call, as CUPTI saw it.
struct KernelMeasurement {
  std::string name;           ///< the kernel's name in the binary (the runner's)
  std::string func;           ///< the Func it computes ("" when the runner could not tell)
  int stage = -1;             ///< the Func's stage (-1 unknown)
  double ms = 0;              ///< GPU time per pipeline call
  double launches_per_call = 0;
  std::vector<int64_t> grid, block;
  int registers_per_thread = 0;
  int64_t shared_memory_bytes = 0;
  /// Spilled registers and local arrays, bytes per thread; -1 where the runner did not record it
  /// (collections before 2026-12-04's tenth).
  int64_t local_memory_bytes_per_thread = -1;
  /// Shared memory per SM the driver configured for the launch (its carve-out of L1); -1 unknown.
  int64_t shared_memory_executed_bytes = -1;
};

struct Measurement {
  double pipeline_ms = 0;     ///< median over the timed calls (CUDA events around each call)
  double min_ms = 0, p10_ms = 0, p90_ms = 0;
  int repetitions = 0;
  bool output_ok = false;     ///< outputs matched the app's reference variant
  double kernel_busy_ms = 0;  ///< GPU busy time per call, summed over kernels
  std::vector<KernelMeasurement> kernels;  ///< empty when CUPTI gave none
};

struct Record {
  std::string id;             ///< "<collection>/<function>": unique in a dataset
  Provenance provenance;
  PipelineRef pipeline;
  ScheduleRef schedule;
  std::optional<Prediction> predicted;  ///< absent for manual schedules
  Measurement measured;
};

nlohmann::json to_json(const Record &record);
/// One kernel as the runner's results and the dataset's records both write it (the same field
/// names). `required`: a record's kernel must name itself and its time, and a missing or mistyped
/// one throws std::invalid_argument naming `where`; the runner's kernels take defaults instead.
KernelMeasurement kernel_from_json(const nlohmann::json &kernel, const std::string &where, bool required);
/// Throws std::invalid_argument naming the missing or mistyped field.
Record record_from_json(const nlohmann::json &json);

/// The writer version of a random pipeline's `random` object (of a record or a collection
/// manifest): absent means 1, the version of every record written before the field existed.
int random_writer_version(const nlohmann::json &random);

/// Reads a whole dataset; throws std::runtime_error naming the file and line of a bad record.
std::vector<Record> load_dataset(const std::filesystem::path &path);
/// Writes records (compressed when the name ends in ".zst"), one per line, in the given order.
void save_dataset(const std::filesystem::path &path, const std::vector<Record> &records);

}  // namespace hlsched::dataset
