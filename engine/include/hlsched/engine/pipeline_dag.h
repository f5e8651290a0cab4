// The engine's own description of a Halide algorithm: Funcs, their stages, who reads whom, how
// much of a producer one point of a consumer needs, and how much work each stage does.
//
// Built once from a Halide::Pipeline (build_pipeline_dag), then read-only: the scheduler, the cost
// model and the emitters all work from this, never from Halide's IR directly. Everything here is
// plain data (names, numbers, strings) so it can be printed, hashed and compared between edits.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "Halide.h"

namespace hlsched {

/// `constant + sum(coefficient * var)` over a consumer's loop variables, or not affine at all
/// (data-dependent indices, min/max clamps...), in which case only `text` is meaningful.
struct AffineExpr {
  bool is_affine = false;
  double constant = 0;
  std::map<std::string, double> coefficients;  ///< loop var name -> coefficient (may be fractional: x/2)
  std::string text;                            ///< Halide's printing of the simplified expression
  /// Not affine, but affine inside clamps whose limits do not move with the loops (a boundary
  /// condition's `max(min(x + 1, w - 1), 0)`): the coefficients inside, which say how neighbouring
  /// points walk through the producer away from its edges (`clamp(y, 0, h - 1)` read by
  /// consecutive x: each point in its own row). Empty otherwise.
  std::map<std::string, double> clamped_coefficients;
  bool clamped_affine = false;
};

/// A closed interval of integers [min, max].
struct Span {
  int64_t min = 0;
  int64_t max = -1;
  int64_t extent() const { return max - min + 1; }
};

/// One loop of a stage's default loop nest.
struct LoopDim {
  std::string var;      ///< Halide name ("x", "r$x")
  bool is_rvar = false; ///< a reduction variable (serial unless proven otherwise)
  bool is_pure = true;  ///< for update stages: a pure var appearing as itself in the LHS (parallel-safe)
  Span estimate;        ///< range under the pipeline's estimates
};

/// How often each kind of operation appears in one point of a stage, by "op.type" key, for
/// example "add.f32", "load.u16", "div.i32" (after common-subexpression elimination).
using OpCounts = std::map<std::string, int64_t>;

/// Where one call sits in an expression: the calls (Funcs and inputs) whose arguments hold it,
/// outermost first (empty: not inside any call's arguments).
using EnclosingCalls = std::vector<std::string>;

/// A stage reading a producer (a Func or an input buffer).
struct ProducerAccess {
  std::string producer;
  bool producer_is_input = false;
  int64_t calls_per_point = 0;          ///< distinct call sites in the stage's definition (after CSE)
  std::vector<AffineExpr> region_min;   ///< per producer dim: lowest coordinate one consumer point needs
  std::vector<AffineExpr> region_max;   ///< per producer dim: highest coordinate
  std::vector<int64_t> points_per_consumer_point;  ///< per dim extent when constant (else -1)
  bool is_pointwise = false;            ///< every call reads exactly the consumer's own point
  bool is_affine = false;               ///< every region bound is affine
  /// When the merged region is not affine but every call's own arguments are (interpolate's output
  /// reads filled(x, y, c) and filled(x, y, 3), whose channel bounds are min(c, 3)..max(c, 3)):
  /// every distinct call's arguments (per producer dim), so that a reader can tell which calls
  /// follow a loop and which share a value across it (the alpha channel read at (x, y, 3) for
  /// every c). Empty otherwise.
  std::vector<std::vector<AffineExpr>> call_args;
  /// Whether the reads walk their producer as an affine index does: the merged region is affine,
  /// or each call is.
  bool each_call_affine() const { return is_affine || !call_args.empty(); }
  /// Every dim's highest coordinate has an upper bound wherever the consumer's point lies (a
  /// clamp, a constant): the consumer computed past its region reads no further.
  bool bounded_above = false;
  /// Some dim's index divides by a constant that is not a power of two (a resampling by 7/9,
  /// a downsampling by 3): Halide 14 then bounds the region per GPU block only by the whole
  /// image's (the kernel model refuses Funcs per block read so).
  bool divides_unevenly = false;
};

/// The arithmetic in `StageNode::ops` (everything but loads and stores), split into
/// transcendental ("math.*": exp, sqrt...) and the rest.
struct ArithmeticOps {
  int64_t basic = 0;
  int64_t math = 0;
  int64_t total() const { return basic + math; }
};

/// A loop whose value picks what a point computes: by its residue modulo `period` (a Bayer
/// demosaic's `x % 2`), or by its value where consumers read the Func at constant coordinates
/// (`select(c == 0, red, ...)` read as demosaiced(x, y, 0..2)). Unrolled inside each thread over
/// whole periods from a start the compiler knows (align_bounds for residues), every unrolled
/// copy computes only its own branch (dag/phase_folding.h).
struct PhaseLoop {
  std::string var;
  int period = 2;        ///< residues: the modulus; values: how many (first .. first + period - 1)
  bool by_value = false;
  int64_t first = 0;     ///< by_value: the lowest value
};

/// One point of a stage with some of its phase loops known: operations and producer calls
/// summed over the phases (divide by `phases` for the average point).
struct FoldedStage {
  OpCounts ops_total;
  std::map<std::string, int64_t> calls_total;  ///< producer -> call sites, summed over the phases
  int64_t phases = 1;
};

/// A pure definition (index 0) or an update definition (1..n) of a Func.
struct StageNode {
  int index = 0;                ///< 0 = pure definition, k = update k-1
  std::string name;             ///< "blur_x.s0"
  std::vector<LoopDim> loops;   ///< innermost first, as Halide orders them by default
  OpCounts ops;                 ///< per point
  std::vector<ProducerAccess> accesses;
  int64_t points = 0;           ///< estimated points computed (product of loop extents)
  std::string definition;       ///< "f(x, y) = ..." for display
  /// Update stages: an associative and commutative reduction of one 32-bit value (a histogram's
  /// +=, a max...), so its reduction loops may run in parallel with atomic updates.
  bool atomic_safe = false;
  /// Update stages of one value with reduction loops whose reduction Halide proves associative
  /// and commutative (sums, max, min, histograms of any type): rfactor may compute partial
  /// results along a reduction loop in parallel (StageTiling::partials).
  bool rfactor_safe = false;
  /// Update stages whose stored index depends on a reduction loop (a histogram's bin).
  bool scatter = false;
  /// Atomic-safe updates: call sites per producer in the stored index and in the rest of the
  /// value, for predicting whether Halide lowers the atomic to a compare-and-swap loop
  /// (dag/atomic_index.h, search/atomic_lowering.h).
  std::map<std::string, int64_t> index_reads, increment_reads;
  /// The same index's call sites, each with the calls whose arguments hold it.
  std::map<std::string, std::vector<EnclosingCalls>> index_call_sites;
  /// Pure definitions: call sites per producer, and the uses of the Func's own arguments, each
  /// with the calls whose arguments hold it (where an inlined call's arguments land).
  std::map<std::string, std::vector<EnclosingCalls>> call_sites;
  std::vector<EnclosingCalls> argument_uses;
  /// Pure definitions: loops whose phase selects what a point computes (at most three), and
  /// the folded counts for each non-empty subset of them (key: bitmask over phase_loops).
  std::vector<PhaseLoop> phase_loops;
  std::map<unsigned, FoldedStage> folded;
  /// Update stages: per pure loop over a constant dim of a few values (2..32), the counts of all
  /// its values' copies together, with the subexpressions they share counted once, as the copies
  /// are when the loop is unrolled inside each reduction step (bgu's splat computes a pixel's
  /// weight once for its 22 sums). `phases` holds the copies.
  std::map<std::string, FoldedStage> unrolled_jointly;
  bool has_rvars() const;
  ArithmeticOps arithmetic_ops() const;  ///< per point
  /// Arithmetic of the average point with every phase loop known (arithmetic_ops().total()
  /// without phase loops).
  double arithmetic_with_phases_known() const;
};

/// The arithmetic of operation counts (as StageNode::arithmetic_ops).
ArithmeticOps arithmetic_ops_of(const OpCounts &ops);

/// An input of the pipeline: a buffer or a scalar parameter.
struct InputNode {
  std::string name;
  bool is_buffer = true;
  Halide::Type type;
  std::vector<Span> estimate;   ///< buffer: per dim; scalar: empty
  bool has_estimates = false;
  std::string scalar_estimate;  ///< scalar: its estimate, printed
};

/// A Func of the pipeline (never an input).
struct FuncNode {
  std::string name;
  std::vector<std::string> args;       ///< pure argument names
  std::vector<Halide::Type> types;     ///< one per tuple element
  bool is_output = false;
  bool has_extern_definition = false;
  bool is_boundary_condition = false;  ///< made by Halide::BoundaryConditions (clamped loads of one producer)
  /// Halide 14 clamps this Func's calls to its value bounds where they index another Func (its
  /// values are bounded short of its type's whole range): see dag/atomic_index.h.
  bool clamped_in_indexes = false;
  bool repeats_subexpression = false;  ///< its definition holds a repeated subexpression (a let)
  bool repeats_argument = false;       ///< its definition uses one of its arguments more than once
  /// Its definition reflects its index at the boundary through likely(), abs() and %
  /// (BoundaryConditions::mirror_interior, or the same written by hand; mirror_image reflects
  /// without abs() and is not marked); see kernel_model.cpp.
  bool mirrors_at_boundary = false;
  std::vector<Span> region;            ///< region computed under the estimates (required by consumers)
  /// Per dim: every consumer reads it at constant coordinates, so its region (`region`) is known
  /// when the pipeline compiles (demosaiced(x, y, 0..2)); never for outputs.
  std::vector<bool> fixed_dims;
  /// Per dim: its region is the same whatever the pipeline's sizes, because its consumers read it
  /// at constant coordinates or at coordinates that follow their own constant dims (bgu's grid
  /// along its 22 channels, read through three blurs by the affine fit's constant indices). Never
  /// for outputs. Halide bounds such a region by a constant.
  std::vector<bool> constant_dims;
  bool region_is_bounded = true;       ///< false when the required region could not be bounded
  /// It can be computed past the region its consumers need (a RoundUp split) without reading an
  /// input buffer or an output's region out of bounds: each read on the way to an input is
  /// clamped, or of a Func that can itself be computed further.
  bool computable_past_region = false;
  std::vector<StageNode> stages;
  std::vector<std::string> producers;  ///< Funcs (not inputs) this one reads
  std::vector<std::string> consumers;  ///< Funcs that read this one
  int64_t bytes_per_point() const;
};

/// A producer -> consumer edge (one per consumer stage that reads the producer).
struct DagEdge {
  std::string producer;
  std::string consumer;
  int consumer_stage = 0;
};

struct PipelineDag {
  std::vector<FuncNode> funcs;  ///< producers before consumers (a topological order)
  std::vector<InputNode> inputs;
  std::vector<DagEdge> edges;
  std::vector<std::string> outputs;
  bool has_atomic_safe_updates = false;  ///< some update may run with atomics (StageNode::atomic_safe)

  const FuncNode *find(const std::string &name) const;
  int index_of(const std::string &name) const;  ///< -1 if absent
};

/// Raised when the pipeline lacks what scheduling needs, with a message naming what is missing.
class MissingEstimatesError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Extracts the DAG. Throws MissingEstimatesError when an output or an input buffer has no
/// estimates (the message names each one).
PipelineDag build_pipeline_dag(const Halide::Pipeline &pipeline);

}  // namespace hlsched
