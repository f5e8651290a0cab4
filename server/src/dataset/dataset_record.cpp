#include "dataset/dataset_record.h"

#include <stdexcept>

#include "dataset/compressed_lines.h"

namespace hlsched::dataset {

using nlohmann::json;

namespace {

json stage_json(const StagePrediction &s) {
  return {{"func", s.func},   {"stage", s.stage},   {"placement", s.placement}, {"predicted_ms", s.predicted_ms},
          {"terms_ms", s.terms_ms}, {"bound", s.bound}, {"points", s.points},   {"bytes", s.bytes},
          {"operations", s.operations}};
}

json kernel_json(const KernelMeasurement &k) {
  json j = {{"name", k.name},   {"func", k.func},   {"stage", k.stage},
            {"ms", k.ms},       {"launches_per_call", k.launches_per_call},
            {"grid", k.grid},   {"block", k.block}, {"registers_per_thread", k.registers_per_thread},
            {"shared_memory_bytes", k.shared_memory_bytes}};
  if (k.local_memory_bytes_per_thread >= 0) j["local_memory_bytes_per_thread"] = k.local_memory_bytes_per_thread;
  if (k.shared_memory_executed_bytes >= 0) j["shared_memory_executed_bytes"] = k.shared_memory_executed_bytes;
  return j;
}

// A required field, with the record's path in the message when it is missing or mistyped.
template <typename T>
T field(const json &object, const char *name, const std::string &where) {
  if (!object.is_object() || !object.contains(name)) throw std::invalid_argument(where + ": missing '" + name + "'");
  try {
    return object.at(name).get<T>();
  } catch (const json::exception &e) {
    throw std::invalid_argument(where + "." + name + ": " + e.what());
  }
}

template <typename T>
T optional_field(const json &object, const char *name, T fallback) {
  if (!object.is_object() || !object.contains(name) || object.at(name).is_null()) return fallback;
  return object.at(name).get<T>();
}

}  // namespace

KernelMeasurement kernel_from_json(const json &k, const std::string &where, bool required) {
  KernelMeasurement kernel;
  kernel.name = required ? field<std::string>(k, "name", where) : optional_field<std::string>(k, "name", "");
  kernel.func = optional_field<std::string>(k, "func", "");
  kernel.stage = optional_field(k, "stage", -1);
  kernel.ms = required ? field<double>(k, "ms", where) : optional_field(k, "ms", 0.0);
  kernel.launches_per_call = optional_field(k, "launches_per_call", 0.0);
  kernel.grid = optional_field(k, "grid", std::vector<int64_t>{});
  kernel.block = optional_field(k, "block", std::vector<int64_t>{});
  kernel.registers_per_thread = optional_field(k, "registers_per_thread", 0);
  kernel.shared_memory_bytes = optional_field<int64_t>(k, "shared_memory_bytes", 0);
  kernel.local_memory_bytes_per_thread = optional_field<int64_t>(k, "local_memory_bytes_per_thread", -1);
  kernel.shared_memory_executed_bytes = optional_field<int64_t>(k, "shared_memory_executed_bytes", -1);
  return kernel;
}

json to_json(const Record &r) {
  const Provenance &p = r.provenance;
  const PipelineRef &pl = r.pipeline;
  const ScheduleRef &s = r.schedule;
  json pipeline{{"id", pl.id}, {"kind", pl.kind}, {"source", pl.source}, {"generator", pl.generator}, {"params", pl.params}};
  if (pl.kind == "random") {
    pipeline["random"] = {{"seed", pl.random_seed}, {"stages", pl.random_stages}};
    if (pl.random_writer_version != 1) pipeline["random"]["writer_version"] = pl.random_writer_version;
  }
  json schedule{{"kind", s.kind}, {"options", s.options}, {"code", s.code}, {"decisions", s.decisions}, {"spec", s.spec}};
  if (s.kind == "sample") schedule["sample"] = {{"seed", s.sample_seed}, {"walk", s.sample_walk}};
  json predicted = nullptr;
  if (r.predicted) {
    json stages = json::array();
    for (const auto &st : r.predicted->stages) stages.push_back(stage_json(st));
    predicted = {{"cost_model", r.predicted->cost_model}, {"pipeline_ms", r.predicted->pipeline_ms}, {"stages", stages}};
  }
  const Measurement &m = r.measured;
  json kernels = json::array();
  for (const auto &k : m.kernels) kernels.push_back(kernel_json(k));
  return {{"format", kRecordFormat},
          {"id", r.id},
          {"provenance",
           {{"measured", p.measured}, {"gpu", p.gpu}, {"driver", p.driver}, {"commit", p.commit},
            {"tree_dirty", p.tree_dirty}, {"collection", p.collection}, {"target", p.target},
            {"gpu_profile", p.gpu_profile}}},
          {"pipeline", pipeline},
          {"schedule", schedule},
          {"predicted", predicted},
          {"measured",
           {{"pipeline_ms", m.pipeline_ms}, {"min_ms", m.min_ms}, {"p10_ms", m.p10_ms}, {"p90_ms", m.p90_ms},
            {"repetitions", m.repetitions}, {"output_ok", m.output_ok}, {"kernel_busy_ms", m.kernel_busy_ms},
            {"kernels", kernels}}}};
}

int random_writer_version(const json &random) {
  return optional_field<int>(random, "writer_version", 1);
}

Record record_from_json(const json &j) {
  if (optional_field<std::string>(j, "format", "") != kRecordFormat)
    throw std::invalid_argument("not a record of format " + std::string(kRecordFormat));
  Record r;
  r.id = field<std::string>(j, "id", "record");
  const std::string where = r.id;

  const json &p = j.at("provenance");
  r.provenance.measured = field<std::string>(p, "measured", where + ".provenance");
  r.provenance.gpu = field<std::string>(p, "gpu", where + ".provenance");
  r.provenance.driver = optional_field<std::string>(p, "driver", "");
  r.provenance.commit = field<std::string>(p, "commit", where + ".provenance");
  r.provenance.tree_dirty = optional_field(p, "tree_dirty", false);
  r.provenance.collection = optional_field<std::string>(p, "collection", "");
  r.provenance.target = optional_field<std::string>(p, "target", "");
  r.provenance.gpu_profile = optional_field<std::string>(p, "gpu_profile", "");

  const json &pl = j.at("pipeline");
  r.pipeline.id = field<std::string>(pl, "id", where + ".pipeline");
  r.pipeline.kind = field<std::string>(pl, "kind", where + ".pipeline");
  r.pipeline.source = optional_field<std::string>(pl, "source", "");
  r.pipeline.generator = optional_field<std::string>(pl, "generator", "");
  r.pipeline.params = optional_field(pl, "params", std::map<std::string, std::string>{});
  if (r.pipeline.kind == "random") {
    const json &random = pl.at("random");
    r.pipeline.random_seed = field<uint64_t>(random, "seed", where + ".pipeline.random");
    r.pipeline.random_stages = field<int>(random, "stages", where + ".pipeline.random");
    r.pipeline.random_writer_version = random_writer_version(random);
  }

  const json &s = j.at("schedule");
  r.schedule.kind = field<std::string>(s, "kind", where + ".schedule");
  r.schedule.options = optional_field<std::string>(s, "options", "");
  r.schedule.code = optional_field<std::string>(s, "code", "");
  r.schedule.decisions = optional_field<std::string>(s, "decisions", "");
  r.schedule.spec = s.value("spec", json());
  if (r.schedule.kind == "sample") {
    r.schedule.sample_seed = field<uint64_t>(s.at("sample"), "seed", where + ".schedule.sample");
    r.schedule.sample_walk = field<int>(s.at("sample"), "walk", where + ".schedule.sample");
  }

  if (j.contains("predicted") && !j.at("predicted").is_null()) {
    const json &pr = j.at("predicted");
    Prediction prediction;
    prediction.cost_model = optional_field<std::string>(pr, "cost_model", "");
    prediction.pipeline_ms = field<double>(pr, "pipeline_ms", where + ".predicted");
    for (const json &st : pr.at("stages")) {
      StagePrediction stage;
      stage.func = field<std::string>(st, "func", where + ".predicted.stages");
      stage.stage = optional_field(st, "stage", 0);
      stage.placement = optional_field<std::string>(st, "placement", "");
      stage.predicted_ms = field<double>(st, "predicted_ms", where + ".predicted.stages");
      stage.terms_ms = optional_field(st, "terms_ms", std::map<std::string, double>{});
      stage.bound = optional_field<std::string>(st, "bound", "");
      stage.points = optional_field<int64_t>(st, "points", 0);
      stage.bytes = optional_field(st, "bytes", 0.0);
      stage.operations = optional_field(st, "operations", 0.0);
      prediction.stages.push_back(std::move(stage));
    }
    r.predicted = std::move(prediction);
  }

  const json &m = j.at("measured");
  r.measured.pipeline_ms = field<double>(m, "pipeline_ms", where + ".measured");
  r.measured.min_ms = optional_field(m, "min_ms", 0.0);
  r.measured.p10_ms = optional_field(m, "p10_ms", 0.0);
  r.measured.p90_ms = optional_field(m, "p90_ms", 0.0);
  r.measured.repetitions = optional_field(m, "repetitions", 0);
  r.measured.output_ok = optional_field(m, "output_ok", false);
  r.measured.kernel_busy_ms = optional_field(m, "kernel_busy_ms", 0.0);
  for (const json &k : m.value("kernels", json::array()))
    r.measured.kernels.push_back(kernel_from_json(k, where + ".measured.kernels", /*required=*/true));
  return r;
}

std::vector<Record> load_dataset(const std::filesystem::path &path) {
  std::vector<Record> records;
  int line_number = 0;
  read_lines(path, [&](const std::string &line) {
    line_number++;
    try {
      records.push_back(record_from_json(json::parse(line)));
    } catch (const std::exception &e) {
      throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": " + e.what());
    }
  });
  return records;
}

void save_dataset(const std::filesystem::path &path, const std::vector<Record> &records) {
  std::vector<std::string> lines;
  lines.reserve(records.size());
  for (const Record &r : records) lines.push_back(to_json(r).dump());
  write_lines(path, lines);
}

}  // namespace hlsched::dataset
