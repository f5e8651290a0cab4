// What Halide 14's lowering does to the stored index of an atomic update, read from the IR.
//
// Halide 14 emits a hardware atomic add for `f(index) += v` only when the value's copy of
// f(index) and the store address are one expression after lowering (codegen's check:
// simplify(cse(value - f[index])) no longer reads f); otherwise it emits a compare-and-swap loop.
// The store index (the definition's left-hand side) and the value (whose f(index) holds a copy
// of it) are separate expressions all the way, so two passes make them differ:
//  - common-subexpression elimination runs on each separately (at definition and again after
//    inlining): any subexpression of the index repeated there, or shared with the increment,
//    becomes a let with a different name on each side;
//  - clamp_unsafe_accesses clamps calls to a Func whose values are bounded short of its type's
//    range where they sit inside another Func's arguments: inside f(index) on the value's side,
//    not in the store's index, unless the index already holds the call inside another call's
//    arguments (a Func's or an input's: then both sides are clamped alike).
// These helpers extract, per Func and per update, what search/atomic_lowering.h needs to predict
// that from a schedule's inlining.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"
#include "hlsched/engine/pipeline_dag.h"

namespace hlsched {

/// Whether Halide 14 clamps calls to each pure Func where they index another Func: its values'
/// bounds (computed as Halide's compute_function_value_bounds does) are finite and not its type's
/// whole range. `order`: producers first.
std::map<std::string, bool> funcs_clamped_in_indexes(const std::vector<std::string> &order,
                                                     const std::map<std::string, Halide::Internal::Function> &env);

/// Whether a Func's pure definition holds a repeated subexpression (Halide's CSE left a let in it).
bool definition_repeats_subexpression(const Halide::Internal::Function &f);

/// Whether a Func's pure definition uses one of its arguments more than once: inlined where the
/// argument is computed (a load), the computation repeats.
bool definition_repeats_argument(const Halide::Internal::Function &f);

/// A Func's pure definition: its call sites per producer (Funcs and input buffers), and the uses
/// of its arguments, each with the calls whose arguments hold it.
struct PureCallSites {
  std::map<std::string, std::vector<EnclosingCalls>> calls;
  std::vector<EnclosingCalls> argument_uses;
};
PureCallSites pure_call_sites(const Halide::Internal::Function &f);

/// Call sites per producer (Funcs and input buffers) in an update's stored index, and in the rest
/// of its value (the increment: everything but the update's read of its own Func).
struct AtomicIndexReads {
  std::map<std::string, int64_t> index;
  std::map<std::string, std::vector<EnclosingCalls>> index_sites;  ///< the index's, one per call
  std::map<std::string, int64_t> increment;
  /// The definition itself makes the index and the value's copy differ: a let in the index, or a
  /// let of the value used inside the value's copy of the index.
  bool repeats_subexpression = false;
};
AtomicIndexReads atomic_index_reads(const Halide::Internal::Function &f, const Halide::Internal::Definition &update);

}  // namespace hlsched
