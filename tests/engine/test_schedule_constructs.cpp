// The schedule space's constructs (docs/ARCHITECTURE.md, "The schedule space"), each on a small
// pipeline: random walks reach it, its schedule compiles for CUDA, its CPU twin computes exactly
// what compute_root computes, and the kernel model charges what it should.
// Cost: a few dozen random walks over fused_reductions_small (milliseconds each), then per
// construct one CUDA compile and one CPU JIT (about a second each).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <optional>

#include "first_options.h"
#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "cost/folded_phases.h"
#include "cost/gpu_cost_model.h"
#include "cost/kernel_model.h"
#include "cost/learned_model.h"
#include "schedule/state_to_spec.h"
#include "search/constructs.h"
#include "search/decision_options.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

constexpr uint64_t kSeed = 2026;
constexpr int kMaxWalks = 200;

// A generator instantiated twice for the CPU: with every Func at root (the reference), and under
// the schedule `state_of` gives its DAG (the CPU twin of that GPU schedule).
struct CpuTwin {
  GeneratorInstance reference, scheduled;
};
CpuTwin cpu_twin(const std::string &generator, const std::function<ScheduleState(const PipelineDag &)> &state_of,
                 const std::map<std::string, std::string> &params = {}) {
  CpuTwin twin{instantiate_generator(generator, cpu_target(), params, false),
               instantiate_generator(generator, cpu_target(), params)};
  schedule_compute_root_everywhere(twin.reference.pipeline);
  const PipelineDag dag = build_pipeline_dag(twin.scheduled.pipeline);
  apply_schedule(state_to_spec(dag, state_of(dag), find_gpu_profile("h200")), twin.scheduled.pipeline, ApplyMode::Cpu);
  return twin;
}

// The pipeline run on the CPU into `out` (its inputs bound already).
Halide::Buffer<float> realized_on_cpu(const Halide::Pipeline &p, Halide::Buffer<float> out) {
  Halide::Pipeline handle = p;
  handle.realize(out, cpu_target());
  return out;
}

bool uses(const ScheduleResult &r, const std::string &construct) {
  return std::find(r.constructs.begin(), r.constructs.end(), construct) != r.constructs.end();
}

Halide::Realization run(const Halide::Pipeline &p, const Halide::Buffer<float> &input) {
  bind_input(p, "input", input);
  Halide::Pipeline handle = p;
  std::vector<Halide::Buffer<>> outputs = {Halide::Buffer<float>(41, 23), Halide::Buffer<float>(41, 23)};
  Halide::Realization realization(outputs);
  handle.realize(realization, cpu_target());
  return realization;
}

// The first random walk (by index) that uses `construct`, or -1.
int first_walk_using(const std::string &construct) {
  auto inst = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  auto walks = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, kMaxWalks, kSeed);
  for (size_t i = 0; i < walks.size(); i++)
    if (uses(walks[i], construct)) return int(i);
  return -1;
}

ScheduleResult walk(const GeneratorInstance &inst, int index) {
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  return sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 1, kSeed, index).front();
}

}  // namespace

TEST_CASE("every construct of the schedule space compiles and is exact", "[schedule][constructs]") {
  const Halide::Buffer<float> input = random_buffer<float>({41, 23}, 31, -4, 4);
  auto reference = instantiate_generator("fused_reductions_small", cpu_target(), {}, false);
  schedule_compute_root_everywhere(reference.pipeline);
  Halide::Realization expected = run(reference.pipeline, input);

  for (const std::string construct : {"reduction fused per block", "fused into a kernel with updates",
                                      "points per thread along x", "2-D points per thread",
                                      "non-power-of-two points per thread", "update tiled independently",
                                      "unrolled reduction loop", "reduction in slabs",
                                      "copied per slab into shared memory"}) {
    const int index = first_walk_using(construct);
    INFO(construct);
    REQUIRE(index >= 0);

    // Each instance has its own Func names: each draws its own copy of the walk.
    auto gpu = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
    ScheduleResult gpu_walk = walk(gpu, index);
    INFO(gpu_walk.schedule_code);
    REQUIRE(uses(gpu_walk, construct));
    apply_schedule(gpu_walk.schedule, gpu.pipeline, ApplyMode::Gpu);
    CHECK(compile_pipeline(gpu.pipeline, default_gpu_target()).gpu_kernels() > 0);

    auto cpu = instantiate_generator("fused_reductions_small", cpu_target(), {});
    apply_schedule(walk(cpu, index).schedule, cpu.pipeline, ApplyMode::Cpu);
    Halide::Realization got = run(cpu.pipeline, input);
    for (size_t k = 0; k < got.size(); k++) {
      Halide::Buffer<float> a = got[k], b = expected[k];
      CHECK(count_differences(a, b) == 0);
    }
  }
}

TEST_CASE("a reduction fused per block is charged its shared memory and barriers", "[schedule][constructs]") {
  auto inst = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
  const int index = first_walk_using("reduction fused per block");
  REQUIRE(index >= 0);
  ScheduleResult r = walk(inst, index);
  INFO(r.schedule_code);
  // The kernel computing the box sums per block: its shared-memory and barrier terms are not zero.
  bool charged = false;
  for (const StageCost &c : r.stages)
    if (c.func.rfind("blurred", 0) == 0 && c.terms_ms.count("shared_memory") && c.terms_ms.at("shared_memory") > 0 &&
        c.terms_ms.at("sync") > 0)
      charged = true;
  // The reduction's update runs on the block's threads over its own points, in the emitted text.
  CHECK(r.schedule_code.find(".update(0)") != std::string::npos);
  CHECK(charged);
}

// Halide bounds a kernel's thread loops over all its blocks at once; where a Func computed per
// block reads clamped coordinates (a boundary condition), that bound is the whole image, and a
// bare gpu_threads over such a Func launched 1536x2560 threads per block (interpolate on the
// H200: CUDA_ERROR_INVALID_VALUE). Its thread loops are split by the region the model expects;
// the Funcs per block with affine reads only go to the threads unsplit, bounded by the tile's
// image. With the output's size pinned, every launch's thread count folds to a number.
TEST_CASE("a Func fused per block runs on a bounded number of threads behind clamped reads",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {});
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  auto walks = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, kMaxWalks, kSeed);
  int checked = 0;
  for (size_t i = 0; i < walks.size() && checked < 3; i++) {
    // A Func reading the input through its clamp (or the clamp itself) computed per block.
    const auto &funcs = walks[i].schedule.funcs;
    if (std::none_of(funcs.begin(), funcs.end(), [](const FuncSchedule &f) {
          return f.level == ComputeLevel::Block && (f.func.rfind("repeat_edge", 0) == 0 || f.func.rfind("input_im", 0) == 0);
        }))
      continue;
    auto gpu = instantiate_generator("stencil_small", default_gpu_target(), {});
    ScheduleResult again = walk(gpu, int(i));
    INFO(again.schedule_code);
    apply_schedule(again.schedule, gpu.pipeline, ApplyMode::Gpu);
    for (const Halide::Func &out : gpu.pipeline.outputs())
      out.output_buffer().dim(0).set_bounds(0, 1024).dim(1).set_bounds(0, 768);  // its estimates
    const std::string stmt = compile_pipeline(gpu.pipeline, default_gpu_target()).lowered_stmt;
    INFO("thread extents: " << Catch::StringMaker<std::vector<std::string>>::convert(launch_thread_extents(stmt)));
    for (int64_t threads : launch_block_threads(stmt)) {
      REQUIRE(threads > 0);  // every extent a constant
      CHECK(threads <= 1024);
    }
    checked++;
  }
  CHECK(checked == 3);
}

namespace {

// The root decision of `func` in fused_reductions_small whose update follows the pure stage's
// tiling of `width` threads along x (the first such option of the search).
FuncDecision inherited_root(const PipelineDag &dag, int func, int64_t width) {
  for (const FuncDecision &d : standalone_options(dag, func, find_gpu_profile("h200"), OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[0].threads[0] == width &&
        !d.tilings[1].own_tiling && d.tilings[1].reduction_unroll == 1 && d.tilings[1].slab == 0)
      return d;
  FAIL("no root option " << width << " threads wide");
  return {};
}

KernelCost update_cost(const PipelineDag &dag, int func, const FuncDecision &d, KernelModel *model = nullptr) {
  ScheduleState state(dag);
  state.decide(func, d);
  KernelModel km = build_kernel_model(dag, state, func, 1, find_gpu_profile("h200"));
  REQUIRE(km.valid);
  if (model) *model = km;
  return cost_of_kernel(km, find_gpu_profile("h200"));
}

}  // namespace

TEST_CASE("an unrolled reduction loop is charged a shorter chain of steps and fewer read-modify-writes",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const int weighted = func_named(dag, "weighted");
  REQUIRE(weighted >= 0);
  FuncDecision rolled = inherited_root(dag, weighted, 32);
  // Its reduction loop has 3 taps: unrolled whole.
  REQUIRE(reduction_unroll_factors(dag.funcs[weighted].stages[1], rolled.tilings[1]) == std::vector<int64_t>{3});
  FuncDecision unrolled = rolled;
  unrolled.tilings[1].reduction_unroll = 3;
  KernelModel a, b;
  const KernelCost before = update_cost(dag, weighted, rolled, &a), after = update_cost(dag, weighted, unrolled, &b);
  CHECK(after.terms_ms.at("reduction_chain") < before.terms_ms.at("reduction_chain"));
  CHECK(b.update_rmw_bytes == Approx(a.update_rmw_bytes / 3));
  CHECK(a.serial_steps_per_thread == Approx(3 * double(rolled.tilings[1].points_per_thread())));

  // Emitted: the taps' loop split by 3 and unrolled, declared as reduction loops.
  ScheduleState state(dag);
  for (int f = 0; f < int(dag.funcs.size()); f++) state.decide(f, standalone_options(dag, f, find_gpu_profile("h200"), OptionLimits{}).back());
  state.decide(weighted, unrolled);
  const std::string code = emit_schedule_source(state_to_spec(dag, state, find_gpu_profile("h200")), EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".update(0).split(k_x, k_xo, k_xi, 3, TailStrategy::GuardWithIf)\n    .unroll(k_xi)") !=
        std::string::npos);
  CHECK(code.find("RVar k_x(\"k$x\"), k_xi(\"k$xi\"), k_xo(\"k$xo\")") != std::string::npos);
}

TEST_CASE("a prefix sum's unrolled steps pass the running value on; other reads of itself do not",
          "[schedule][constructs][cost_model]") {
  // Each step reads its own point and the one the step before wrote: the compiler forwards each
  // store to the next step's load (5.3-5.5x faster unrolled by 8 on an H100). A scan whose row
  // is the image's height minus the loop (iir_blur's second) ran no faster, nor is one reading
  // two steps back credited.
  using namespace Halide;
  ImageParam in(Float(32), 2, "in");
  in.dim(0).set_estimate(0, 1024);
  in.dim(1).set_estimate(0, 512);
  Var x("x"), y("y");
  Func prefix("prefix"), upward("upward"), two_back("two_back"), out("out");
  RDom r(1, 511, "r_prefix");
  prefix(x, y) = in(x, y);
  prefix(x, r) = prefix(x, r - 1) + prefix(x, r);
  RDom u(0, in.dim(1).extent() - 1, "r_upward");
  Expr row = in.dim(1).extent() - 2 - u;
  upward(x, y) = in(x, y);
  upward(x, row) = upward(x, row + 1) * 0.5f + upward(x, row) * 0.5f;
  RDom s(2, 510, "r_two_back");
  two_back(x, y) = in(x, y);
  two_back(x, s) = two_back(x, s - 2) + two_back(x, s);
  out(x, y) = prefix(x, y) + upward(x, y) + two_back(x, y);
  out.set_estimates({{0, 1024}, {0, 512}});
  const PipelineDag dag = build_pipeline_dag(Pipeline(out));
  const GpuProfile &gpu = find_gpu_profile("h200");
  auto unrolled_steps = [&](const char *name) {
    const int f = func_named(dag, name);
    REQUIRE(f >= 0);
    for (FuncDecision d : standalone_options(dag, f, gpu, OptionLimits{})) {
      if (d.level != ComputeLevel::Root || d.tilings.size() != 2 || d.tilings[1].single_thread) continue;
      d.tilings[1].reduction_unroll = 8;
      KernelModel km;
      update_cost(dag, f, d, &km);
      return km.unrolled_steps;
    }
    FAIL("no root option of " << name);
    return 0.0;
  };
  CHECK(unrolled_steps("prefix") == 8);
  CHECK(unrolled_steps("upward") == 1);
  CHECK(unrolled_steps("two_back") == 1);
}

