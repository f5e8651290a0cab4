// A complete schedule as data: what each Func's stages should do, as a list of Halide scheduling
// directives.
//
// This one object has two outputs that must never disagree: apply_schedule() calls Halide's
// scheduling API on a Pipeline, and emit_schedule_source() prints the C++ a user pastes into the
// generator's schedule(). Both interpret the same directives one by one, so what is applied is
// exactly what is printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "Halide.h"

namespace hlsched {

/// The terms of a Directive::Specialize condition, on one dimension of an output's buffer.
enum class SpecializeTerm : int64_t { Aligned = 0, Extent = 1, ExtentMultiple = 2 };

/// One scheduling call on a stage, mirroring Halide's API.
struct Directive {
  enum class Kind {
    ComputeRoot,     ///< f.compute_root()
    ComputeAt,       ///< f.compute_at(at_func, vars[0])
    StoreIn,         ///< f.store_in(memory)
    Split,           ///< .split(vars[0], vars[1], vars[2], factors[0], tail)
    Fuse,            ///< .fuse(vars[0], vars[1], vars[2])  (inner, outer, fused)
    Reorder,         ///< .reorder(vars...)  innermost first
    GpuTile,         ///< .gpu_tile(v..., outer..., inner..., sizes..., tail) for 1-3 dims
    GpuBlocks,       ///< .gpu_blocks(vars...)
    GpuThreads,      ///< .gpu_threads(vars...)
    GpuSingleThread, ///< .gpu_single_thread()
    Unroll,          ///< .unroll(vars[0])
    Vectorize,       ///< .vectorize(vars[0])
    Atomic,          ///< .atomic()
    RFactor,         ///< Func at_func = .rfactor(vars[0], vars[1]): the RVar factored out, the
                     ///< new pure Var; at_func names the intermediate Func it returns, whose own
                     ///< FuncSchedule follows. It ends a chain of calls (the stage continues anew).
    BoundExtent,     ///< f.bound_extent(vars[0], factors[0])
    AlignBounds,     ///< f.align_bounds(vars[0], factors[0])
    Specialize,      ///< f.specialize(term && ...): triples (term, dim, value) in factors, a term
                     ///< SpecializeTerm::Aligned `f.output_buffer().dim(dim).min() % value == 0`,
                     ///< SpecializeTerm::Extent `f.output_buffer().dim(dim).extent() == value` or
                     ///< SpecializeTerm::ExtentMultiple `...extent() % value == 0`; ends the
                     ///< stage's directives (the specialization copies the schedule made so far)
    ComputeWith,     ///< .compute_with(at_func, vars[0]): one loop nest with at_func's down to
                     ///< that loop (loops of the same names, hence one GPU kernel)
    SpecializeStage, ///< f.specialize(term && ...) as Specialize, opening the specialization's own
                     ///< schedule: the directives after it (stage calls only) apply to the Stage it
                     ///< returns, up to an EndSpecialization
    EndSpecialization,  ///< ends a SpecializeStage's chain of calls; what follows schedules the
                        ///< general case (nothing is emitted for it)
    AlignStorage,    ///< f.align_storage(vars[0], factors[0]): the allocation's extent along it
                     ///< rounded up to a multiple (a padded row of shared memory)
  };
  Kind kind;
  std::vector<std::string> vars;     ///< Halide names of loop variables (Var or RVar)
  std::vector<int64_t> factors;
  Halide::TailStrategy tail = Halide::TailStrategy::Auto;
  std::string at_func;               ///< ComputeAt; RFactor: the intermediate Func
  Halide::MemoryType memory = Halide::MemoryType::Auto;  ///< StoreIn
};

/// The directives of one stage (0 = pure definition, k = update k-1).
struct StageSchedule {
  int stage = 0;
  std::vector<Directive> directives;
  std::vector<std::string> rvars;  ///< names that are RVars in this stage (split products included)
};

/// Where a Func is computed.
enum class ComputeLevel { Inline, Root, Block, Thread };

/// Everything decided for one Func.
struct FuncSchedule {
  std::string func;
  ComputeLevel level = ComputeLevel::Inline;
  std::vector<StageSchedule> stages;  ///< empty when inlined
  std::string comment;                ///< one line: where it lives and what it is predicted to cost
};

struct ScheduleSpec {
  std::vector<FuncSchedule> funcs;  ///< in emission order (outputs first)
  std::vector<std::string> header_comments;

  const FuncSchedule *find(const std::string &func) const;
};

/// How GPU directives are applied. Cpu maps blocks to parallel loops and threads to serial loops
/// with identical splits: the same loop nest, runnable in tests on machines without a GPU.
enum class ApplyMode { Gpu, Cpu };

/// Applies the schedule to the pipeline's Funcs (found by name). Throws std::runtime_error when a
/// Func named by the schedule is not in the pipeline.
void apply_schedule(const ScheduleSpec &schedule, const Halide::Pipeline &pipeline, ApplyMode mode = ApplyMode::Gpu);

/// Where the emitted code gets the Pipeline from.
enum class EmitContext {
  GeneratorSchedule,  ///< the body of a Generator's schedule(): uses get_pipeline()
  PipelineFunction,   ///< the body of a function taking `Halide::Pipeline pipeline`
};

/// C++ statements that apply the schedule, readable and compilable as pasted.
std::string emit_schedule_source(const ScheduleSpec &schedule, EmitContext context = EmitContext::GeneratorSchedule);

/// A C++ identifier for a Halide name: "blur_x" stays, "r$x" -> "r_x", "repeat_edge$1" ->
/// "repeat_edge_1", "_0" -> "v_0"; C++ keywords get a suffix.
std::string cpp_identifier(const std::string &halide_name);

}  // namespace hlsched
