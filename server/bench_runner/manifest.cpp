#include "manifest.h"

#include <fstream>
#include <stdexcept>

namespace hlsched::bench {

const AppEntry &Manifest::app(const std::string &name) const {
  for (const auto &a : apps)
    if (a.name == name) return a;
  throw std::runtime_error("the manifest has no app '" + name + "'");
}

std::vector<VariantEntry> Manifest::compiled_variants(const std::string &app_name) const {
  std::vector<VariantEntry> out;
  for (const auto &v : variants)
    if (v.app == app_name && v.compiled) out.push_back(v);
  return out;
}

Manifest parse_manifest(const nlohmann::json &json) {
  Manifest m;
  m.raw = json;
  m.target = json.at("target").get<std::string>();
  for (const auto &[name, entry] : json.at("apps").items()) {
    AppEntry app;
    app.name = name;
    app.funcs = entry.value("funcs", std::vector<std::string>{});
    const nlohmann::json ranges = entry.value("input_ranges", nlohmann::json::object());
    for (const auto &[input, range] : ranges.items())
      app.input_ranges[input] = ValueRange{range.at(0).get<double>(), range.at(1).get<double>()};
    m.apps.push_back(std::move(app));
  }
  for (const auto &entry : json.at("variants")) {
    VariantEntry v;
    v.function = entry.at("function").get<std::string>();
    v.app = entry.at("app").get<std::string>();
    v.label = entry.at("label").get<std::string>();
    v.compiled = entry.value("status", std::string("compiled")) == "compiled";
    m.variants.push_back(std::move(v));
  }
  return m;
}

Manifest load_manifest(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the manifest " + path);
  try {
    return parse_manifest(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception &e) {
    throw std::runtime_error("malformed manifest " + path + ": " + e.what());
  }
}

}  // namespace hlsched::bench