TEST_CASE("the search's cost model ranks an update's unrolls and own tilings", "[schedule][constructs][cost_model]") {
  // A learned model that charges every kernel its launch alone: all of an update's tilings and
  // unrolls tie, so none is ranked above the loop as written and the first own tiling stays.
  CostModelWeights flat = CostModelWeights::initial(3);
  for (int t = 0; t < kTermCount; t++)
    if (t != kTermLaunch) flat.output_bias[t] = -hand_coefficients()[size_t(t)];
  const LearnedCostModel model(flat, "test: launch only");
  OptionLimits by_flat;
  by_flat.model = &model;
  const GpuProfile &gpu = find_gpu_profile("h200");
  // The updates' tilings among a Func's options, in order.
  auto update_tilings = [&](const PipelineDag &dag, int func, const OptionLimits &limits) {
    std::vector<std::string> out;
    for (const FuncDecision &d : standalone_options(dag, func, gpu, limits))
      for (size_t s = 1; s < d.tilings.size(); s++) {
        std::string t = std::to_string(d.tilings[s].reduction_unroll) + (d.tilings[s].own_tiling ? " own" : "");
        for (int64_t n : d.tilings[s].threads) t += " " + std::to_string(n);
        out.push_back(t);
      }
    return out;
  };
  int differing = 0;
  for (const char *generator : {"fused_reductions_small", "reductions_small", "scans_shared"}) {
    auto inst = instantiate_generator(generator, default_gpu_target(), {});
    const PipelineDag dag = build_pipeline_dag(inst.pipeline);
    for (int f = 0; f < int(dag.funcs.size()); f++) {
      if (dag.funcs[f].stages.size() < 2) continue;
      for (const FuncDecision &d : standalone_options(dag, f, gpu, by_flat))
        for (size_t s = 1; s < d.tilings.size(); s++) CHECK(d.tilings[s].reduction_unroll == 1);
      if (update_tilings(dag, f, by_flat) != update_tilings(dag, f, OptionLimits{})) differing++;
    }
  }
  // The hand model ranks some update otherwise: the model in OptionLimits is the one that ranks.
  CHECK(differing > 0);
}

TEST_CASE("an update tiled on its own runs at least a warp per block where it inherits fewer threads",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const int weighted = func_named(dag, "weighted");
  REQUIRE(weighted >= 0);
  // A pure stage 16 wide hands its update 16-thread rows of blocks.
  const FuncDecision inherited = inherited_root(dag, weighted, 16);
  const std::vector<StageTiling> own = own_update_tilings(dag.funcs[weighted].stages[1], find_gpu_profile("h200"));
  REQUIRE_FALSE(own.empty());
  for (const StageTiling &t : own) {
    CHECK(t.own_tiling);
    CHECK(t.threads_per_block() >= 32);
    CHECK(t.threads_per_block() <= 256);
    CHECK(t.threads[0] >= 32);  // whole warps along the coalescing loop
  }
  // The kernel model sees the idle half-warps of the inherited tiling: an own tiling 32 wide
  // and as many threads per block does not cost more.
  FuncDecision mine = inherited;
  for (const StageTiling &t : own)
    if (t.threads_per_block() == inherited.tilings[1].threads_per_block() && t.threads[0] == 32) mine.tilings[1] = t;
  REQUIRE(mine.tilings[1].own_tiling);
  CHECK(update_cost(dag, weighted, mine).total_ms <= update_cost(dag, weighted, inherited).total_ms);
}

namespace {

const FusedFunc &fused_in(const KernelModel &km, int func) {
  for (const FusedFunc &f : km.fused)
    if (f.func == func) return f;
  FAIL("Func " << func << " is not fused into the kernel");
  return km.fused.front();
}

double global_loads_per_block(const KernelModel &km) {
  double loads = 0;
  for (const GlobalRead &g : km.global_reads) loads += g.loads_per_block;
  return loads;
}

}  // namespace

// weighted's update sums 3 taps of gradient along y. Staged in slabs of 2 taps, gradient is
// copied into shared memory once per slab (2 slabs) by the block's threads: per slab it needs
// the block's rows plus one, not plus two, and every slab costs barriers.
TEST_CASE("a producer copied per slab of a reduction is charged one slab of shared memory and its barriers",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("fused_reductions_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int weighted = func_named(dag, "weighted"), gradient = func_named(dag, "gradient");
  REQUIRE(weighted >= 0);
  REQUIRE(gradient >= 0);
  FuncDecision staged = inherited_root(dag, weighted, 32);
  REQUIRE(slab_sizes(dag.funcs[weighted].stages[0], staged.tilings[0]).empty());  // pure stages have no slabs
  REQUIRE(slab_sizes(dag.funcs[weighted].stages[1], staged.tilings[1]) == std::vector<int64_t>{2});
  staged.tilings[1].slab = 2;

  ScheduleState state(dag);
  for (int f = 0; f < int(dag.funcs.size()); f++) state.decide(f, standalone_options(dag, f, gpu, OptionLimits{}).back());
  state.decide(weighted, staged);
  const std::vector<FuncDecision> fusions = fusion_options(dag, state, gradient, gpu, OptionLimits{});
  REQUIRE(std::any_of(fusions.begin(), fusions.end(), [](const FuncDecision &d) { return d.per_slab; }));

  FuncDecision per_block{ComputeLevel::Block, weighted, {}}, per_slab = per_block;
  per_slab.per_slab = true;
  ScheduleState whole = state, slabs = state;
  whole.decide(gradient, per_block);
  slabs.decide(gradient, per_slab);
  const KernelModel a = build_kernel_model(dag, whole, weighted, 1, gpu), b = build_kernel_model(dag, slabs, weighted, 1, gpu);
  REQUIRE(a.valid);
  REQUIRE(b.valid);
  const FusedFunc &block_copy = fused_in(a, gradient), &slab_copy = fused_in(b, gradient);
  CHECK(slab_copy.slabs == 2);
  CHECK(block_copy.slabs == 1);
  // Rows per slab: the block's rows + 1 (2 taps), against + 2 for the whole reduction.
  const double rows = double(staged.tilings[1].tile(1));
  CHECK(block_copy.bytes_per_block == Approx(block_copy.box[0] * (rows + 2) * 4));
  CHECK(slab_copy.bytes_per_block == Approx(slab_copy.box[0] * (rows + 1) * 4));
  CHECK(slab_copy.points_per_block == Approx(2 * slab_copy.box[0] * (rows + 1)));
  CHECK(cost_of_kernel(b, gpu).terms_ms.at("sync") > cost_of_kernel(a, gpu).terms_ms.at("sync"));

  // Emitted: the taps' loop split into slabs outside the thread loops, gradient computed at it.
  const std::string code = emit_schedule_source(state_to_spec(dag, slabs, gpu), EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".update(0).split(k_x, k_xs, k_xw, 2, TailStrategy::GuardWithIf)") != std::string::npos);
  CHECK(code.find("xi, yi, k_xs, xo, yo)") != std::string::npos);
  // gradient's compute_at, then its threads: its reads are affine, its loops go to them as they are
  CHECK(code.find(", k_xs)\n    .gpu_threads(x, y);") != std::string::npos);
  CHECK(code.find("RVar k_x(\"k$x\"), k_xs(\"k$xs\"), k_xw(\"k$xw\")") != std::string::npos);
}

namespace {

// register_tile_small with `out` computed over tiles of 4x4 points per thread and `prod` (its
// matrix product) per thread in registers: the construct "reduction fused per thread
// (registers)". Without `decide_prod`, prod is left undecided (the search's view of it).
ScheduleState register_tile_state(const PipelineDag &dag, bool decide_prod) {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), prod = func_named(dag, "prod");
  REQUIRE(out >= 0);
  REQUIRE(prod >= 0);
  ScheduleState state(dag);
  for (const FuncDecision &d : standalone_options(dag, out, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && d.tilings[0].serial == std::vector<int64_t>{4, 4} &&
        d.tilings[0].threads == std::vector<int64_t>{32, 8}) {
      state.decide(out, d);
      break;
    }
  REQUIRE(state.decided[out]);
  if (decide_prod) {
    const std::vector<FuncDecision> fusions = fusion_options(dag, state, prod, gpu, OptionLimits{});
    const auto thread = std::find_if(fusions.begin(), fusions.end(),
                                     [](const FuncDecision &d) { return d.level == ComputeLevel::Thread; });
    REQUIRE(thread != fusions.end());
    state.decide(prod, *thread);
  }
  return state;
}

Halide::Buffer<float> run_register_tile(const Halide::Pipeline &p) {
  bind_input(p, "a", random_buffer<float>({17, 23}, 5, -2, 2));
  bind_input(p, "b", random_buffer<float>({41, 17}, 6, -2, 2));
  return realized_on_cpu(p, Halide::Buffer<float>(41, 23));  // not multiples of the 4x4 tiles nor of the blocks
}

}  // namespace

