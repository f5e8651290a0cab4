// Is a dataset record's schedule, rebuilt with today's code, still the schedule that was measured?
//
// Training re-featurizes every record from its saved decisions (or its random walk). When the
// schedule space, state_to_spec or the kernel model changed since the collection, the rebuilt
// schedule can be another one, and the record then labels the wrong features. This compares what
// the record stores with what the rebuild produced (a worker's "featurize" answer, `rebuilt`):
//   - how it was rebuilt: from its decisions, from its random walk, or not at all;
//   - the loop nests of the stored directives and of today's (hlsched/engine/loop_nest.h);
//   - the kernels: the set of (Func, stage) CUPTI measured against the kernel model's;
//   - each kernel's launch: CUPTI's grid and block sizes against the kernel model's blocks and
//     threads per block (within 5%).
// JSON only: no Halide, no engine.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hlsched::dataset {

struct Fidelity {
  std::string rebuilt_from;             ///< "state", "walk" or "" (not rebuilt)
  std::vector<std::string> mismatches;  ///< empty: the rebuilt schedule is the one measured
  /// The rebuilt schedule adds a schedule for outputs of whole tiles that the measured one, from
  /// before those existed, lacks; its general schedule is the one measured (and what the kernel
  /// model prices), so the record still labels its features.
  bool whole_tiles_added = false;
  bool ok() const { return mismatches.empty(); }
};

/// `record`: a dataset record (docs/COST_MODEL.md); `rebuilt`: one entry of the worker's
/// "rebuilt" array for it ({"from", "kernels": [{func, stage, blocks, threads}],
/// "loop_nest_differs": [...], "whole_tiles_added", "spec_error"}).
Fidelity check_fidelity(const nlohmann::json &record, const nlohmann::json &rebuilt);

/// The name CUPTI reports for a Func's kernel ('$' in Halide names becomes "__").
std::string kernel_func_name(const std::string &func);

/// A kernel of the kernel model as CUPTI measured it: the times of the GPU kernels it stands for,
/// summed, and the launch of the one it describes.
/// The key of a kernel of the kernel model: "<func>.s<stage>", func as kernel_func_name().
std::string kernel_key(const std::string &func, int stage);

struct MeasuredKernel {
  double ms = -1;  ///< < 0: CUPTI gave no time
  nlohmann::json grid, block;
};

/// The record's CUPTI kernels (`measured`: its "measured" object) by the kernel model's kernel
/// (kernel_key()). A stage Halide splits into several kernels
/// sums them; a stage the rebuilt schedule computes in partial results (`rebuilt` kernels with
/// "partials") also takes `<func>_intm`'s kernels, which initialize and compute the partial
/// results, its launch being theirs. Funcs computed with a sibling (`rebuilt` kernels with
/// "computed_with") and their siblings get no time: CUPTI times the two as one kernel.
std::map<std::string, MeasuredKernel> measured_by_model_kernel(const nlohmann::json &measured,
                                                               const nlohmann::json &rebuilt);

}  // namespace hlsched::dataset
