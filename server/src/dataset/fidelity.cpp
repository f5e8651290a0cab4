#include "dataset/fidelity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
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

std::string kernel_key(const std::string &func, int stage) {
  return kernel_func_name(func) + ".s" + std::to_string(stage);
}

std::map<std::string, MeasuredKernel> measured_by_model_kernel(const json &measured, const json &rebuilt) {
  // Funcs with a stage in partial results: Halide 14 names the rfactor's Func <func>_intm.
  std::map<std::string, std::string> partials_stage_of_intm;
  for (const json &k : field(rebuilt, "kernels"))
    if (field(k, "partials") == true)
      partials_stage_of_intm[kernel_func_name(k["func"]) + "_intm"] = kernel_key(k["func"], k["stage"]);
  // Siblings computed in one kernel (compute_with): CUPTI times them together, as the kernel of the
  // one the other is computed with, so neither Func's own time is known (the launch is).
  std::set<std::string> shared_kernel_funcs;
  for (const json &k : field(rebuilt, "kernels"))
    if (field(k, "computed_with").is_string()) {
      shared_kernel_funcs.insert(kernel_func_name(k["func"]));
      shared_kernel_funcs.insert(kernel_func_name(k["computed_with"]));
    }
  std::map<std::string, MeasuredKernel> kernels;
  std::map<std::string, int> launch_stage;  // the intm stage whose launch a partials kernel takes
  for (const json &k : field(measured, "kernels")) {
    if (!field(k, "func").is_string() || !field(k, "stage").is_number_integer()) continue;
    const std::string func = k["func"];
    const int stage = k["stage"];
    const auto intm = partials_stage_of_intm.find(func);
    const std::string key = intm != partials_stage_of_intm.end() ? intm->second : kernel_key(func, stage);
    MeasuredKernel &m = kernels[key];
    if (field(k, "ms").is_number() && !shared_kernel_funcs.count(func))
      m.ms = std::max(0.0, m.ms) + k["ms"].get<double>();
    // The launch: the stage's last kernel's; for partial results, that of the intm's last stage.
    const bool of_intm = intm != partials_stage_of_intm.end();
    const auto taken = launch_stage.find(key);
    if (of_intm ? (taken == launch_stage.end() || stage >= taken->second) : taken == launch_stage.end()) {
      if (of_intm) launch_stage[key] = stage;
      m.grid = field(k, "grid");
      m.block = field(k, "block");
    }
  }
  return kernels;
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
  f.whole_tiles_added = field(rebuilt, "whole_tiles_added") == true;
  const json &differs = field(rebuilt, "loop_nest_differs");
  if (differs.is_array() && !differs.empty()) {
    std::string lines;
    for (const json &line : differs) lines += "\n    " + line.get<std::string>();
    f.mismatches.push_back("loop nest differs from the measured directives:" + lines);
  }

  // CUPTI's kernels against the kernel model's, by (Func, stage).
  const std::map<std::string, MeasuredKernel> measured = measured_by_model_kernel(field(record, "measured"), rebuilt);
  std::map<std::string, json> model;
  for (const json &k : field(rebuilt, "kernels")) model[kernel_key(k["func"], k["stage"])] = k;
  if (measured.empty()) return f;  // no CUPTI trace (a synthetic record): nothing to compare with
  for (const auto &[key, k] : measured)
    if (!model.count(key)) f.mismatches.push_back("kernel " + key + " ran but is not in the rebuilt schedule");
  for (const auto &[key, k] : model) {
    const bool runs_in_sibling = field(k, "computed_with").is_string();  // timed as the sibling's kernel
    if (!measured.count(key) && !runs_in_sibling)
      f.mismatches.push_back("kernel " + key + " of the rebuilt schedule did not run");
  }
  for (const auto &[key, m] : measured) {
    auto it = model.find(key);
    if (it == model.end()) continue;
    const double grid = product(m.grid), block = product(m.block);
    const double blocks = field(it->second, "blocks").get<double>();
    const double threads = field(it->second, "threads").get<double>();
    if (!close(grid, blocks) || !close(block, threads))
      f.mismatches.push_back("kernel " + key + " launched " + number(grid) + " blocks x " + number(block) +
                             " threads; the kernel model has " + number(blocks) + " x " + number(threads));
  }
  return f;
}

}  // namespace hlsched::dataset