TEST_CASE("a reduction fused per thread holds a 2-D tile of accumulators in registers", "[schedule][constructs]") {
  auto inst = instantiate_generator("register_tile_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), prod = func_named(dag, "prod");
  REQUIRE(register_tile_reduction(dag, out) == prod);
  const ScheduleState state = register_tile_state(dag, true);
  CHECK(decision_constructs(dag, prod, state.decisions[prod]) ==
        std::vector<std::string>{"fused per thread", "reduction fused per thread (registers)"});

  // Kernel model: the 4x4 accumulators in registers, each of the 256 steps (the estimates') loading
  // 4 values of a and 4 of b for 16 products; the thread's chain is the 256 steps, not 256 x 16.
  const KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
  REQUIRE(km.valid);
  const FusedFunc &fused = fused_in(km, prod);
  CHECK(fused.in_registers);
  CHECK(fused.thread_box == std::vector<double>{4, 4});
  CHECK(km.serial_steps_per_thread == 256);
  CHECK(global_loads_per_block(km) == Approx(km.threads_per_block * 256 * (4 + 4)));
  CHECK(km.registers_per_thread >= 16 + 24);
  CHECK(cost_of_kernel(km, gpu).terms_ms.count("reduction_chain"));

  // The search's view before prod is decided: the kernel is costed with prod inside it.
  const ScheduleState ahead = register_tile_state(dag, false);
  const KernelModel looked = build_kernel_model(dag, ahead, out, 0, gpu);
  REQUIRE(looked.valid);
  CHECK(fused_in(looked, prod).in_registers);
  CHECK(cost_of_kernel(looked, gpu).total_ms == Approx(cost_of_kernel(km, gpu).total_ms));

  // Emitted: prod at the innermost thread loop, in registers, its tile unrolled inside the
  // reduction loop.
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  // (Halide names a Func "prod$N" when earlier tests of the process made Funcs named prod: the
  // emitted variable is then prod_N, so only the directives are matched; `out` likewise, whose
  // variable is the emitter's cpp_identifier of its DAG name.)
  CHECK(code.find(".compute_at(" + cpp_identifier(dag.funcs[out].name) + ", xi)") != std::string::npos);
  CHECK(code.find(".store_in(MemoryType::Register)") != std::string::npos);
  CHECK(code.find(".update(0).reorder(x, y, k_x)\n    .unroll(x)\n    .unroll(y)") != std::string::npos);

  // Applied, it compiles for CUDA with no per-thread array in local memory; its CPU twin
  // computes exactly what compute_root computes, at sizes that are not multiples of the tiles.
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(inst.pipeline, default_gpu_target());
  CHECK(compiled.gpu_kernels() > 0);
  REQUIRE(compiled.lowered_stmt.find("fma.rn.f32") != std::string::npos);  // the kernel's PTX is in the text
  CHECK(compiled.lowered_stmt.find("ld.local") == std::string::npos);

  const CpuTwin twin = cpu_twin("register_tile_small", [](const PipelineDag &d) { return register_tile_state(d, true); });
  CHECK(count_differences(run_register_tile(twin.scheduled.pipeline), run_register_tile(twin.reference.pipeline)) == 0);
}

// Halide compiles the blocks whose tile runs past the output (GuardWithIf) as a copy of the kernel
// with each unrolled point in an `if` of its own: no load is shared between the points there.
// conv_layer's 64-column tiles over 56 columns made every block such a tail (4.5 ms measured on
// the H200 for 1.1 ms predicted; docs/PERFORMANCE.md, 2026-12-02, "Register tiles in tail blocks").
TEST_CASE("a register tile's tail blocks are charged a load per point", "[schedule][constructs]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  // The 128x32 tile of register_tile_state (32x8 threads, 4x4 points each) at three output sizes.
  auto kernel_at = [&](int size) {
    auto inst = instantiate_generator("register_tile_small", default_gpu_target(), {{"size", std::to_string(size)}});
    const PipelineDag dag = build_pipeline_dag(inst.pipeline);
    const ScheduleState state = register_tile_state(dag, true);
    const int out = func_named(dag, "out"), prod = func_named(dag, "prod");
    KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
    REQUIRE(km.valid);
    REQUIRE(fused_in(km, prod).in_registers);
    return km;
  };
  const KernelModel whole = kernel_at(2048), some = kernel_at(2000), all = kernel_at(120);
  CHECK(whole.guarded_block_fraction == 0);
  CHECK(global_loads_per_block(whole) == Approx(whole.threads_per_block * 256 * (4 + 4)));
  // 2000 columns: 15 of 16 block columns full; 2000 rows: 62 of 63 block rows full.
  CHECK(some.guarded_block_fraction == Approx(1 - (15.0 / 16) * (62.0 / 63)));
  // 120 columns in a 128-column tile: every block is a tail, each of its 120x32 points loading its
  // own a and b at each of the 256 steps.
  CHECK(all.guarded_block_fraction == 1);
  CHECK(global_loads_per_block(all) == Approx(120 * 32 * 256 * 2));
  // A block of the same tile does more work as a tail: the loads' addresses and a branch per point.
  CHECK(all.ops_per_block > whole.ops_per_block + 256 * 16 * all.threads_per_block);
}

// The search decides `out` before `prod`: without the lookahead (build_kernel_model) it ranked
// out's tilings with prod read from memory, all alike, and never kept a tile that a register
// reduction pays off on (conv_layer and mat_mul stayed at rows per thread).
TEST_CASE("the search holds a reduction in registers over a tile of points in two dimensions",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("register_tile_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.work_budget = 600;  // two Funcs: milliseconds, whatever the machine's load
  options.time_budget_s = 600;
  const ScheduleResult r = schedule_pipeline(inst.pipeline, dag, options);
  INFO(r.schedule_code);
  CHECK(uses(r, "reduction fused per thread (registers)"));
  CHECK((uses(r, "2-D points per thread") || uses(r, "points per thread along x")));
}

namespace {

// stencil_small's random walk `index`: compiled for CUDA, every launch's thread extents are
// constants within the hardware's 1024; on the CPU it computes what compute_root computes.
void check_stencil_small_walk(const std::map<std::string, std::string> &params, int index, uint32_t input_seed) {
  auto gpu = instantiate_generator("stencil_small", default_gpu_target(), params);
  ScheduleResult again = walk(gpu, index);
  INFO(again.schedule_code);
  apply_schedule(again.schedule, gpu.pipeline, ApplyMode::Gpu);
  for (const std::string &extent : launch_thread_extents(compile_pipeline(gpu.pipeline, default_gpu_target()).lowered_stmt)) {
    REQUIRE(is_number(extent));
    CHECK(std::stoll(extent) <= 1024);
  }
  const Halide::Buffer<float> input = random_buffer<float>({61, 37}, input_seed, -4, 4);
  auto reference = instantiate_generator("stencil_small", cpu_target(), params, false);
  schedule_compute_root_everywhere(reference.pipeline);
  auto cpu = instantiate_generator("stencil_small", cpu_target(), params);
  apply_schedule(walk(cpu, index).schedule, cpu.pipeline, ApplyMode::Cpu);
  Halide::Buffer<float> expected(61, 37), got(61, 37);
  for (auto *p : {&reference.pipeline, &cpu.pipeline}) {
    bind_input(*p, "input", input);
    bind_scalar(*p, "gain", 1.5f);
  }
  Halide::Pipeline(reference.pipeline).realize(expected, cpu_target());
  Halide::Pipeline(cpu.pipeline).realize(got, cpu_target());
  CHECK(count_differences(got, expected) == 0);
}

}  // namespace

TEST_CASE("a Func fused per block covers a box larger than the block in unrolled rows of a widened block",
          "[schedule][constructs][cost_model]") {
  // Harris's luma for a 64x32 tile of 64x8 threads: a 68x36 box. The block widens to the 68
  // columns and its 8 thread rows take 5 rows each, in one pass: 2,720 lanes for 2,448 points,
  // where passes of the root's 64x8 threads took 2x5 passes (5,120 lanes).
  const BlockFusedLayout halo = block_fused_layout({68, 36}, {64, 8, 1}, {64, 8}, 1024);
  CHECK(halo.threads == std::vector<int64_t>{68, 8});
  CHECK(halo.rows == std::vector<int64_t>{1, 5});
  CHECK(halo.block_shape == std::vector<double>{68, 8, 1});
  CHECK(halo.passes == 1);
  // A box that fits the hardware's block is one pass, the block grown to it.
  const BlockFusedLayout small = block_fused_layout({34, 10}, {32, 8, 1}, {32, 8}, 1024);
  CHECK(small.threads == std::vector<int64_t>{34, 10});
  CHECK(small.rows == std::vector<int64_t>{1, 1});
  CHECK(small.block_shape == std::vector<double>{34, 10, 1});
  // Far wider than the root's threads (an upsampling's producer): the columns in passes of the
  // root's 32; far taller than 8 rows a thread: the rows in passes too.
  const BlockFusedLayout wide = block_fused_layout({200, 300}, {32, 8, 1}, {32, 8}, 1024);
  CHECK(wide.threads == std::vector<int64_t>{32, 8});
  CHECK(wide.rows == std::vector<int64_t>{1, 1});
  CHECK(wide.passes == std::ceil(200.0 / 32) * std::ceil(300.0 / 8));
  CHECK(wide.block_shape == std::vector<double>{32, 8, 1});
  // One loop: never rows along the innermost dimension (they would stride the warps' accesses).
  const BlockFusedLayout line = block_fused_layout({2000}, {256, 1, 1}, {256}, 1024);
  CHECK(line.rows == std::vector<int64_t>{1});
  CHECK(line.threads == std::vector<int64_t>{256});
  CHECK(line.inner_dim == -1);
  // A third dimension of a few points (depthwise_separable_conv's depthwise stage for a block of
  // 4 rows per thread: 32 channels x 8 columns x 4 rows): whole in each thread, unrolled; with
  // more points, or more rows per thread already, it stays a loop.
  const BlockFusedLayout third = block_fused_layout({32, 8, 4, 1}, {32, 8, 1}, {32, 8}, 1024);
  CHECK(third.threads == std::vector<int64_t>{32, 8});
  CHECK(third.inner_dim == 2);
  CHECK(third.inner_points == 4);
  CHECK(block_fused_layout({32, 8, 16, 1}, {32, 8, 1}, {32, 8}, 1024).inner_dim == -1);
  CHECK(block_fused_layout({68, 36, 4}, {64, 8, 1}, {64, 8}, 1024).inner_dim == -1);  // 5 rows x 4
  CHECK(block_fused_layout({68, 36, 3}, {64, 8, 1}, {64, 8}, 1024).inner_dim == -1);
  CHECK(block_fused_layout({68, 16, 3}, {64, 8, 1}, {64, 8}, 1024).inner_points == 3);  // 2 rows x 3

  // In a schedule: stencil_small's walks, a Func per block with unrolled rows compiles, launches
  // the block the layout says, and its CPU twin computes what compute_root computes.
  const std::map<std::string, std::string> params = {{"radius", "4"}};
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), params);
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  auto walks = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, kMaxWalks, kSeed);
  int index = -1;
  for (size_t i = 0; i < walks.size() && index < 0; i++)
    for (const FuncSchedule &f : walks[i].schedule.funcs)
      if (f.level == ComputeLevel::Block && !f.stages.empty())
        for (const Directive &d : f.stages[0].directives)
          if (d.kind == Directive::Kind::Unroll) index = int(i);
  REQUIRE(index >= 0);

  check_stencil_small_walk(params, index, 7);
}

TEST_CASE("a Func fused per block that can be computed further runs its rows unrolled without guards",
          "[schedule][constructs][cost_model]") {
  // unsharp's stages for a 64x32 tile of 64x4 threads: a 72x40 box. Split RoundUp, its 40 rows
  // are 10 unrolled rows over the 4 thread rows in one pass (not 10 passes of one row).
  const BlockFusedLayout rows = block_fused_layout({72, 40}, {64, 4, 1}, {64, 4}, 1024, true);
  CHECK(rows.rows == std::vector<int64_t>{1, 10});
  CHECK(rows.threads == std::vector<int64_t>{72, 4});
  CHECK(rows.passes == 1);
  CHECK(rows.round_up);
  const BlockFusedLayout guarded = block_fused_layout({72, 40}, {64, 4, 1}, {64, 4}, 1024, false);
  CHECK(guarded.rows == std::vector<int64_t>{1, 1});
  CHECK(guarded.passes == 10);
  CHECK_FALSE(guarded.round_up);
  // Rows that would overshoot the box (5 rows x 8 threads over 36) keep their guards: rounded up,
  // the Func would need more of its producers than their layouts cover.
  const BlockFusedLayout overshoot = block_fused_layout({68, 36}, {64, 8, 1}, {64, 8}, 1024, true);
  CHECK(overshoot.rows == std::vector<int64_t>{1, 5});
  CHECK_FALSE(overshoot.round_up);
  CHECK_FALSE(block_fused_layout({72, 72}, {64, 4, 1}, {64, 4}, 1024, true).round_up);  // 18 rows: passes

  // In a schedule: stencil_small reads its input through repeat_edge, so its Funcs per block may
  // round up. A walk that does compiles with thread extents Halide can bound, and its CPU twin
  // computes what compute_root computes.
  const std::map<std::string, std::string> params = {{"radius", "4"}};
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), params);
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  auto walks = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, kMaxWalks, kSeed);
  int index = -1;
  for (size_t i = 0; i < walks.size() && index < 0; i++)
    for (const FuncSchedule &f : walks[i].schedule.funcs)
      if (f.level == ComputeLevel::Block && !f.stages.empty())
        for (const Directive &d : f.stages[0].directives)
          if (d.kind == Directive::Kind::Split && d.tail == Halide::TailStrategy::RoundUp) index = int(i);
  REQUIRE(index >= 0);
  INFO(walks[size_t(index)].schedule_code);
  CHECK_THAT(walks[size_t(index)].schedule_code, Catch::Contains("TailStrategy::RoundUp"));

  check_stencil_small_walk(params, index, 11);
}

