#include "bench/bench_variant.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace hlsched::server::bench {
namespace {

namespace fs = std::filesystem;

std::string identifier(const std::string &text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v" + out;
  return out;
}

fs::path example_source(const fs::path &examples_dir, const std::string &app) {
  return examples_dir / app / (app + "_generator.cpp");
}

}  // namespace

std::string BenchVariant::function_name() const { return identifier(app) + "__" + identifier(label); }

const std::vector<std::string> &standard_labels() {
  static const std::vector<std::string> labels = {"manual", "li2018", "hlsched"};
  return labels;
}

std::vector<BenchVariant> standard_variants(const std::string &app, const fs::path &source,
                                            const std::vector<std::string> &labels, const StandardSchedulers &schedulers) {
  std::vector<BenchVariant> variants;
  for (const std::string &label : labels) {
    BenchVariant v;
    v.app = app;
    v.label = label;
    v.source = source;
    if (label == "manual") {
      v.params["schedule"] = "manual";
    } else if (label == "li2018") {
      v.params["schedule"] = "none";
      v.scheduler.plugin = schedulers.li2018_plugin;
      v.scheduler.autoscheduler = "Li2018";
      v.scheduler.machine_params = schedulers.machine_params;
    } else if (label == "hlsched") {
      v.params["schedule"] = "none";
      v.scheduler.plugin = schedulers.hlsched_plugin;
      v.scheduler.autoscheduler = "Hlsched";
      v.scheduler.machine_params = schedulers.machine_params;
      if (!schedulers.hlsched_options.empty()) v.scheduler.environment["HLSCHED_OPTIONS"] = schedulers.hlsched_options;
      v.predict = true;
    } else {
      throw std::invalid_argument("unknown scheduler '" + label + "' (manual, li2018, hlsched; others via --variants)");
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

std::vector<std::string> example_apps(const fs::path &examples_dir) {
  std::vector<std::string> apps;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(examples_dir, ec)) {
    const std::string app = entry.path().filename().string();
    if (entry.is_directory() && fs::exists(example_source(examples_dir, app))) apps.push_back(app);
  }
  if (ec) throw std::invalid_argument("cannot list " + examples_dir.string() + ": " + ec.message());
  std::sort(apps.begin(), apps.end());
  return apps;
}

std::vector<BenchVariant> load_variants_file(const fs::path &path, const fs::path &examples_dir,
                                             const std::string &default_machine_params) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the variants file " + path.string());
  nlohmann::json list;
  try {
    list = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(path.string() + ": not JSON: " + e.what());
  }
  if (!list.is_array()) throw std::invalid_argument(path.string() + ": expected a list of variants");
  const fs::path base = fs::absolute(path).parent_path();
  auto resolve = [&](const std::string &p) { return fs::path(p).is_absolute() ? fs::path(p) : base / p; };
  static const std::set<std::string> known = {"app",     "label",         "source",      "generator", "params",
                                              "plugin",  "autoscheduler", "environment", "predict",   "machine_params"};
  std::vector<BenchVariant> variants;
  for (const auto &entry : list) {
    const std::string where = path.string() + ": variant " + std::to_string(variants.size() + 1);
    try {
      for (const auto &[key, value] : entry.items())
        if (!known.count(key)) throw std::invalid_argument("unknown field '" + key + "'");
      BenchVariant v;
      v.app = entry.at("app").get<std::string>();
      v.label = entry.at("label").get<std::string>();
      v.source = entry.contains("source") ? resolve(entry["source"].get<std::string>()) : example_source(examples_dir, v.app);
      v.generator = entry.value("generator", "");
      v.params = entry.value("params", std::map<std::string, std::string>{});
      if (entry.contains("plugin")) {
        v.scheduler.plugin = resolve(entry["plugin"].get<std::string>());
        v.scheduler.autoscheduler = entry.at("autoscheduler").get<std::string>();
        v.scheduler.machine_params = entry.value("machine_params", default_machine_params);
      }
      v.scheduler.environment = entry.value("environment", std::map<std::string, std::string>{});
      v.predict = entry.value("predict", false);
      variants.push_back(std::move(v));
    } catch (const nlohmann::json::exception &e) {
      throw std::invalid_argument(where + ": " + e.what());
    } catch (const std::invalid_argument &e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
  }
  return variants;
}

}  // namespace hlsched::server::bench
