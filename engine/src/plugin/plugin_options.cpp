#include "hlsched/engine/plugin_options.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace hlsched {
namespace {

std::invalid_argument option_error(const std::string &what) {
  return std::invalid_argument("HLSCHED_OPTIONS: " + what);
}

// A whole non-negative integer ("12"), else a clear error naming the option.
uint64_t parse_count(const std::string &key, const std::string &value) {
  const bool digits = !value.empty() && value.size() <= 19 &&
                      std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits) throw option_error(key + " wants a non-negative integer, not '" + value + "'");
  return std::stoull(value);
}

// A number as a whole ("4", "0.5", "1e3"), else a clear error naming the option.
double parse_number(const std::string &key, const std::string &value) {
  size_t used = 0;
  double number = 0;
  try {
    number = std::stod(value, &used);
  } catch (const std::exception &) {
    used = 0;
  }
  if (value.empty() || used != value.size()) throw option_error(key + " wants a number, not '" + value + "'");
  return number;
}

int parse_int(const std::string &key, const std::string &value, uint64_t largest) {
  const uint64_t n = parse_count(key, value);
  if (n > largest) throw option_error(key + "=" + value + " is too large (at most " + std::to_string(largest) + ")");
  return int(n);
}

}  // namespace

void read_plugin_options(const std::string &text, PluginOptions &plugin) {
  AutoschedulerOptions &options = plugin.engine;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    std::string key = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::replace(key.begin(), key.end(), '_', '-');
    const int kMaxInt = std::numeric_limits<int>::max();
    if (key == "gpu") options.gpu_profile = value;
    else if (key == "strategy") options.strategy = value;
    else if (key == "beam-size") options.beam_size = parse_int(key, value, kMaxInt);
    else if (key == "passes") options.passes = parse_int(key, value, kMaxInt);
    else if (key == "no-freeze") options.freeze = false;
    else if (key == "no-sampling") options.sampling = false;
    else if (key == "no-polish") options.polish = false;
    else if (key == "no-memo") options.memo = false;
    else if (key == "seed") options.seed = parse_count(key, value);
    else if (key == "sample") plugin.sample_index = parse_int(key, value, kMaxInt);
    else if (key == "candidate") options.candidate = parse_int(key, value, 1000);
    else if (key == "work-budget") options.work_budget = parse_number(key, value);
    else if (key == "time-budget") options.time_budget_s = parse_number(key, value);
    else if (key == "memo-file") options.memo_path = value;
    else if (key == "model") options.model = value;
    else if (key == "weights") options.weights = value;
    else if (key == "decisions") plugin.decisions_path = value;
    else
      throw option_error("unknown option '" + key +
                         "' (gpu, strategy, beam-size, passes, no-freeze, no-sampling, no-polish, no-memo, seed, "
                         "sample, candidate, work-budget, time-budget, memo-file, model, weights, decisions)");
  }
  if (options.strategy == "sample" && plugin.sample_index < 0) plugin.sample_index = 0;
  if (options.strategy != "sample" && plugin.sample_index >= 0)
    throw option_error("sample=" + std::to_string(plugin.sample_index) + " needs strategy=sample (not '" +
                       options.strategy + "')");
  if (options.candidate > 0 && options.strategy != "beam")
    throw option_error("candidate=" + std::to_string(options.candidate) + " needs strategy=beam (not '" +
                       options.strategy + "')");
}

PluginOptions parse_plugin_options(const std::string &text) {
  PluginOptions options;
  read_plugin_options(text, options);
  return options;
}

}  // namespace hlsched