namespace {

// Func `f` at root with its third loop (the channels) whole in each thread, over `threads` GPU
// threads and `serial` points per thread along its loops: standalone_options' first such tiling,
// re-tiled. Fails the test when there is none.
FuncDecision channels_in_thread(const PipelineDag &dag, int f, std::vector<int64_t> threads, std::vector<int64_t> serial) {
  for (FuncDecision d : standalone_options(dag, f, find_gpu_profile("h200"), OptionLimits{})) {
    if (d.level != ComputeLevel::Root || d.tilings[0].in_thread != std::vector<bool>{false, false, true}) continue;
    d.tilings[0].threads = std::move(threads);
    d.tilings[0].serial = std::move(serial);
    return d;
  }
  FAIL("no tiling with channels in the thread");
  return FuncDecision{};
}

// channel_models_small with `out` over 32 x `threads_y` threads, `rows` rows per thread and its
// three channels whole in each thread (unrolled), and `model` computed per thread.
ScheduleState channel_models_state(const PipelineDag &dag, int64_t rows, int64_t threads_y = 8) {
  const int out = func_named(dag, "out"), model = func_named(dag, "model");
  REQUIRE(out >= 0);
  REQUIRE(model >= 0);
  ScheduleState state(dag);
  state.decide(out, channels_in_thread(dag, out, {32, threads_y, 1}, {1, rows, 1}));
  // As the search reaches it: fused while the kernel had no in-thread loop, then the kernel
  // re-tiled (BeamSearch::add_retiled_fusions).
  state.decide(model, FuncDecision{ComputeLevel::Thread, out, {}});
  return state;
}

Halide::Buffer<float> run_channel_models(const Halide::Pipeline &p) {
  bind_input(p, "input", random_buffer<float>({41, 23, 3}, 7, -2, 2));
  return realized_on_cpu(p, Halide::Buffer<float>(41, 23, 3));  // not multiples of the blocks nor of the rows per thread
}

}  // namespace

// bgu's output applies 12 per-pixel coefficients to each of its 3 channels: with the channels
// unrolled in each thread, the coefficients computed per thread are registers (measured: the
// sliced models' own kernel, 0.084 ms on the H200, was most of the difference to the manual
// schedule). Its region per thread must have a constant bound, which Halide 14 could not find
// over rows per thread where one thread spans the block's rows (camera_pipe's demosaiced).
TEST_CASE("a Func computed per thread under unrolled channels lives in registers", "[schedule][constructs]") {
  auto inst = instantiate_generator("channel_models_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), model = func_named(dag, "model");
  const ScheduleState state = channel_models_state(dag, 4);
  REQUIRE(unrolls_in_thread_loops(dag, state, out, 0));

  // Kernel model: the model's 4 rows per thread in registers, not local memory; each input value
  // is loaded once per thread pass, whichever channel reads it.
  const KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
  REQUIRE(km.valid);
  const FusedFunc &fused = fused_in(km, model);
  CHECK(fused.in_registers);
  CHECK(fused.thread_box == std::vector<double>{1, 4, 2});

  // Emitted: computed at the innermost thread loop, in registers, its rows bounded and unrolled.
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".store_in(MemoryType::Register)\n    .unroll(y)") != std::string::npos);
  CHECK(code.find(".unroll(ci)") != std::string::npos);
  // The output compiled once more for 3 channels, the estimate its channels are unrolled by: there
  // the channels' guards go, and what they share is computed once (output_specialization).
  CHECK(code.find(".output_buffer().dim(2).extent() == 3);") != std::string::npos);

  // Applied, it compiles for CUDA (a kernel for 3 channels and whole tiles, one for 3 channels,
  // one for any other count) with no per-thread array in local memory; its CPU twin computes
  // exactly what compute_root computes, with 3 channels and with 2 (the generic code).
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(inst.pipeline, default_gpu_target());
  CHECK(compiled.gpu_kernels() == 3);
  REQUIRE(compiled.lowered_stmt.find(".entry") != std::string::npos);  // the kernel's PTX is in the text
  CHECK(compiled.lowered_stmt.find("ld.local") == std::string::npos);

  const CpuTwin twin = cpu_twin("channel_models_small", [](const PipelineDag &d) { return channel_models_state(d, 4); });
  CHECK(count_differences(run_channel_models(twin.scheduled.pipeline), run_channel_models(twin.reference.pipeline)) == 0);
  auto two_channels = [](const Halide::Pipeline &p) {
    bind_input(p, "input", random_buffer<float>({41, 23, 3}, 8, -2, 2));
    return realized_on_cpu(p, Halide::Buffer<float>(41, 23, 2));
  };
  CHECK(count_differences(two_channels(twin.scheduled.pipeline), two_channels(twin.reference.pipeline)) == 0);

  // Rows per thread that are the whole block along y (one thread there): Halide 14 could not
  // bound the model's per-thread region ("unable to infer constant upper bound on extent of
  // realization model"), so it is not held in registers there, and a Func per thread outside
  // registers makes the kernel invalid (the search does not fuse it there).
  const KernelModel one_row_of_threads = build_kernel_model(dag, channel_models_state(dag, 3, 1), out, 0, gpu);
  CHECK_FALSE(one_row_of_threads.valid);
  CHECK(one_row_of_threads.invalid_reason.find("registers") != std::string::npos);
  CHECK_FALSE(fused_in(one_row_of_threads, model).in_registers);
}


// A stage reading through a boundary condition runs its channels in each thread as a loop, not
// unrolled; Halide still hoists what does not depend on the channel out of the loop (the PTX of
// this pipeline computes `weight` once per pixel, before the loop). Counted once per channel,
// local_laplacian's 3-channel-invariant out_g_pyr_0 made the search keep its clamped input in a
// kernel of its own (0.016 ms that the manual schedule does not spend).
TEST_CASE("channels looped around a boundary condition share what does not depend on them", "[schedule][constructs]") {
  auto inst = instantiate_generator("channel_clamped_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), clamped = func_named(dag, "repeat_edge");
  REQUIRE(out >= 0);
  REQUIRE(clamped >= 0);
  auto state_with = [&](bool clamp_inlined) {
    ScheduleState state(dag);
    state.decide(out, channels_in_thread(dag, out, {32, 8, 1}, {1, 1, 1}));
    for (int f = 0; f < int(dag.funcs.size()); f++) {
      if (f == out) continue;
      if (f == clamped && !clamp_inlined) {
        for (const FuncDecision &d : standalone_options(dag, f, gpu, OptionLimits{}))
          if (d.level == ComputeLevel::Root) {
            state.decide(f, d);
            break;
          }
        REQUIRE(state.decided[f]);
      } else {
        state.decide(f, FuncDecision{ComputeLevel::Inline});
      }
    }
    return state;
  };
  const ScheduleState through_clamp = state_with(true), clamp_at_root = state_with(false);
  REQUIRE_FALSE(unrolls_in_thread_loops(dag, through_clamp, out, 0));
  REQUIRE(unrolls_in_thread_loops(dag, clamp_at_root, out, 0));

  // The weight's arithmetic (16 square roots and their sums per pixel) counts once per pixel in
  // both: the clamp adds its own few operations per channel, not two more weights.
  const KernelModel looped = build_kernel_model(dag, through_clamp, out, 0, gpu);
  const KernelModel unrolled = build_kernel_model(dag, clamp_at_root, out, 0, gpu);
  REQUIRE(looped.valid);
  REQUIRE(unrolled.valid);
  INFO("ops per block: looped " << looped.ops_per_block + looped.math_ops_per_block << ", unrolled "
                                << unrolled.ops_per_block + unrolled.math_ops_per_block);
  CHECK(looped.math_ops_per_block == Approx(unrolled.math_ops_per_block));
  CHECK(looped.ops_per_block < 1.5 * unrolled.ops_per_block);

  // As emitted, the channels stay a loop where the clamp is read, and the pipeline compiles.
  const ScheduleSpec spec = state_to_spec(dag, through_clamp, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".unroll(c") == std::string::npos);
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(inst.pipeline, default_gpu_target()).gpu_kernels() >= 1);
}

// A stage that reads a Func at its own channel and at a constant one (interpolate's output divides
// by the alpha channel) reads each call affinely, though the two calls' merged region along c,
// min(c, 3) .. max(c, 3), is not affine: that is no boundary condition, and its channels unroll
// in each thread as the manual schedule unrolls them.
TEST_CASE("channels read at their own and at a constant channel unroll in each thread", "[schedule][constructs]") {
  auto inst = instantiate_generator("normalized_channels_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const int out = func_named(dag, "out"), premultiplied = func_named(dag, "premultiplied");
  REQUIRE(out >= 0);
  REQUIRE(premultiplied >= 0);
  const ProducerAccess *read = nullptr;
  for (const ProducerAccess &a : dag.funcs[size_t(out)].stages[0].accesses)
    if (a.producer == dag.funcs[size_t(premultiplied)].name) read = &a;
  REQUIRE(read);
  CHECK_FALSE(read->is_affine);
  CHECK(read->each_call_affine());

  ScheduleState state(dag);
  state.decide(out, channels_in_thread(dag, out, {32, 8, 1}, {1, 1, 1}));
  for (int f = 0; f < int(dag.funcs.size()); f++)
    if (f != out) state.decide(f, FuncDecision{ComputeLevel::Inline});
  CHECK(unrolls_in_thread_loops(dag, state, out, 0));

  const ScheduleSpec spec = state_to_spec(dag, state, find_gpu_profile("h200"));
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".unroll(c") != std::string::npos);
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(inst.pipeline, default_gpu_target()).gpu_kernels() >= 1);
}

namespace {

// bayer_small with `rgb` and `out` decided: `rgb` at root over `rgb_rows` x `rgb_rows` points
// per thread and its channels whole in each thread (or inlined, rgb_rows == 0), `out` over 2x2
// points per thread and its channels in each thread.
ScheduleState bayer_state(const PipelineDag &dag, int64_t rgb_rows) {
  const int out = func_named(dag, "out"), rgb = func_named(dag, "rgb");
  REQUIRE(out >= 0);
  REQUIRE(rgb >= 0);
  auto tiled = [&](int f, int64_t rows) { return channels_in_thread(dag, f, {32, 8, 1}, {rows, rows, 1}); };
  ScheduleState state(dag);
  state.decide(out, tiled(out, 2));
  state.decide(rgb, rgb_rows > 0 ? tiled(rgb, rgb_rows) : FuncDecision{ComputeLevel::Inline});
  return state;
}

Halide::Buffer<float> run_bayer(const Halide::Pipeline &p, int origin) {
  bind_input(p, "input", random_buffer<float>({48, 30}, 11, 0, 1));
  Halide::Buffer<float> out(41, 23, 3);  // odd sizes: not whole quads, nor whole blocks
  out.set_min(origin, origin, 0);
  return realized_on_cpu(p, out);
}

void check_bayer_schedule(int64_t rgb_rows, const std::vector<std::string> &directives) {
  auto inst = instantiate_generator("bayer_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const ScheduleSpec spec = state_to_spec(dag, bayer_state(dag, rgb_rows), gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  for (const std::string &d : directives) CHECK(code.find(d) != std::string::npos);
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(inst.pipeline, default_gpu_target()).gpu_kernels() > 0);

  // The CPU twin computes exactly what compute_root computes, from an even origin (the folded
  // code) and an odd one (an output's unspecialized code).
  const CpuTwin twin = cpu_twin("bayer_small", [&](const PipelineDag &d) { return bayer_state(d, rgb_rows); });
  for (int origin : {0, 1})
    CHECK(count_differences(run_bayer(twin.scheduled.pipeline, origin), run_bayer(twin.reference.pipeline, origin)) == 0);
}

}  // namespace

