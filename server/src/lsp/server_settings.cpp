#include "lsp/server_settings.h"

#include <stdexcept>

#include "hlsched/engine/gpu_profile.h"
#include "hlsched/protocol/errors.h"

namespace hlsched::server::lsp {

using nlohmann::json;
using protocol::InvalidParamsError;

bool operator==(const ServerSettings &a, const ServerSettings &b) {
  return settings_to_json(a) == settings_to_json(b);
}

namespace {

const char *type_name(const json &j) { return j.type_name(); }

std::string get_string(const json &j, const char *field) {
  if (!j.is_string()) throw InvalidParamsError(field, std::string("expected string, got ") + type_name(j));
  return j.get<std::string>();
}

double get_positive_number(const json &j, const char *field) {
  if (!j.is_number() || j.get<double>() <= 0)
    throw InvalidParamsError(field, std::string("expected a positive number, got ") + j.dump());
  return j.get<double>();
}

std::uint64_t get_count(const json &j, const char *field, std::uint64_t minimum = 0) {
  if (!j.is_number_integer() || j.get<long long>() < static_cast<long long>(minimum))
    throw InvalidParamsError(field, "expected an integer >= " + std::to_string(minimum) + ", got " + j.dump());
  return j.get<std::uint64_t>();
}

bool get_bool(const json &j, const char *field) {
  if (!j.is_boolean()) throw InvalidParamsError(field, std::string("expected boolean, got ") + type_name(j));
  return j.get<bool>();
}

// GeneratorParams are strings on the command line; accept JSON numbers and booleans too.
std::string param_value(const json &j, const std::string &key) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number()) return j.dump();
  throw InvalidParamsError("params." + key, std::string("expected string, number or boolean, got ") + type_name(j));
}

}  // namespace

std::vector<std::string> apply_settings(const json &input, ServerSettings &settings) {
  if (input.is_null()) return {};
  const json &section = input.is_object() && input.contains("hlsched") ? input["hlsched"] : input;
  if (!section.is_object()) throw InvalidParamsError("settings", std::string("expected object, got ") + type_name(section));

  ServerSettings updated = settings;
  std::vector<std::string> unknown;
  for (const auto &[key, value] : section.items()) {
    if (key == "gpu_profile") {
      updated.search.gpu_profile = get_string(value, "gpu_profile");
      try {
        find_gpu_profile(updated.search.gpu_profile);
      } catch (const std::invalid_argument &e) {
        throw InvalidParamsError("gpu_profile", e.what());
      }
    } else if (key == "strategy") {
      updated.search.strategy = get_string(value, "strategy");
      if (updated.search.strategy != "beam" && updated.search.strategy != "simple")
        throw InvalidParamsError("strategy", "expected \"beam\" or \"simple\", got \"" + updated.search.strategy + "\"");
    } else if (key == "beam_size") {
      updated.search.beam_size = int(get_count(value, "beam_size", 1));
    } else if (key == "passes") {
      updated.search.passes = int(get_count(value, "passes", 0));
    } else if (key == "freeze") {
      updated.search.freeze = get_bool(value, "freeze");
    } else if (key == "sampling") {
      updated.search.sampling = get_bool(value, "sampling");
    } else if (key == "memo") {
      updated.search.memo = get_bool(value, "memo");
    } else if (key == "seed") {
      updated.search.seed = get_count(value, "seed", 0);
    } else if (key == "model") {
      updated.search.model = get_string(value, "model");
      if (updated.search.model != "hand" && updated.search.model != "learned" && updated.search.model != "both")
        throw InvalidParamsError("model", "expected \"hand\", \"learned\" or \"both\", got \"" + updated.search.model + "\"");
    } else if (key == "weights") {
      updated.search.weights = get_string(value, "weights");
    } else if (key == "work_budget") {
      updated.search.work_budget = get_positive_number(value, "work_budget");
    } else if (key == "time_budget_s") {
      updated.search.time_budget_s = get_positive_number(value, "time_budget_s");
    } else if (key == "timeout") {
      updated.timeout_s = get_positive_number(value, "timeout");
    } else if (key == "memory_limit_mb") {
      updated.memory_limit_mb = std::size_t(get_count(value, "memory_limit_mb"));
    } else if (key == "generator") {
      updated.generator = get_string(value, "generator");
    } else if (key == "params") {
      if (!value.is_object()) throw InvalidParamsError("params", std::string("expected object, got ") + type_name(value));
      updated.params.clear();
      for (const auto &[name, v] : value.items()) updated.params[name] = param_value(v, name);
    } else if (key == "compile_flags") {
      if (!value.is_array()) throw InvalidParamsError("compile_flags", std::string("expected array, got ") + type_name(value));
      updated.compile_flags.clear();
      for (std::size_t i = 0; i < value.size(); i++)
        updated.compile_flags.push_back(get_string(value[i], ("compile_flags[" + std::to_string(i) + "]").c_str()));
    } else if (key == "trusted") {
      updated.trusted = get_bool(value, "trusted");
    } else if (key == "debounce_ms") {
      updated.debounce.delay = std::chrono::milliseconds(get_count(value, "debounce_ms"));
    } else {
      unknown.push_back(key);
    }
  }
  settings = std::move(updated);
  return unknown;
}

json settings_to_json(const ServerSettings &s) {
  return {{"gpu_profile", s.search.gpu_profile},
          {"strategy", s.search.strategy},
          {"beam_size", s.search.beam_size},
          {"passes", s.search.passes},
          {"freeze", s.search.freeze},
          {"sampling", s.search.sampling},
          {"memo", s.search.memo},
          {"seed", s.search.seed},
          {"model", s.search.model},
          {"weights", s.search.weights},
          {"work_budget", s.search.work_budget},
          {"time_budget_s", s.search.time_budget_s},
          {"timeout", s.timeout_s},
          {"memory_limit_mb", s.memory_limit_mb},
          {"generator", s.generator},
          {"params", s.params},
          {"compile_flags", s.compile_flags},
          {"debounce_ms", s.debounce.delay.count()},
          {"trusted", s.trusted}};
}

}  // namespace hlsched::server::lsp
