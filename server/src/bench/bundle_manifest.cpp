#include "bench/bundle_manifest.h"

namespace hlsched::server::bench {

using nlohmann::json;

json variant_manifest_entry(const BenchVariant &v, const AotResult &compiled) {
  json scheduler = json::object();
  if (v.scheduler.uses_plugin())
    scheduler = {{"plugin", v.scheduler.plugin.string()},
                 {"autoscheduler", v.scheduler.autoscheduler},
                 {"machine_params", v.scheduler.machine_params}};
  if (!v.scheduler.environment.empty()) scheduler["environment"] = v.scheduler.environment;
  json entry{{"function", v.function_name()},
             {"app", v.app},
             {"label", v.label},
             {"source", v.source.string()},
             {"generator", v.generator},
             {"params", v.params},
             {"scheduler", scheduler},
             {"status", compiled.ok ? "compiled" : "failed"},
             {"compile_seconds", compiled.seconds},
             {"command", compiled.command_line}};
  if (!compiled.ok) entry["error"] = compiled.error;
  return entry;
}

json prediction_from_schedule_result(const json &result) {
  json stages = json::array();
  for (const auto &s : result.value("stages", json::array()))
    stages.push_back({{"func", s.value("func", "")},
                      {"stage", s.value("stage", 0)},
                      {"placement", s.value("placement", "")},
                      {"predicted_ms", s.value("predicted_ms", 0.0)},
                      {"bound", s.value("bound", "")}});
  const json search = result.value("search", json::object());
  return {{"predicted_runtime_ms", result.value("predicted_runtime_ms", 0.0)},
          {"strategy", search.value("strategy", "")},
          {"gpu_profile", result.value("gpu_profile", "")},
          {"cost_model", result.value("cost_model", "")},
          {"stages", stages}};
}

std::vector<std::string> func_names_from_result(const json &result) {
  std::vector<std::string> names;
  for (const auto &f : result.value("funcs", json::array())) {
    const std::string name = f.contains("func") ? f.value("func", "") : f.value("name", "");
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace hlsched::server::bench
