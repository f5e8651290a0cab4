// Turning the symbolic sizes of a pipeline into numbers using its estimates.
//
// Bounds depend on the sizes of input and output buffers and on scalar parameters; the user
// states typical values with set_estimate(s). This substitutes those values into expressions and
// reports what is missing, naming each input or output without estimates.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

class EstimateSubstituter {
public:
  explicit EstimateSubstituter(const Halide::Pipeline &pipeline);

  /// The value of `e` with every parameter replaced by its estimate, if that is a constant.
  std::optional<int64_t> as_constant(const Halide::Expr &e) const;

  /// The inputs with their estimates. Buffers without estimates are listed in missing().
  std::vector<InputNode> describe_inputs() const { return inputs_; }

  /// The region of an output under its estimates (Func estimates, else its buffer's).
  std::vector<Span> output_region(const Halide::Internal::Function &output) const;

  /// Throws MissingEstimatesError naming every input buffer and output lacking estimates.
  void require_estimates(const std::vector<Halide::Internal::Function> &outputs) const;

private:
  Halide::Expr substitute(const Halide::Expr &e) const;

  std::map<std::string, Halide::Expr> values_;  ///< "input.extent.0" -> 1920, "alpha" -> 0.5f, ...
  std::vector<InputNode> inputs_;
  std::vector<std::string> missing_inputs_;
};

}  // namespace hlsched
