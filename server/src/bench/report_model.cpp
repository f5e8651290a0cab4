#include "bench/report_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hlsched::server::bench {
namespace {

using nlohmann::json;

// "output: 12 of 2073600 elements differ (max |diff| 1)".
std::string check_detail(const json &check) {
  std::string detail;
  const json outputs = check.value("outputs", json::object());
  for (const auto &[name, c] : outputs.items()) {
    if (c.value("ok", true)) continue;
    char text[200];
    std::snprintf(text, sizeof text, "%s: %lld of %lld elements differ (max |diff| %.3g, rule %s)", name.c_str(),
                  static_cast<long long>(c.value("mismatches", 0LL)), static_cast<long long>(c.value("elements", 0LL)),
                  c.value("max_abs_diff", 0.0), c.value("rule", std::string("?")).c_str());
    detail += (detail.empty() ? "" : "; ") + std::string(text);
  }
  return detail;
}

Measurement measurement_from(const json &record) {
  Measurement m;
  m.function = record.value("function", "");
  m.label = record.value("label", "");
  m.status = record.value("status", "?");
  m.error = record.value("error", "");
  if (record.contains("runtime_ms")) {
    const json &t = record["runtime_ms"];
    m.median_ms = t.value("median", 0.0);
    m.p10_ms = t.value("p10", 0.0);
    m.p90_ms = t.value("p90", 0.0);
    m.repetitions = t.value("count", 0);
  }
  if (record.contains("check")) {
    m.output_matches = record["check"].value("ok", false);
    if (!m.output_matches) m.check_detail = check_detail(record["check"]);
  }
  const json trace = record.value("kernel_trace", json::object());
  for (const auto &k : trace.value("kernels", json::array()))
    m.kernels.push_back({k.value("name", ""), k.value("func", ""), k.value("stage", -1), k.value("ms", 0.0),
                         k.value("launches_per_call", 0.0)});
  return m;
}

void add_prediction(Measurement &m, const json &variant) {
  if (!variant.contains("prediction") || variant["prediction"].contains("error")) return;
  const json &p = variant["prediction"];
  m.predicted_ms = p.value("predicted_runtime_ms", 0.0);
  for (const auto &s : p.value("stages", json::array()))
    m.predicted_stages.push_back({s.value("func", ""), s.value("placement", ""), s.value("bound", ""), s.value("stage", 0),
                                  s.value("predicted_ms", 0.0)});
}

}  // namespace

const Measurement *AppRow::find(const std::string &label) const {
  auto it = by_label.find(label);
  return it == by_label.end() ? nullptr : &it->second;
}

std::optional<double> AppRow::floor_fraction(const std::string &label) const {
  const Measurement *m = find(label);
  if (!m || !m->usable() || !floor_ms || m->median_ms <= 0) return std::nullopt;
  return *floor_ms / m->median_ms;
}

std::optional<double> speedup(const AppRow &row, const std::string &ours, const std::string &baseline) {
  const Measurement *a = row.find(ours), *b = row.find(baseline);
  if (!a || !b || !a->usable() || !b->usable() || a->median_ms <= 0) return std::nullopt;
  return b->median_ms / a->median_ms;
}

std::optional<double> geometric_mean(const std::vector<double> &values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / double(values.size()));
}

ReportModel build_report_model(const json &results) {
  if (results.value("format", "") != "hlsched-bench-results-v1" || !results.contains("manifest") ||
      !results.contains("variants"))
    throw std::invalid_argument("not a results file of hlsched-bench-runner (format hlsched-bench-results-v1)");
  ReportModel model;
  const json &manifest = results["manifest"];
  const json device = results.value("device", json::object());
  model.device = device.value("name", device.contains("error") ? "unknown device (" + device.value("error", "") + ")" : "?");
  model.backend = device.value("backend", "cuda");
  model.date = results.value("started", "");
  model.commit = manifest.value("hlsched_commit", "");
  model.tree_dirty = manifest.value("hlsched_tree_dirty", false);
  model.target = manifest.value("target", "");
  model.complete = results.value("complete", false);
  model.options = results.value("options", json::object());
  if (results.contains("copy_bandwidth")) model.copy_gb_per_s = results["copy_bandwidth"].value("gb_per_s", 0.0);

  // Columns: the standard labels first, then the others in manifest order.
  std::vector<std::string> seen;
  for (const auto &v : manifest.value("variants", json::array())) {
    const std::string label = v.value("label", "");
    if (std::find(seen.begin(), seen.end(), label) == seen.end()) seen.push_back(label);
  }
  for (const char *standard : {"manual", "li2018", "hlsched"})
    if (std::find(seen.begin(), seen.end(), standard) != seen.end()) model.labels.push_back(standard);
  for (const auto &label : seen)
    if (std::find(model.labels.begin(), model.labels.end(), label) == model.labels.end()) model.labels.push_back(label);

  // Rows, in the order the runner measured them.
  for (const auto &record : results["variants"]) {
    const std::string app = record.value("app", "");
    auto row = std::find_if(model.apps.begin(), model.apps.end(), [&](const AppRow &r) { return r.app == app; });
    if (row == model.apps.end()) {
      model.apps.push_back(AppRow{app});
      row = model.apps.end() - 1;
    }
    Measurement m = measurement_from(record);
    for (const auto &v : manifest.value("variants", json::array()))
      if (v.value("function", "") == m.function) add_prediction(m, v);
    if (record.contains("input_bytes")) {
      row->input_bytes = record.value("input_bytes", 0.0);
      row->output_bytes = record.value("output_bytes", 0.0);
      if (model.copy_gb_per_s && *model.copy_gb_per_s > 0)
        row->floor_ms = (row->input_bytes + row->output_bytes) / (*model.copy_gb_per_s * 1e9) * 1e3;
    }
    row->by_label[m.label] = std::move(m);
  }
  return model;
}

}  // namespace hlsched::server::bench
