#include "dataset/fidelity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace hlsched::dataset {

using nlohmann::json;

namespace {

const json &field(const json &j, const char *key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

double product(const json &dims) {
  double p = 1;
  if (!dims.is_array()) return 0;
  for (const json &d : dims) p *= d.is_number() ? d.get<double>() : 0;
  return p;
}

std::string kernel_key(const std::string &func, int stage) {
  return kernel_func_name(func) + ".s" + std::to_string(stage);
}

// Launch sizes within 5%: Halide rounds a region a little differently from the estimates (129,600
// blocks launched where the kernel model has 129,570), which changes no feature that matters;
// 5x more blocks or another block shape is another kernel.
bool close(double measured, double model) {
  return std::abs(measured - model) <= 0.05 * std::max(measured, model);
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

std::string kernel_func_name(const std::string &func) {
  std::string out;
  for (char c : func) out += c == '$' ? std::string("__") : std::string(1, c);
  return out;
}

Fidelity check_fidelity(const json &record, const json &rebuilt) {
  Fidelity f;
  f.rebuilt_from = field(rebuilt, "from").is_string() ? rebuilt["from"].get<std::string>() : "";
  if (f.rebuilt_from.empty()) {
    f.mismatches.push_back("not rebuilt: neither its decisions nor its random walk give a valid schedule today");
    return f;
  }
  if (field(rebuilt, "spec_error").is_string())
    f.mismatches.push_back("stored directives unreadable: " + rebuilt["spec_error"].get<std::string>());
  const json &differs = field(rebuilt, "loop_nest_differs");
  if (differs.is_array() && !differs.empty()) {
    std::string lines;
    for (const json &line : differs) lines += "\n    " + line.get<std::string>();
    f.mismatches.push_back("loop nest differs from the measured directives:" + lines);
  }

  // CUPTI's kernels against the kernel model's, by (Func, stage).
  std::map<std::string, json> measured, model;
  for (const json &k : field(field(record, "measured"), "kernels"))
    if (field(k, "func").is_string() && field(k, "stage").is_number_integer())
      measured[kernel_key(k["func"], k["stage"])] = k;
  for (const json &k : field(rebuilt, "kernels")) model[kernel_key(k["func"], k["stage"])] = k;
  if (measured.empty()) return f;  // no CUPTI trace (a synthetic record): nothing to compare with
  for (const auto &[key, k] : measured)
    if (!model.count(key)) f.mismatches.push_back("kernel " + key + " ran but is not in the rebuilt schedule");
  for (const auto &[key, k] : model)
    if (!measured.count(key)) f.mismatches.push_back("kernel " + key + " of the rebuilt schedule did not run");
  for (const auto &[key, m] : measured) {
    auto it = model.find(key);
    if (it == model.end()) continue;
    const double grid = product(field(m, "grid")), block = product(field(m, "block"));
    const double blocks = field(it->second, "blocks").get<double>();
    const double threads = field(it->second, "threads").get<double>();
    if (!close(grid, blocks) || !close(block, threads))
      f.mismatches.push_back("kernel " + key + " launched " + number(grid) + " blocks x " + number(block) +
                             " threads; the kernel model has " + number(blocks) + " x " + number(threads));
  }
  return f;
}

}  // namespace hlsched::dataset