// A Bayer demosaic picks one of four interpolations per pixel by the parity of x and y, and one
// of three colours by its channel: unrolled over whole 2x2 quads from an even start, each point
// computes its own branch only (Halide 14's PTX for camera_pipe's demosaic: 20 global loads per
// quad instead of 72). The start is stated with align_bounds at root, with a specialization of
// an output's origin where the demosaic is inlined into it.
TEST_CASE("a demosaic folds its Bayer phases over whole quads per thread", "[schedule][constructs][phases]") {
  auto inst = instantiate_generator("bayer_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), rgb = func_named(dag, "rgb");

  // The DAG: x and y by their residues modulo 2, c by its value (out reads rgb at c = 0, 1, 2).
  const StageNode &stage = dag.funcs[size_t(rgb)].stages[0];
  REQUIRE(stage.phase_loops.size() == 3);
  CHECK((stage.phase_loops[0].var == "x" && stage.phase_loops[0].period == 2 && !stage.phase_loops[0].by_value));
  CHECK((stage.phase_loops[1].var == "y" && stage.phase_loops[1].period == 2 && !stage.phase_loops[1].by_value));
  CHECK((stage.phase_loops[2].var == "c" && stage.phase_loops[2].period == 3 && stage.phase_loops[2].by_value));
  const FoldedStage &all = stage.folded.at(7);
  CHECK(all.phases == 12);
  CHECK(double(arithmetic_ops_of(all.ops_total).total()) / 12.0 < double(stage.arithmetic_ops().total()) / 3.0);
  const ProducerAccess &mosaic = stage.accesses.at(0);
  CHECK(double(all.calls_total.at(mosaic.producer)) / 12.0 < double(mosaic.calls_per_point) / 3.0);

  // At root over 2x2 points per thread every phase folds; over 3x3 only the channels do.
  const FoldedPhases quads = folded_phases(dag, bayer_state(dag, 2), rgb, 0);
  CHECK(quads.masks.at(rgb) == 7u);
  CHECK(quads.alignment == std::map<std::string, int>{{"x", 2}, {"y", 2}});
  const FoldedPhases odd = folded_phases(dag, bayer_state(dag, 3), rgb, 0);
  CHECK(odd.masks.at(rgb) == 4u);
  CHECK(odd.alignment.empty());
  const KernelModel folded_kernel = build_kernel_model(dag, bayer_state(dag, 2), rgb, 0, gpu);
  const KernelModel unfolded_kernel = build_kernel_model(dag, bayer_state(dag, 3), rgb, 0, gpu);
  REQUIRE(folded_kernel.valid);
  REQUIRE(unfolded_kernel.valid);
  CHECK(folded_kernel.ops_per_block / folded_kernel.points_per_block <
        0.5 * unfolded_kernel.ops_per_block / unfolded_kernel.points_per_block);

  // Inlined into the output (2x2 points per thread): folded through its calls rgb(x, y, 0..2).
  const FoldedPhases inlined = folded_phases(dag, bayer_state(dag, 0), out, 0);
  CHECK(inlined.masks.at(rgb) == 7u);
  CHECK(inlined.alignment == std::map<std::string, int>{{"x", 2}, {"y", 2}});

  check_bayer_schedule(2, {".align_bounds(x, 2)", ".align_bounds(y, 2)"});
  check_bayer_schedule(0, {".specialize(out", ".output_buffer().dim(0).min() % 2 == 0 && out",
                           ".output_buffer().dim(1).min() % 2 == 0 && out", ".output_buffer().dim(2).extent() == 3)"});

  // The search folds them.
  const ScheduleResult searched = schedule_pipeline(inst.pipeline, dag, AutoschedulerOptions{});
  INFO(searched.schedule_code);
  CHECK(uses(searched, "phases folded (unrolled over whole periods)"));
}

namespace {

// splat_small with `grid` at root over 32x4 threads, its 10 channels whole in each thread, and
// `splat` fused into it per thread; `blurred` inlined into `out` at root.
ScheduleState pinned_state(const PipelineDag &dag) {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int grid = func_named(dag, "grid"), splat = func_named(dag, "splat");
  ScheduleState state(dag);
  for (int f : ScheduleState::decision_order(dag)) {
    if (f == splat) {
      state.decide(f, FuncDecision{ComputeLevel::Thread, grid, {}});
      continue;
    }
    std::optional<FuncDecision> chosen;
    for (const FuncDecision &d : standalone_options(dag, f, gpu, OptionLimits{})) {
      const StageTiling &t = d.tilings.front();
      const bool whole = d.level == ComputeLevel::Root && t.has_in_thread_loop() && t.threads[0] == 32 &&
                         t.threads[1] == 4 && t.points_per_thread() == 10;
      if (f == grid ? whole : (!chosen && (d.level == ComputeLevel::Inline || dag.funcs[f].is_output))) chosen = d;
    }
    REQUIRE(chosen);
    state.decide(f, *chosen);
  }
  return state;
}

Halide::Buffer<float> run_splat(const Halide::Pipeline &p) {
  bind_input(p, "input", random_buffer<float>({101, 75, 3}, 13, 0, 1));
  return realized_on_cpu(p, Halide::Buffer<float>(25, 19));  // not whole blocks
}

}  // namespace

// bgu's splat: one thread per grid cell keeps all of the cell's channel sums in registers, and
// each pixel's colours and weight are loaded and computed once for all of them, not once per
// channel. The channels are a loop of `grid` over a region known when the pipeline compiles
// (its consumers read constant channels), run whole in each thread.
TEST_CASE("a reduction over a constant loop is held whole per thread, its shared work done once",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("splat_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int grid = func_named(dag, "grid"), splat = func_named(dag, "splat"), out = func_named(dag, "out");

  // The DAG: grid's channels are constant (read through `blurred` at c = 0..9), the output's are
  // not; the update's ten copies over c share their loads and weight.
  const FuncNode &g = dag.funcs[size_t(grid)];
  CHECK(g.constant_dims == std::vector<bool>{false, false, true});
  CHECK(dag.funcs[size_t(out)].constant_dims == std::vector<bool>{false, false});
  const StageNode &update = dag.funcs[size_t(splat)].stages.at(1);
  const FoldedStage &joint = update.unrolled_jointly.at("c");
  CHECK(joint.phases == 10);
  CHECK(double(arithmetic_ops_of(joint.ops_total).total()) < 0.3 * 10.0 * double(update.arithmetic_ops().total()));
  REQUIRE(pointwise_reduction(dag, grid) == splat);
  REQUIRE(pinned_reduction_loop(dag, grid) == 2);

  // The kernel model: splat in registers, its arithmetic per thread the joint count's.
  const ScheduleState state = pinned_state(dag);
  const KernelModel km = build_kernel_model(dag, state, grid, 0, gpu);
  INFO(km.invalid_reason);
  REQUIRE(km.valid);
  const FusedFunc &fused = fused_in(km, splat);
  CHECK(fused.in_registers);
  CHECK(fused.pinned_dims == std::vector<int>{2});
  CHECK(fused.thread_box == std::vector<double>{1, 1, 10});
  ScheduleState per_channel = state;  // the same kernel with one channel per block
  for (const FuncDecision &d : standalone_options(dag, grid, gpu, OptionLimits{}))
    if (d.level == ComputeLevel::Root && !d.tilings.front().has_in_thread_loop() &&
        d.tilings.front().threads[0] == 32 && d.tilings.front().threads[1] == 4 && d.tilings.front().points_per_thread() == 1)
      per_channel.decide(grid, d);
  const KernelModel apart = build_kernel_model(dag, per_channel, grid, 0, gpu);
  REQUIRE(apart.valid);
  CHECK(km.ops_per_block / km.points_per_block < 0.5 * apart.ops_per_block / apart.points_per_block);

  // Emitted: the channels' extent stated, splat unrolled over them inside every reduction step.
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".store_in(MemoryType::Register)\n    .bound_extent(c, 10)\n    .unroll(c)") != std::string::npos);
  CHECK(code.find(".reorder(x, y, c, r_xi, r_xo, r_y)\n    .unroll(c)") != std::string::npos);

  // It compiles for CUDA with the sums in registers, and its CPU twin computes exactly what
  // compute_root computes.
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(inst.pipeline, default_gpu_target());
  CHECK(compiled.gpu_kernels() > 0);
  REQUIRE(compiled.lowered_stmt.find("fma.rn.f32") != std::string::npos);
  CHECK(compiled.lowered_stmt.find("ld.local") == std::string::npos);
  const CpuTwin twin = cpu_twin("splat_small", pinned_state);
  CHECK(count_differences(run_splat(twin.scheduled.pipeline), run_splat(twin.reference.pipeline)) == 0);

  // The search comes close. Since the compute term counts idle SMs per SM rather than per block
  // slot, its beams end with splat per thread of `out`, grid inlined, predicted 8% slower than the
  // pinned form (which no longer survives the beam), yet on the H200 it ran 0.0127 ms against
  // the pinned form's 0.0144 (docs/PERFORMANCE.md, session twenty-one, run s21-h).
  const ScheduleResult searched = schedule_pipeline(inst.pipeline, dag, AutoschedulerOptions{});
  INFO(searched.schedule_code);
  double pinned_ms = 0;
  for (const KernelModel &k : build_kernel_models(dag, state, gpu)) pinned_ms += cost_of_kernel(k, gpu).total_ms;
  CHECK(searched.predicted_runtime_ms <= pinned_ms * 1.1);
  CHECK(uses(searched, "reduction fused per thread (registers)"));
}

namespace {

// pointwise_conv_small's `out` at root over (c, x) threads with `serial` points per thread (c, x,
// y, n), its accumulator `conv` per thread in registers, the inputs' wrappers inlined.
ScheduleState conv_tile_state(const PipelineDag &dag, const std::vector<int64_t> &threads,
                              const std::vector<int64_t> &serial, bool relu_per_block = false) {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), conv = func_named(dag, "conv"), relu = func_named(dag, "relu_in");
  ScheduleState state(dag);
  for (int f : ScheduleState::decision_order(dag)) {
    if (f == out) {
      for (const FuncDecision &d : standalone_options(dag, out, gpu, OptionLimits{}))
        if (d.level == ComputeLevel::Root && d.tilings[0].threads == threads && d.tilings[0].serial == serial) {
          state.decide(out, d);
          break;
        }
      REQUIRE(state.decided[out]);
    } else if (f == conv) {
      state.decide(conv, FuncDecision{ComputeLevel::Thread, out, {}});
    } else if (f == relu && relu_per_block) {
      state.decide(relu, FuncDecision{ComputeLevel::Block, out, {}});
    } else {
      state.decide(f, FuncDecision{});  // the input wrappers: inlined
    }
  }
  return state;
}

}  // namespace

