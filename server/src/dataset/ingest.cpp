#include "dataset/ingest.h"

#include <map>
#include <stdexcept>

namespace hlsched::dataset {
namespace {

using nlohmann::json;

Prediction prediction_from_result(const json &result) {
  Prediction p;
  p.cost_model = result.value("cost_model", "");
  p.pipeline_ms = result.value("predicted_runtime_ms", 0.0);
  for (const json &s : result.value("stages", json::array())) {
    StagePrediction stage;
    stage.func = s.value("func", "");
    stage.stage = s.value("stage", 0);
    stage.placement = s.value("placement", "");
    stage.predicted_ms = s.value("predicted_ms", 0.0);
    stage.terms_ms = s.value("terms", std::map<std::string, double>{});
    stage.bound = s.value("bound", "");
    stage.points = s.value("points", int64_t(0));
    stage.bytes = s.value("bytes", 0.0);
    stage.operations = s.value("operations", 0.0);
    p.stages.push_back(std::move(stage));
  }
  return p;
}

Measurement measurement_from_variant(const json &v) {
  Measurement m;
  const json runtime = v.value("runtime_ms", json::object());
  m.pipeline_ms = runtime.value("median", 0.0);
  m.min_ms = runtime.value("min", 0.0);
  m.p10_ms = runtime.value("p10", 0.0);
  m.p90_ms = runtime.value("p90", 0.0);
  m.repetitions = runtime.value("count", 0);
  m.output_ok = v.value("check", json::object()).value("ok", false);
  const json trace = v.value("kernel_trace", json::object());
  m.kernel_busy_ms = trace.value("busy_ms", 0.0);
  for (const json &k : trace.value("kernels", json::array()))
    m.kernels.push_back(kernel_from_json(k, "kernel_trace.kernels", /*required=*/false));
  return m;
}

std::string driver_text(const json &device, const std::string &given) {
  if (!given.empty()) return given;
  if (device.contains("driver_version")) return "CUDA driver API " + device["driver_version"].dump();
  return "";
}

}  // namespace

std::vector<Record> ingest_results(const json &results, const json &collection, const IngestOptions &options,
                                   IngestSummary &summary) {
  if (results.value("format", "") != "hlsched-bench-results-v1")
    throw std::invalid_argument("the results are not a benchmark runner's results.json");
  if (collection.value("format", "") != kCollectionFormat)
    throw std::invalid_argument("the collection manifest is not of format " + std::string(kCollectionFormat));
  std::map<std::string, const json *> planned;
  for (const json &entry : collection.at("variants")) planned[entry.at("function").get<std::string>()] = &entry;

  const json device = results.value("device", json::object());
  const json manifest = results.value("manifest", json::object());
  Provenance provenance;
  provenance.measured = results.value("started", "");
  provenance.gpu = device.value("name", "");
  provenance.driver = driver_text(device, options.driver);
  provenance.commit = manifest.value("hlsched_commit", collection.value("commit", ""));
  provenance.tree_dirty = manifest.value("hlsched_tree_dirty", false);
  provenance.collection = collection.value("name", "");
  provenance.target = manifest.value("target", "");
  provenance.gpu_profile = collection.value("gpu_profile", "");

  std::vector<Record> records;
  for (const json &v : results.at("variants")) {
    const std::string function = v.value("function", "");
    if (v.value("status", "") != "ok") {
      summary.not_measured++;
      continue;
    }
    const auto it = planned.find(function);
    if (it == planned.end()) {
      summary.not_in_collection++;
      continue;
    }
    const json &entry = *it->second;
    Record r;
    r.id = provenance.collection + "/" + function;
    r.provenance = provenance;
    r.measured = measurement_from_variant(v);
    if (!r.measured.output_ok) {
      summary.mismatched++;
      if (!options.keep_mismatched) continue;
    }
    const json &pipeline = entry.at("pipeline");
    r.pipeline.id = pipeline.value("id", "");
    r.pipeline.kind = pipeline.value("kind", "");
    r.pipeline.source = pipeline.value("source", "");
    r.pipeline.generator = pipeline.value("generator", "");
    r.pipeline.params = pipeline.value("params", std::map<std::string, std::string>{});
    if (pipeline.contains("random")) {
      r.pipeline.random_seed = pipeline["random"].value("seed", uint64_t(0));
      r.pipeline.random_stages = pipeline["random"].value("stages", 0);
      r.pipeline.random_writer_version = random_writer_version(pipeline["random"]);
    }
    const json &schedule = entry.at("schedule");
    r.schedule.kind = schedule.value("kind", "");
    r.schedule.options = schedule.value("options", "");
    if (schedule.contains("sample")) {
      r.schedule.sample_seed = schedule["sample"].value("seed", uint64_t(0));
      r.schedule.sample_walk = schedule["sample"].value("walk", -1);
    }
    const json prediction = entry.value("prediction", json());
    if (prediction.is_object() && !prediction.contains("error")) {
      if (!entry.value("prediction_matches_applied", true)) {
        // What ran is not what was predicted (a search cut short by its time budget): the
        // measurement is kept, without a schedule or prediction to learn from.
        summary.prediction_differs++;
      } else {
        r.schedule.code = prediction.value("schedule_code", "");
        r.schedule.decisions = prediction.value("decisions", "");
        r.schedule.spec = prediction.value("schedule", json());
        r.predicted = prediction_from_result(prediction);
      }
    }
    records.push_back(std::move(r));
    summary.records++;
  }
  return records;
}

}  // namespace hlsched::dataset
