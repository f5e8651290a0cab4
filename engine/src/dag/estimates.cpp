#include "dag/estimates.h"

#include <sstream>

#include "hlsched/engine/pipeline_walk.h"

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

std::optional<int64_t> constant_of(const Expr &e) {
  if (!e.defined()) return std::nullopt;
  Expr s = simplify(e);
  if (const int64_t *c = as_const_int(s)) return *c;
  if (const uint64_t *c = as_const_uint(s)) return int64_t(*c);
  return std::nullopt;
}

// Replaces Variables by the expressions in a map (parameters' estimates).
class ReplaceByName : public IRMutator {
public:
  explicit ReplaceByName(const std::map<std::string, Expr> &values) : values_(values) {}

private:
  using IRMutator::visit;
  Expr visit(const Variable *op) override {
    auto it = values_.find(op->name);
    if (it == values_.end()) return op;
    return cast(op->type, it->second);
  }
  const std::map<std::string, Expr> &values_;
};

void record_buffer_estimates(const Parameter &param, std::map<std::string, Expr> &values, InputNode &node) {
  node.has_estimates = true;
  for (int d = 0; d < param.dimensions(); d++) {
    auto lo = constant_of(param.min_constraint_estimate(d));
    auto extent = constant_of(param.extent_constraint_estimate(d));
    if (!lo || !extent) {
      node.has_estimates = false;
      node.estimate.push_back(Span{0, -1});
      continue;
    }
    node.estimate.push_back(Span{*lo, *lo + *extent - 1});
    values[param.name() + ".min." + std::to_string(d)] = Expr(*lo);
    values[param.name() + ".extent." + std::to_string(d)] = Expr(*extent);
    values[param.name() + ".max." + std::to_string(d)] = Expr(*lo + *extent - 1);
  }
}

}  // namespace

EstimateSubstituter::EstimateSubstituter(const Pipeline &pipeline) {
  for (const Parameter &param : pipeline_input_parameters(pipeline)) {
    InputNode node;
    node.name = param.name();
    node.is_buffer = param.is_buffer();
    node.type = param.type();
    if (param.is_buffer()) {
      record_buffer_estimates(param, values_, node);
      if (!node.has_estimates) missing_inputs_.push_back(node.name);
    } else {
      Expr estimate = param.estimate();
      if (!estimate.defined()) estimate = param.scalar_expr();  // its default value
      node.has_estimates = param.estimate().defined();
      std::ostringstream text;
      text << estimate;
      node.scalar_estimate = text.str();
      values_[param.name()] = estimate;
    }
    inputs_.push_back(std::move(node));
  }
  // Output buffers' sizes appear in expressions too (outputs' .min/.extent).
  for (const Func &out : pipeline.outputs()) {
    for (const Parameter &param : out.function().output_buffers()) {
      InputNode ignored;
      record_buffer_estimates(param, values_, ignored);
    }
  }
}

Expr EstimateSubstituter::substitute(const Expr &e) const {
  ReplaceByName replacer(values_);
  // Estimates can refer to other parameters; two rounds settle the usual cases.
  return replacer.mutate(replacer.mutate(e));
}

std::optional<int64_t> EstimateSubstituter::as_constant(const Expr &e) const {
  if (!e.defined()) return std::nullopt;
  return constant_of(substitute(e));
}

std::vector<Span> EstimateSubstituter::output_region(const Function &output) const {
  std::vector<Span> region(output.args().size(), Span{0, -1});
  for (const Bound &b : output.schedule().estimates()) {
    for (size_t i = 0; i < output.args().size(); i++) {
      if (output.args()[i] != b.var) continue;
      auto lo = as_constant(b.min);
      auto extent = as_constant(b.extent);
      if (lo && extent) region[i] = Span{*lo, *lo + *extent - 1};
    }
  }
  // Fall back to the output buffer's estimates.
  if (!output.output_buffers().empty()) {
    const Parameter &buffer = output.output_buffers().front();
    for (size_t i = 0; i < region.size() && int(i) < buffer.dimensions(); i++) {
      if (region[i].extent() > 0) continue;
      auto lo = constant_of(buffer.min_constraint_estimate(int(i)));
      auto extent = constant_of(buffer.extent_constraint_estimate(int(i)));
      if (lo && extent) region[i] = Span{*lo, *lo + *extent - 1};
    }
  }
  return region;
}

void EstimateSubstituter::require_estimates(const std::vector<Function> &outputs) const {
  std::vector<std::string> missing;
  for (const std::string &name : missing_inputs_) missing.push_back("input '" + name + "'");
  for (const Function &out : outputs) {
    for (const Span &s : output_region(out))
      if (s.extent() <= 0) {
        missing.push_back("output '" + out.name() + "'");
        break;
      }
  }
  if (missing.empty()) return;
  std::string message = "missing estimates on ";
  for (size_t i = 0; i < missing.size(); i++) message += (i ? ", " : "") + missing[i];
  message +=
      ". Add them in the generator's schedule() (or generate()), e.g. "
      "input.set_estimates({{0, 1920}, {0, 1080}}); output.set_estimates({{0, 1920}, {0, 1080}});";
  throw MissingEstimatesError(message);
}

}  // namespace hlsched
