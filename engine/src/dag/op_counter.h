// Counting the operations in one point of a stage, by kind and scalar type.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

/// What one point of a definition evaluates: its values, an update's argument indices (they can
/// read producers: hist(im(r.x, r.y)) += 1) and its predicate.
std::vector<Halide::Expr> definition_exprs(const Halide::Internal::Definition &def, bool is_update);

/// Operation counts of the expressions (after common-subexpression elimination; what is the same
/// at every point, built of constants and scalar parameters, not counted; likely() is free), keyed
/// "kind.type": "add.f32", "mul.i32", "cmp.u8", "select.f32", "load.u16", "cast.f32",
/// "math.f32" (exp, log, sqrt, pow, trig...), "bitwise.u32", "store.f32" (one per value), and
/// "libm.f32": the arithmetic instructions the math calls' library routines run besides their
/// special-function operation (pow: 55), counted as basic arithmetic.
OpCounts count_operations(const std::vector<Halide::Expr> &exprs);

/// The call sites of each producer (Funcs and input buffers) in one definition's expressions, as
/// the generated code evaluates them: after common-subexpression elimination over all of the
/// definition's values together, and a Tuple's elements read at one point counted once (a Tuple
/// Func inlined is computed once per point; stored, one call moves its whole point).
struct CallSites {
  std::map<std::string, int64_t> calls;
  std::set<std::string> inputs;
};
CallSites count_call_sites(const std::vector<Halide::Expr> &exprs);

/// The expressions as one, for a common-subexpression elimination across them (a Tuple's values
/// share their subexpressions in the generated code); count_operations skips the wrapper.
Halide::Expr joined_for_cse(const std::vector<Halide::Expr> &exprs);

/// Short type name: "f32", "u8", "i32", "bool".
std::string short_type_name(const Halide::Type &t);

}  // namespace hlsched
