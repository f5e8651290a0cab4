// Counting the operations in one point of a stage, by kind and scalar type.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

/// Operation counts of the expressions (after common-subexpression elimination), keyed
/// "kind.type": "add.f32", "mul.i32", "cmp.u8", "select.f32", "load.u16", "cast.f32",
/// "math.f32" (exp, log, sqrt, pow, trig...), "bitwise.u32", "store.f32" (one per value), and
/// "libm.f32": the arithmetic instructions the math calls' library routines run besides their
/// special-function operation (pow: 55), counted as basic arithmetic.
OpCounts count_operations(const std::vector<Halide::Expr> &exprs);

/// Counts the call sites of each producer (Funcs and input buffers) in the expressions it visits.
class CallSiteCounter : public Halide::Internal::IRVisitor {
public:
  std::map<std::string, int64_t> calls;
  std::set<std::string> inputs;

private:
  using Halide::Internal::IRVisitor::visit;
  void visit(const Halide::Internal::Call *call) override;
};

/// Short type name: "f32", "u8", "i32", "bool".
std::string short_type_name(const Halide::Type &t);

}  // namespace hlsched