// A channels-innermost convolution's output tiled over threads of channels and columns, each
// thread also taking 4 rows (depthwise_separable_conv's manual schedule: 2 channels x 4 rows per
// thread). The rows are a third loop's: split outside gpu_tile, their blocks fused with the batch.
TEST_CASE("rows per thread along a third loop hold a register tile over channels and rows",
          "[schedule][constructs]") {
  auto inst = instantiate_generator("pointwise_conv_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), conv = func_named(dag, "conv");
  REQUIRE(register_tile_reduction(dag, out) == conv);

  // Offered beside the two-loop tilings.
  const std::vector<FuncDecision> options = standalone_options(dag, out, gpu, OptionLimits{});
  CHECK(std::any_of(options.begin(), options.end(), [](const FuncDecision &d) {
    return d.level == ComputeLevel::Root && d.tilings[0].row_loop(2) && d.tilings[0].threads[2] == 1;
  }));

  // 32x8 threads, 2 channels x 4 rows each: a 64x8x4 block, 4 x 8 x 2 of them.
  const ScheduleState state = conv_tile_state(dag, {32, 8, 1, 1}, {2, 1, 4, 1});
  const StageTiling &tiling = state.decisions[out].tilings[0];
  CHECK(tiling.row_loop(2));
  CHECK_FALSE(tiling.row_loop(1));
  CHECK(tiling.blocks() == 1 * 4 * 8 * 2);
  const KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
  INFO(km.invalid_reason);
  REQUIRE(km.valid);
  const FusedFunc &fused = fused_in(km, conv);
  CHECK(fused.in_registers);
  CHECK(fused.thread_box == std::vector<double>{2, 1, 4, 1});
  CHECK(km.block_shape == std::vector<double>{32, 8, 1});
  CHECK(km.guarded_block_fraction == 0);
  // Each of the 16 steps loads the thread's 2 filter values and 4 input rows once (the wrappers
  // inlined are their loads), for 8 accumulators.
  CHECK(global_loads_per_block(km) == Approx(256.0 * 16 * (2 + 4)));

  // Emitted: gpu_tile over channels and columns, the rows split with ShiftInwards (a guarded split
  // leaves the per-thread region unbounded for Halide 14) and their blocks fused with the batch.
  const ScheduleSpec spec = state_to_spec(dag, state, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  CHECK(code.find(".gpu_tile(c, x, co, xo, ci, xi, 64, 8, TailStrategy::GuardWithIf)") != std::string::npos);
  CHECK(code.find(".split(y, yo, yii, 4, TailStrategy::ShiftInwards)") != std::string::npos);
  CHECK(code.find(".reorder(cii, yii, ci, xi, co, xo, yo, n)") != std::string::npos);
  CHECK(code.find(".fuse(yo, n, yo_n)\n    .gpu_blocks(yo_n)") != std::string::npos);
  CHECK(code.find(".store_in(MemoryType::Register)") != std::string::npos);

  // It compiles for CUDA with the accumulators in registers; its CPU twin computes exactly what
  // compute_root computes at sizes that are no multiple of the tile (10 rows: the last tile shifts).
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(inst.pipeline, default_gpu_target());
  CHECK(compiled.gpu_kernels() > 0);
  REQUIRE(compiled.lowered_stmt.find("fma.rn.f32") != std::string::npos);
  CHECK(compiled.lowered_stmt.find("ld.local") == std::string::npos);
  auto run_conv = [](const Halide::Pipeline &p) {
    bind_input(p, "input", random_buffer<float>({5, 13, 10, 3}, 21, -1, 1));
    bind_input(p, "filter", random_buffer<float>({37, 5, 1}, 22, -1, 1));
    Halide::Pipeline handle = p;
    Halide::Buffer<float> result(37, 13, 10, 3);
    handle.realize(result, cpu_target());
    return result;
  };
  const CpuTwin twin = cpu_twin("pointwise_conv_small", [](const PipelineDag &d) {
    return conv_tile_state(d, {32, 8, 1, 1}, {2, 1, 4, 1});
  });
  CHECK(count_differences(run_conv(twin.scheduled.pipeline), run_conv(twin.reference.pipeline)) == 0);

  // A producer fused per block covers the block's 4 rows: each thread computes all 4, unrolled
  // (BlockFusedLayout::inner_dim), its loads counted once per distinct point of them.
  auto staged = instantiate_generator("pointwise_conv_small", default_gpu_target(), {{"staged", "true"}});
  const PipelineDag staged_dag = build_pipeline_dag(staged.pipeline);
  const int relu = func_named(staged_dag, "relu_in");
  const ScheduleState per_block = conv_tile_state(staged_dag, {32, 8, 1, 1}, {2, 1, 4, 1}, true);
  const KernelModel with_block = build_kernel_model(staged_dag, per_block, func_named(staged_dag, "out"), 0, gpu);
  REQUIRE(with_block.valid);
  CHECK(fused_in(with_block, relu).box == std::vector<double>{16, 8, 4, 1});
  const std::string staged_code =
      emit_schedule_source(state_to_spec(staged_dag, per_block, gpu), EmitContext::GeneratorSchedule);
  INFO(staged_code);
  // (Its reads affine and one pass covering its box: its channel and column loops go to the threads
  // as they are, region_follows_tile.)
  CHECK(staged_code.find(".split(y, yo, yi, 4, TailStrategy::GuardWithIf)\n    .reorder(yi, c, x)") !=
        std::string::npos);
  CHECK(staged_code.find(".gpu_threads(c, x)\n    .unroll(yi)") != std::string::npos);
  apply_schedule(state_to_spec(staged_dag, per_block, gpu), staged.pipeline, ApplyMode::Gpu);
  const CompiledPipeline staged_compiled = compile_pipeline(staged.pipeline, default_gpu_target());
  CHECK(staged_compiled.gpu_kernels() == 1);
  CHECK(staged_compiled.lowered_stmt.find("ld.local") == std::string::npos);
  const CpuTwin staged_twin = cpu_twin(
      "pointwise_conv_small", [](const PipelineDag &d) { return conv_tile_state(d, {32, 8, 1, 1}, {2, 1, 4, 1}, true); },
      {{"staged", "true"}});
  CHECK(count_differences(run_conv(staged_twin.scheduled.pipeline), run_conv(staged_twin.reference.pipeline)) == 0);
}

// A register tile unrolls a few taps of its innermost reduction loop around the tile: 4 columns
// per thread and 3 taps along x read 6 input columns per step of the channel loop, not 4 per tap.
TEST_CASE("a register tile's unrolled taps share the loads of neighbouring columns", "[schedule][constructs]") {
  auto inst = instantiate_generator("pointwise_conv_small", default_gpu_target(), {{"taps", "3"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const int out = func_named(dag, "out"), conv = func_named(dag, "conv");
  REQUIRE(unrolled_taps(dag.funcs[size_t(conv)].stages.at(1)) == 3);
  const ScheduleState state = conv_tile_state(dag, {32, 8, 1, 1}, {1, 4, 1, 1});
  const KernelModel km = build_kernel_model(dag, state, out, 0, gpu);
  REQUIRE(km.valid);
  REQUIRE(fused_in(km, conv).in_registers);
  CHECK(km.guarded_block_fraction == 0);
  // Per thread and channel: 3 filter taps and 4 + 3 - 1 input columns.
  CHECK(global_loads_per_block(km) == Approx(256.0 * 16 * (3 + 6)));
}

namespace {

// siblings_small's stencils in the order the search decides them: `horizontal` and `vertical`
// (the second is the one computed with the first).
std::pair<int, int> sibling_pair(const PipelineDag &dag) {
  const int h = func_named(dag, "horizontal"), v = func_named(dag, "vertical");
  const std::vector<int> order = ScheduleState::decision_order(dag);
  const bool h_first = std::find(order.begin(), order.end(), h) < std::find(order.begin(), order.end(), v);
  return h_first ? std::make_pair(h, v) : std::make_pair(v, h);
}

// siblings_small with every Func in a kernel of its own (the default tiling), and the second
// stencil, when `with_sibling`, computed with the first instead.
ScheduleState siblings_state(const PipelineDag &dag, bool with_sibling) {
  const GpuProfile &gpu = find_gpu_profile("h200");
  const auto [first, second] = sibling_pair(dag);
  ScheduleState state(dag);
  for (int f : ScheduleState::decision_order(dag)) {
    if (f == second && with_sibling) {
      for (const FuncDecision &d : sibling_options(dag, state, f, gpu, OptionLimits{}))
        if (d.computed_with == first) state.decide(f, d);
      REQUIRE(state.decided[f]);
      continue;
    }
    for (const FuncDecision &d : standalone_options(dag, f, gpu, OptionLimits{}))
      if (d.level == ComputeLevel::Root) {
        state.decide(f, d);
        break;
      }
    if (!state.decided[f]) state.decide(f, FuncDecision{ComputeLevel::Inline});
  }
  return state;
}

Halide::Buffer<float> run_siblings(const Halide::Pipeline &p) {
  bind_input(p, "input", random_buffer<float>({45, 27}, 41, 0, 2));
  return realized_on_cpu(p, Halide::Buffer<float>(45, 27));  // no multiple of the blocks
}

}  // namespace

// Two stencils of one input over the same region, neither computed from the other: one kernel
// computes both (compute_with), launching once and reading the input from DRAM once.
TEST_CASE("a Func computed with its sibling shares the sibling's kernel", "[schedule][constructs]") {
  auto inst = instantiate_generator("siblings_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const GpuProfile &gpu = find_gpu_profile("h200");
  const auto [first, second] = sibling_pair(dag);
  const int horizontal = func_named(dag, "horizontal"), vertical = func_named(dag, "vertical"),
            scaled = func_named(dag, "scaled"), out = func_named(dag, "out");
  const ScheduleState alone = siblings_state(dag, false), together = siblings_state(dag, true);
  const FuncDecision &with = together.decisions[second];
  REQUIRE(with.computed_with == first);
  CHECK(same_tiling(with.tilings.at(0), together.decisions[first].tilings.at(0)));
  CHECK(decision_constructs(dag, second, with) ==
        std::vector<std::string>{"root kernel", "computed with a sibling"});

  // Offered only beside a sibling: not with a Func it is computed from or that feeds it, nor
  // with the output (which may be specialized).
  ScheduleState before_scaled = alone;
  const std::vector<FuncDecision> for_scaled = sibling_options(dag, before_scaled, scaled, gpu, OptionLimits{});
  CHECK(std::none_of(for_scaled.begin(), for_scaled.end(),
                     [&](const FuncDecision &d) { return d.computed_with == horizontal || d.computed_with == out; }));
  CHECK(std::any_of(for_scaled.begin(), for_scaled.end(), [&](const FuncDecision &d) { return d.computed_with == vertical; }));
  // Pairs only: neither stencil of the pair takes scaled as a second sibling.
  const std::vector<FuncDecision> after_pair = sibling_options(dag, together, scaled, gpu, OptionLimits{});
  CHECK(std::none_of(after_pair.begin(), after_pair.end(),
                     [&](const FuncDecision &d) { return d.computed_with == horizontal || d.computed_with == vertical; }));

  // Kernel model: no launch nor block dispatch of its own, and the input both read comes from
  // DRAM for the sibling only.
  const KernelModel own = build_kernel_model(dag, alone, second, 0, gpu);
  const KernelModel shared = build_kernel_model(dag, together, second, 0, gpu);
  REQUIRE(own.valid);
  REQUIRE(shared.valid);
  CHECK(shared.computed_with == first);
  const KernelCost own_cost = cost_of_kernel(own, gpu), shared_cost = cost_of_kernel(shared, gpu);
  CHECK(own_cost.terms_ms.at("launch") > 0);
  CHECK(shared_cost.terms_ms.at("launch") == 0);
  CHECK(shared_cost.terms_ms.at("block_launch") == 0);
  CHECK(shared_cost.terms_ms.at("dram") < own_cost.terms_ms.at("dram"));
  CHECK(shared_cost.total_ms < own_cost.total_ms);

  // Emitted: the second stencil tiled as the first, then computed with it at its innermost block
  // loop.
  const ScheduleSpec spec = state_to_spec(dag, together, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  const std::string first_name = dag.funcs[size_t(first)].name, second_name = dag.funcs[size_t(second)].name;
  CHECK(describe_decision(dag, second, with) == "computed with " + first_name + ", in its kernel");
  // (vertical$N, variable vertical_N, when earlier tests of the process made a vertical.)
  CHECK(code.find(".compute_with(" + cpp_identifier(first_name) + ", xo);") != std::string::npos);

  // One kernel fewer for CUDA; the CPU twin computes exactly what compute_root computes.
  apply_schedule(spec, inst.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(inst.pipeline, default_gpu_target());
  auto separate = instantiate_generator("siblings_small", default_gpu_target(), {});
  const PipelineDag separate_dag = build_pipeline_dag(separate.pipeline);  // (its own Func names)
  apply_schedule(state_to_spec(separate_dag, siblings_state(separate_dag, false), gpu), separate.pipeline, ApplyMode::Gpu);
  CHECK(compiled.gpu_kernels() + 1 == compile_pipeline(separate.pipeline, default_gpu_target()).gpu_kernels());
  const CpuTwin twin = cpu_twin("siblings_small", [](const PipelineDag &d) { return siblings_state(d, true); });
  CHECK(count_differences(run_siblings(twin.scheduled.pipeline), run_siblings(twin.reference.pipeline)) == 0);

}

// Halide 14's compute_with splits a fused loop back by the first Func's extents: bgu's
// lowres_input_im, computed with lowres_output_im over fused (y, c) blocks, read its input at
// c = -404 (H100, session 41). A sibling whose tiling fuses block loops takes no partner.
TEST_CASE("a Func is not computed with a sibling whose blocks fuse loops", "[schedule][constructs]") {
  using namespace Halide;
  const GpuProfile &gpu = find_gpu_profile("h200");
  ImageParam in(Float(32), 3, "in");
  in.dim(0).set_estimate(0, 240).dim(1).set_estimate(0, 135).dim(2).set_estimate(0, 3);
  Var x("x"), y("y"), c("c");
  Func a("a"), b("b"), out("out");
  a(x, y, c) = in(x, y, c) * 2.0f;
  b(x, y, c) = in(x, y, c) + 1.0f;
  out(x, y, c) = a(x, y, c) * b(x, y, c);
  out.set_estimates({{0, 240}, {0, 135}, {0, 3}});
  const Pipeline pipeline(out);
  const PipelineDag dag = build_pipeline_dag(pipeline);
  const int fa = func_named(dag, "a"), fb = func_named(dag, "b"), fo = func_named(dag, "out");
  const std::vector<int> order = ScheduleState::decision_order(dag);
  const bool a_first = std::find(order.begin(), order.end(), fa) < std::find(order.begin(), order.end(), fb);
  const int first = a_first ? fa : fb, second = a_first ? fb : fa;
  // The first sibling in 32x8 threads, or in 256 threads along x alone (y and c fused into one
  // grid dimension).
  auto sibling_state = [&](bool rows_fused) {
    ScheduleState state(dag);
    state.decide(fo, standalone_options(dag, fo, gpu, OptionLimits{}).front());
    std::optional<FuncDecision> tiled = root_option_where(dag, first, gpu, [](const StageTiling &t) {
      return t.threads.size() == 3 && t.threads[0] == 32 && t.threads[1] == 8 && t.serial[0] == 1 &&
             t.serial[1] == 1 && !t.in_thread[2];
    });
    REQUIRE(tiled);
    if (rows_fused) {
      StageTiling &t = tiled->tilings.front();
      t.threads[0] = 256;
      t.threads[1] = 1;
    }
    state.decide(first, *tiled);
    return state;
  };
  auto offered_with_first = [&](const ScheduleState &state) {
    const std::vector<FuncDecision> options = sibling_options(dag, state, second, gpu, OptionLimits{});
    return std::any_of(options.begin(), options.end(), [&](const FuncDecision &d) { return d.computed_with == first; });
  };
  CHECK(offered_with_first(sibling_state(false)));
  CHECK_FALSE(offered_with_first(sibling_state(true)));
}

namespace {

// An exact total (integer sum of an 8-bit image, 512x256) and the image minus its mean.
struct TotalPipeline {
  Halide::ImageParam in{Halide::UInt(8), 2, "in"};
  Halide::Func total{"total"}, out{"out"};
  Halide::Pipeline pipeline;
  explicit TotalPipeline(int width = 512) {
    using namespace Halide;
    Var x("x"), y("y");
    in.dim(0).set_estimate(0, width);
    in.dim(1).set_estimate(0, 256);
    RDom r(0, width, 0, 256, "r_total");
    total() = 0;
    total() += cast<int32_t>(in(r.x, r.y));
    out(x, y) = cast<int32_t>(in(x, y)) * (width * 256) - total();
    out.set_estimates({{0, width}, {0, 256}});
    pipeline = Pipeline(out);
  }
};


// Row sums and column maxima of a 1000x300 image: 300 rows (and 1000 columns) are too few
// threads for the GPU, and 1000 (300) steps each a long chain. 1000 is no multiple of 32: the
// split before the factoring has a tail.
struct RowColumnPipeline {
  Halide::ImageParam in{Halide::UInt(16), 2, "in"};
  Halide::Func row_sum{"row_sum"}, column_max{"column_max"}, out{"out"};
  Halide::Pipeline pipeline;
  RowColumnPipeline() {
    using namespace Halide;
    Var x("x"), y("y");
    in.dim(0).set_estimate(0, 1000);
    in.dim(1).set_estimate(0, 300);
    RDom rx(0, 1000, "rx"), ry(0, 300, "ry");
    row_sum(y) = 0;
    row_sum(y) += cast<int32_t>(in(rx, y));
    column_max(x) = cast<uint16_t>(0);
    column_max(x) = max(column_max(x), in(x, ry));
    out(x, y) = cast<int32_t>(in(x, y)) * 3 + row_sum(y) - cast<int32_t>(column_max(x));
    out.set_estimates({{0, 1000}, {0, 300}});
    pipeline = Pipeline(out);
  }
};

// A histogram weighted by the value it bins: the index and the increment read the same point,
// which Halide 14 lowers to a compare-and-swap loop, so it has no atomic form.
struct WeightedHistogramPipeline {
  Halide::ImageParam in{Halide::UInt(8), 2, "in"};
  Halide::Func hist{"hist"}, out{"out"};
  Halide::Pipeline pipeline;
  WeightedHistogramPipeline() {
    using namespace Halide;
    Var x("x"), y("y"), i("i");
    in.dim(0).set_estimate(0, 512);
    in.dim(1).set_estimate(0, 256);
    RDom r(0, 512, 0, 256, "r_hist");
    hist(i) = 0.0f;
    Expr v = in(r.x, r.y);
    hist(clamp(cast<int32_t>(v) / 2, 0, 127)) += cast<float>(v);
    out(x, y) = hist(cast<int32_t>(in(x, y)) / 2);
    out.set_estimates({{0, 512}, {0, 256}});
    pipeline = Pipeline(out);
  }
};

// Whether the lowered program launches a stage's kernel inside a loop of the host: after the
// GPU loops are offloaded, a loop of the stage left in the host code is one ("for
// (hist_intm.s1.r_hist$y, 0, 256)" around the partial results' launch, before the reorder).
bool launched_in_a_loop(const std::string &stmt, const std::string &stage) {
  return stmt.find("for (" + stage + ".") != std::string::npos;
}

// The options of `f`, a root kernel whose update (stage 1) runs in one thread: its update in
// partial results, and in that one thread.
struct PartialsOrOneThread {
  FuncDecision partials, one_thread;
};
PartialsOrOneThread partials_or_one_thread(const PipelineDag &dag, int f, const GpuProfile &gpu) {
  const std::vector<FuncDecision> options = standalone_options(dag, f, gpu, OptionLimits{});
  auto partials = std::find_if(options.begin(), options.end(),
                               [](const FuncDecision &d) { return d.tilings.size() == 2 && d.tilings[1].partials; });
  auto serial = std::find_if(options.begin(), options.end(), [](const FuncDecision &d) {
    return d.level == ComputeLevel::Root && d.tilings.size() == 2 && d.tilings[1].single_thread;
  });
  REQUIRE(partials != options.end());
  REQUIRE(serial != options.end());
  return {*partials, *serial};
}

}  // namespace

TEST_CASE("a total run in one thread is factored into partial results", "[schedule][constructs][partials]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  TotalPipeline p;
  const PipelineDag dag = build_pipeline_dag(p.pipeline);
  const int total = func_named(dag, "total"), out = func_named(dag, "out");
  REQUIRE(total >= 0);
  REQUIRE(out >= 0);
  REQUIRE(dag.funcs[total].stages.size() == 2);
  CHECK(dag.funcs[total].stages[1].rfactor_safe);

  // Offered beside the one-thread kernel: a warp per block, a thread per column.
  const PartialsOrOneThread options = partials_or_one_thread(dag, total, gpu);
  CHECK(options.partials.tilings[1].threads.front() == 32);
  CHECK(decision_constructs(dag, total, options.partials) ==
        std::vector<std::string>{"root kernel", "single thread", "partial results (rfactor)"});

  // Kernel model: 512 partial results of 256 steps each, combined in 512 more; far cheaper than
  // 131,072 steps in one thread.
  const ScheduleState factored = decided_with(dag, out, total, options.partials, gpu),
                      one_thread = decided_with(dag, out, total, options.one_thread, gpu);
  const KernelModel km = build_kernel_model(dag, factored, total, 1, gpu);
  REQUIRE(km.valid);
  CHECK(km.partial_results == 512);
  CHECK(km.serial_steps_per_thread == 256);
  const KernelModel single = build_kernel_model(dag, one_thread, total, 1, gpu);
  REQUIRE(single.valid);
  CHECK(cost_of_kernel(km, gpu).total_ms * 10 < cost_of_kernel(single, gpu).total_ms);

  // Emitted as rfactor along the innermost reduction loop; the intermediate computed at root.
  const ScheduleSpec spec = state_to_spec(dag, factored, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  // (total$N, variable total_N, when earlier tests of the process made a total.)
  const std::string t = cpp_identifier(dag.funcs[total].name);
  CHECK(code.find("Func " + t + "_intm = " + t + ".update(0).rfactor(r_total_x, part);") != std::string::npos);
  CHECK(code.find(t + ".update(0).gpu_single_thread();") != std::string::npos);
  CHECK(code.find(t + "_intm.compute_root()") != std::string::npos);
  CHECK(code.find(t + "_intm.update(0).gpu_tile(part, parto, parti, 32, TailStrategy::GuardWithIf)\n"
                  "    .reorder(r_total_y, parti, parto);") != std::string::npos);

  // Compiles for CUDA (two kernels more than one thread's, launched once each: the other
  // reduction loop inside the kernel), and on the CPU computes the exact sum.
  apply_schedule(spec, p.pipeline, ApplyMode::Gpu);
  const CompiledPipeline factored_kernels = compile_pipeline(p.pipeline, default_gpu_target());
  CHECK_FALSE(launched_in_a_loop(factored_kernels.lowered_stmt, dag.funcs[total].name + "_intm.s1"));
  TotalPipeline q;
  apply_schedule(state_to_spec(build_pipeline_dag(q.pipeline), one_thread, gpu), q.pipeline, ApplyMode::Gpu);
  CHECK(factored_kernels.gpu_kernels() == compile_pipeline(q.pipeline, default_gpu_target()).gpu_kernels() + 2);

  TotalPipeline cpu;
  apply_schedule(state_to_spec(build_pipeline_dag(cpu.pipeline), factored, gpu), cpu.pipeline, ApplyMode::Cpu);
  Halide::Buffer<uint8_t> input(512, 256);
  int64_t sum = 0;
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 512; x++) sum += (input(x, y) = uint8_t((x * 7 + y * 13) % 251));
  cpu.in.set(input);
  Halide::Buffer<int32_t> result = cpu.pipeline.realize({512, 256}, cpu_target());
  CHECK(result(3, 5) == int32_t(int64_t(input(3, 5)) * 512 * 256 - sum));
  CHECK(result(511, 255) == int32_t(int64_t(input(511, 255)) * 512 * 256 - sum));
}

TEST_CASE("a total's many partial results are combined in two levels", "[schedule][constructs][partials]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  TotalPipeline p(2048);
  const PipelineDag dag = build_pipeline_dag(p.pipeline);
  const int total = func_named(dag, "total"), out = func_named(dag, "out");
  REQUIRE(total >= 0);

  // Offered beside the one-level partial results: 2,048 of them, regrouped by 32 threads.
  const std::vector<FuncDecision> options = standalone_options(dag, total, gpu, OptionLimits{});
  auto find = [&](int64_t regroup) {
    auto it = std::find_if(options.begin(), options.end(), [&](const FuncDecision &d) {
      return d.tilings.size() == 2 && d.tilings[1].partials && d.tilings[1].partials_regroup == regroup;
    });
    REQUIRE(it != options.end());
    return *it;
  };
  const FuncDecision one_level = find(0), two_levels = find(32);
  CHECK(decision_constructs(dag, total, two_levels) ==
        std::vector<std::string>{"root kernel", "single thread", "partial results (rfactor)"});

  // Kernel model: the one thread steps through 32 groups, not 2,048 partial results; the groups'
  // threads through 64 each; two more kernels. Cheaper at this many.
  const ScheduleState regrouped = decided_with(dag, out, total, two_levels, gpu),
                      factored = decided_with(dag, out, total, one_level, gpu);
  const KernelModel km = build_kernel_model(dag, regrouped, total, 1, gpu);
  REQUIRE(km.valid);
  CHECK(km.partial_results == 2048);
  CHECK(km.partials_regroup == 32);
  const KernelModel once = build_kernel_model(dag, factored, total, 1, gpu);
  const KernelCost regrouped_cost = cost_of_kernel(km, gpu), once_cost = cost_of_kernel(once, gpu);
  CHECK(regrouped_cost.terms_ms.at("reduction_chain") <
        once_cost.terms_ms.at("reduction_chain") - (2048 - 32 - 64) * gpu.partial_combine_step_seconds * 1e3 * 0.99);
  CHECK(regrouped_cost.terms_ms.at("launch") == Approx(once_cost.terms_ms.at("launch") + 2 * gpu.kernel_launch_seconds * 1e3));
  CHECK(regrouped_cost.total_ms < once_cost.total_ms);
  // The learned model (no feature tells it the levels apart) prices the kernel with one level,
  // plus the hand model's difference (at most halving it).
  AutoschedulerOptions learned_options;
  learned_options.model = "learned";
  const std::shared_ptr<const LearnedCostModel> learned = select_cost_model(learned_options);
  REQUIRE(learned);
  const KernelCost learned_regrouped = predict_kernel_cost(learned.get(), dag, regrouped, km, gpu),
                   learned_once = predict_kernel_cost(learned.get(), dag, factored, once, gpu);
  CHECK(learned_regrouped.total_ms ==
        Approx(std::max(learned_once.total_ms + regrouped_cost.total_ms - once_cost.total_ms, 0.5 * learned_once.total_ms))
            .epsilon(1e-9));
  CHECK(learned_regrouped.total_ms < learned_once.total_ms);
  // Small totals keep one level: 64 partial results are not worth two more kernels.
  TotalPipeline narrow(64);
  const PipelineDag narrow_dag = build_pipeline_dag(narrow.pipeline);
  for (const FuncDecision &d : standalone_options(narrow_dag, func_named(narrow_dag, "total"), gpu, OptionLimits{}))
    for (const StageTiling &t : d.tilings) CHECK(t.partials_regroup == 0);

  // Emitted as a second rfactor of the combining stage's loop over the partial results.
  const ScheduleSpec spec = state_to_spec(dag, regrouped, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  const std::string t = cpp_identifier(dag.funcs[total].name);
  CHECK(code.find("Func " + t + "_intm = " + t + ".update(0).rfactor(r_total_x, part);") != std::string::npos);
  CHECK(code.find("Func " + t + "_intm_1 = " + t +
                  ".update(0).split(r_total_x, r_total_xo, r_total_xi, 32, TailStrategy::GuardWithIf)\n"
                  "    .rfactor(r_total_xi, group);") != std::string::npos);
  CHECK(code.find(t + ".update(0).gpu_single_thread();") != std::string::npos);
  CHECK(code.find(t + "_intm_1.update(0).gpu_tile(group, groupo, groupi, 32, TailStrategy::GuardWithIf)\n"
                  "    .reorder(r_total_xo, groupi, groupo);") != std::string::npos);

  // Compiles for CUDA: two kernels more than one level, each launched once; on the CPU, the exact sum.
  apply_schedule(spec, p.pipeline, ApplyMode::Gpu);
  const CompiledPipeline kernels = compile_pipeline(p.pipeline, default_gpu_target());
  CHECK_FALSE(launched_in_a_loop(kernels.lowered_stmt, dag.funcs[total].name + "_intm$1.s1"));
  TotalPipeline q(2048);
  apply_schedule(state_to_spec(build_pipeline_dag(q.pipeline), factored, gpu), q.pipeline, ApplyMode::Gpu);
  CHECK(kernels.gpu_kernels() == compile_pipeline(q.pipeline, default_gpu_target()).gpu_kernels() + 2);

  TotalPipeline cpu(2048);
  apply_schedule(state_to_spec(build_pipeline_dag(cpu.pipeline), regrouped, gpu), cpu.pipeline, ApplyMode::Cpu);
  Halide::Buffer<uint8_t> input(2048, 256);
  int64_t sum = 0;
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 2048; x++) sum += (input(x, y) = uint8_t((x * 7 + y * 13) % 251));
  cpu.in.set(input);
  Halide::Buffer<int32_t> result = cpu.pipeline.realize({2048, 256}, cpu_target());
  CHECK(result(3, 5) == int32_t(int64_t(input(3, 5)) * 2048 * 256 - sum));
  CHECK(result(2047, 255) == int32_t(int64_t(input(2047, 255)) * 2048 * 256 - sum));
}

TEST_CASE("a histogram without atomics is factored into partial histograms", "[schedule][constructs][partials]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  WeightedHistogramPipeline p;
  const PipelineDag dag = build_pipeline_dag(p.pipeline);
  const int hist = func_named(dag, "hist"), out = func_named(dag, "out");
  REQUIRE(hist >= 0);
  REQUIRE(out >= 0);
  const StageNode &update = dag.funcs[hist].stages.at(1);
  CHECK(update.scatter);
  CHECK(update.rfactor_safe);
  CHECK_FALSE(update.atomic_safe);

  // 512 partial histograms of 256 steps each (a thread per column), combined a thread per bin.
  const PartialsOrOneThread options = partials_or_one_thread(dag, hist, gpu);
  const ScheduleState factored = decided_with(dag, out, hist, options.partials, gpu),
                      one_thread = decided_with(dag, out, hist, options.one_thread, gpu);
  const KernelModel km = build_kernel_model(dag, factored, hist, 1, gpu);
  REQUIRE(km.valid);
  CHECK(km.partial_results == 512);
  CHECK(km.serial_steps_per_thread == 256);
  const KernelModel single = build_kernel_model(dag, one_thread, hist, 1, gpu);
  REQUIRE(single.valid);
  CHECK(cost_of_kernel(km, gpu).total_ms * 10 < cost_of_kernel(single, gpu).total_ms);

  const ScheduleSpec spec = state_to_spec(dag, factored, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  // (Named hist$N when earlier tests of the process made Funcs named hist: its variable is then
  // hist_N, and its intermediate's hist_N_intm.)
  const std::string h = cpp_identifier(dag.funcs[hist].name);
  CHECK(code.find("Func " + h + "_intm = " + h + ".update(0).rfactor(r_hist_x, part);") != std::string::npos);
  CHECK(code.find(h + ".update(0).gpu_tile(i, io, ii, 64, TailStrategy::GuardWithIf);") != std::string::npos);
  CHECK(code.find(h + "_intm.update(0).gpu_tile(part, parto, parti, 32, TailStrategy::GuardWithIf)\n"
                  "    .reorder(r_hist_y, parti, parto);") != std::string::npos);

  // Compiles for CUDA with every reduction loop of the partial histograms inside their kernel.
  apply_schedule(spec, p.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(p.pipeline, default_gpu_target());
  INFO(compiled.lowered_stmt);
  CHECK_FALSE(launched_in_a_loop(compiled.lowered_stmt, dag.funcs[hist].name + "_intm.s1"));

  // On the CPU, the same schedule bins exactly (sums of small integers in floats).
  WeightedHistogramPipeline cpu;
  apply_schedule(state_to_spec(build_pipeline_dag(cpu.pipeline), factored, gpu), cpu.pipeline, ApplyMode::Cpu);
  Halide::Buffer<uint8_t> input(512, 256);
  std::vector<double> bins(128, 0.0);
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 512; x++) {
      input(x, y) = uint8_t((x * 7 + y * 13) % 251);
      bins[input(x, y) / 2] += input(x, y);
    }
  cpu.in.set(input);
  Halide::Buffer<float> result = cpu.pipeline.realize({512, 256}, cpu_target());
  CHECK(double(result(3, 5)) == bins[input(3, 5) / 2]);
  CHECK(double(result(511, 255)) == bins[input(511, 255) / 2]);
}

TEST_CASE("a row or column reduction with few points is factored into partial results per point",
          "[schedule][constructs][partials]") {
  const GpuProfile &gpu = find_gpu_profile("h200");
  RowColumnPipeline p;
  const PipelineDag dag = build_pipeline_dag(p.pipeline);
  const int rows = func_named(dag, "row_sum"), columns = func_named(dag, "column_max"), out = func_named(dag, "out");
  REQUIRE(rows >= 0);
  REQUIRE(columns >= 0);
  REQUIRE(out >= 0);
  REQUIRE(dag.funcs[rows].stages.at(1).rfactor_safe);  // one reduction loop is enough

  // The options: a row's partial results innermost (consecutive threads, consecutive columns of
  // the row); for a column, the columns innermost too (consecutive threads, consecutive columns).
  auto per_point = [&](int f, bool factored_inner) {
    for (const FuncDecision &d : standalone_options(dag, f, gpu, OptionLimits{}))
      if (d.tilings.size() == 2 && partial_loop_per_point(d.tilings[1], dag.funcs[f].stages[1]) == (factored_inner ? 0 : 1))
        return std::optional<FuncDecision>(d);
    return std::optional<FuncDecision>();
  };
  const std::optional<FuncDecision> row_partials = per_point(rows, true), column_partials = per_point(columns, false);
  REQUIRE(row_partials);
  REQUIRE(column_partials);
  const StageTiling &t = row_partials->tilings[1];
  CHECK(t.threads == std::vector<int64_t>{32, 8});
  CHECK(t.serial == std::vector<int64_t>{32, 1});  // ceil(1000 / 32) steps per partial result
  CHECK(t.blocks() == 38);                           // 300 rows, 8 per block; one block spans a row

  // Costed: a thread per partial result, each 1000 / 32 steps; far cheaper than a thread per row
  // stepping through all 1000 columns.
  const std::vector<FuncDecision> own = standalone_options(dag, rows, gpu, OptionLimits{});
  const ScheduleState factored = decided_with(dag, out, rows, *row_partials, gpu),
                      plain = decided_with(dag, out, rows, own.front(), gpu);
  const KernelModel km = build_kernel_model(dag, factored, rows, 1, gpu);
  REQUIRE(km.valid);
  CHECK(km.partial_results == 32);
  CHECK(km.serial_steps_per_thread == Approx(1000.0 / 32));
  CHECK(km.threads_per_block == 256);
  const KernelModel serial = build_kernel_model(dag, plain, rows, 1, gpu);
  REQUIRE(serial.valid);
  CHECK(cost_of_kernel(km, gpu).total_ms * 3 < cost_of_kernel(serial, gpu).total_ms);

  // Emitted: split, factored, combined a thread per row; the partial results' reduction loop
  // inside their threads.
  ScheduleState both = factored;
  both.decide(columns, *column_partials);
  const ScheduleSpec spec = state_to_spec(dag, both, gpu);
  const std::string code = emit_schedule_source(spec, EmitContext::GeneratorSchedule);
  INFO(code);
  const std::string r = cpp_identifier(dag.funcs[rows].name), c = cpp_identifier(dag.funcs[columns].name);
  CHECK(code.find("Func " + r + "_intm = " + r +
                  ".update(0).split(rx_x, rx_xo, rx_xi, 32, TailStrategy::GuardWithIf)\n"
                  "    .rfactor(rx_xi, part);") != std::string::npos);
  CHECK(code.find(r + ".update(0).gpu_tile(y, yo, yi, 64, TailStrategy::GuardWithIf);") != std::string::npos);
  CHECK(code.find(r + "_intm.update(0).gpu_tile(part, y, parto, yo, parti, yi, 32, 8, TailStrategy::GuardWithIf)\n"
                  "    .reorder(rx_xo, parti, yi, parto, yo);") != std::string::npos);
  CHECK(code.find(c + "_intm.update(0).gpu_tile(x, part, xo, parto, xi, parti, 32, 8, TailStrategy::GuardWithIf)") !=
        std::string::npos);

  // Compiles for CUDA, each partial results' kernel launched once.
  apply_schedule(spec, p.pipeline, ApplyMode::Gpu);
  const CompiledPipeline compiled = compile_pipeline(p.pipeline, default_gpu_target());
  INFO(compiled.lowered_stmt);
  CHECK_FALSE(launched_in_a_loop(compiled.lowered_stmt, dag.funcs[rows].name + "_intm.s1"));
  CHECK_FALSE(launched_in_a_loop(compiled.lowered_stmt, dag.funcs[columns].name + "_intm.s1"));

  // On the CPU the same schedule is exact (integer sums, maxima), tails included.
  RowColumnPipeline cpu;
  apply_schedule(state_to_spec(build_pipeline_dag(cpu.pipeline), both, gpu), cpu.pipeline, ApplyMode::Cpu);
  Halide::Buffer<uint16_t> input(1000, 300);
  std::vector<int64_t> row_sums(300, 0);
  std::vector<int> column_maxima(1000, 0);
  for (int y = 0; y < 300; y++)
    for (int x = 0; x < 1000; x++) {
      input(x, y) = uint16_t((x * 37 + y * 101 + x * y) % 4099);
      row_sums[y] += input(x, y);
      column_maxima[x] = std::max<int>(column_maxima[x], input(x, y));
    }
  cpu.in.set(input);
  Halide::Buffer<int32_t> result = cpu.pipeline.realize({1000, 300}, cpu_target());
  for (auto [x, y] : std::vector<std::pair<int, int>>{{0, 0}, {999, 0}, {31, 17}, {992, 299}, {999, 299}})
    CHECK(int64_t(result(x, y)) == int64_t(input(x, y)) * 3 + row_sums[y] - column_maxima[x]);
}
