// The pipeline DAG: Funcs, stages, edges, per-point regions, op counts and estimated regions.
#include <catch2/catch.hpp>

#include "halide_test_support.h"
#include "dag/op_counter.h"
#include "hlsched/engine/pipeline_dag.h"

using namespace hlsched;

namespace {

PipelineDag dag_of(const std::string &generator, const GeneratorParams &params = {}) {
  auto inst = instantiate_generator(generator, default_gpu_target(), params);
  return build_pipeline_dag(inst.pipeline);
}

// Halide makes names unique per process: a generator instantiated twice in one test binary has
// "blur_x" the first time and "blur_x$1" the next. Tests look Funcs up by the name they were given.
std::string given_name(const std::string &halide_name) { return halide_name.substr(0, halide_name.find('$')); }

const FuncNode *func(const PipelineDag &dag, const std::string &name) {
  for (const auto &f : dag.funcs)
    if (given_name(f.name) == name) return &f;
  return nullptr;
}

const ProducerAccess &access_of(const StageNode &stage, const std::string &producer) {
  for (const auto &a : stage.accesses)
    if (given_name(a.producer) == given_name(producer)) return a;
  FAIL("stage " << stage.name << " does not read " << producer);
  throw;
}

}  // namespace

TEST_CASE("dag: stencil, boundary condition, two consumers, pointwise stages", "[dag]") {
  PipelineDag dag = dag_of("stencil_small");
  REQUIRE(dag.outputs.size() == 1);
  REQUIRE(func(dag, "blur_x"));
  REQUIRE(func(dag, "blur_y"));
  REQUIRE(given_name(dag.funcs.back().name) == "output");  // producers before consumers

  const FuncNode &blur_x = *func(dag, "blur_x");
  CHECK(blur_x.consumers.size() == 2);  // blur_y and sharpened
  CHECK(blur_x.region.at(0).extent() == 1024);
  CHECK(blur_x.region.at(1).min == -1);  // blur_y reads one row above and below
  CHECK(blur_x.region.at(1).max == 768);

  // blur_x reads the boundary condition over [x-1, x+1] x [y, y] per point.
  const FuncNode *clamped = nullptr;
  for (const auto &f : dag.funcs)
    if (f.is_boundary_condition) clamped = &f;
  REQUIRE(clamped);
  const ProducerAccess &a = access_of(blur_x.stages[0], clamped->name);
  CHECK(a.calls_per_point == 3);
  CHECK(a.is_affine);
  CHECK_FALSE(a.is_pointwise);
  CHECK(a.points_per_consumer_point == std::vector<int64_t>{3, 1});
  CHECK(a.region_min[0].constant == -1);
  CHECK(a.region_min[0].coefficients.at("x") == 1);
  CHECK(a.region_max[0].constant == 1);
  CHECK(clamped->region.at(0).min == -1);
  CHECK(clamped->region.at(0).max == 1024);

  // The boundary condition reads the input, which has its estimates.
  REQUIRE(dag.inputs.size() == 2);
  bool saw_gain = false;
  for (const auto &in : dag.inputs) {
    if (given_name(in.name) == "input") CHECK(in.estimate.at(0).extent() == 1024);
    if (given_name(in.name) == "gain") saw_gain = !in.is_buffer;
  }
  CHECK(saw_gain);

  // Pointwise access, and operation counts by type.
  const FuncNode &output = *func(dag, "output");
  CHECK(access_of(output.stages[0], "sharpened").is_pointwise);
  CHECK(output.stages[0].points == 1024 * 768);
  CHECK(output.stages[0].ops.at("max.f32") == 1);
  CHECK(func(dag, "blur_y")->stages[0].ops.at("add.f32") == 2);
  CHECK(func(dag, "blur_y")->stages[0].ops.at("div.f32") == 1);
}

TEST_CASE("dag: GeneratorParams change the pipeline", "[dag]") {
  PipelineDag narrow = dag_of("stencil_small", {{"radius", "1"}});
  PipelineDag wide = dag_of("stencil_small", {{"radius", "3"}});
  auto calls = [](const PipelineDag &dag) {
    return func(dag, "blur_x")->stages[0].accesses.at(0).calls_per_point;
  };
  CHECK(calls(narrow) == 3);
  CHECK(calls(wide) == 7);
}

TEST_CASE("dag: reductions, histogram, scan and multiple outputs", "[dag]") {
  PipelineDag dag = dag_of("reductions_small");
  CHECK(dag.outputs.size() == 2);

  const FuncNode &sums = *func(dag, "sums");
  REQUIRE(sums.stages.size() == 2);
  const StageNode &update = sums.stages[1];
  REQUIRE(update.loops.size() == 2);
  CHECK(update.loops[0].is_rvar);  // ry innermost
  CHECK(update.loops[0].estimate.extent() == 480);
  CHECK_FALSE(update.loops[1].is_rvar);
  CHECK(update.loops[1].is_pure);
  CHECK(update.points == 640 * 480);

  const FuncNode &hist = *func(dag, "hist");
  REQUIRE(hist.stages.size() == 2);
  for (const auto &loop : hist.stages[1].loops) CHECK(loop.is_rvar);  // a scatter has no pure var
  CHECK(hist.stages[1].points == 640 * 480);
  CHECK(hist.region.at(0).extent() == 256);

  const FuncNode &scan = *func(dag, "scan");
  REQUIRE(scan.stages.size() == 2);
  CHECK(scan.stages[1].loops.size() == 1);
  CHECK(scan.stages[1].loops[0].is_rvar);
  // The scan reads itself and the histogram.
  bool reads_self = false;
  for (const auto &a : scan.stages[1].accesses) reads_self |= a.producer == scan.name;
  CHECK(reads_self);
}

TEST_CASE("dag: a Func with updates covers what they touch, not only what its consumers read", "[dag]") {
  // middle(y) reads filtered(500, y), but the scan along x writes columns 1..999 and reads 0..998.
  PipelineDag dag = dag_of("scan_read_once");
  const FuncNode &filtered = *func(dag, "filtered");
  REQUIRE(filtered.region.size() == 2);
  CHECK(filtered.region[0].min == 0);
  CHECK(filtered.region[0].max == 999);
  CHECK(filtered.region[1].extent() == 600);
  CHECK(filtered.stages[0].points == 1000 * 600);  // the pure stage initializes whole rows
  CHECK(filtered.stages[1].points == 999 * 600);
  // Its producers are required over the whole rows too.
  for (const auto &f : dag.funcs)
    if (f.is_boundary_condition) CHECK(f.region.at(0).extent() == 1000);
}

TEST_CASE("dag: Funcs from helper functions, down/up-sampling and gathers", "[dag]") {
  PipelineDag dag = dag_of("pyramid_small", {{"levels", "3"}});
  REQUIRE(func(dag, "down_1"));
  REQUIRE(func(dag, "down_2"));
  REQUIRE(func(dag, "up_0"));
  // down_1 reads as_float at [2x-1, 2x+1]: coefficient 2 on x.
  const ProducerAccess &a = access_of(func(dag, "down_1")->stages[0], "as_float");
  CHECK(a.region_min[0].coefficients.at("x") == 2);
  CHECK(a.region_min[0].constant == -1);
  // up_0 reads down_1 at x/2 and (x+1)/2, and mirror_image reaches one more pixel each side.
  CHECK(func(dag, "down_1")->region.at(0).extent() >= 768);
  CHECK(func(dag, "down_1")->region.at(0).extent() <= 772);
  // up_0 reads down-level data at x/2: a fractional coefficient.
  const FuncNode &up0 = *func(dag, "up_0");
  bool saw_half = false;
  for (const auto &acc : up0.stages[0].accesses)
    for (const auto &m : acc.region_min)
      if (m.is_affine && m.coefficients.count("x") && m.coefficients.at("x") == 0.5) saw_half = true;
  CHECK(saw_half);
  // The LUT gather is data-dependent, bounded by its clamp.
  // (Generator Input<Buffer>s are read through a wrapper Func "<name>_im".)
  const ProducerAccess &lut = access_of(func(dag, "mapped")->stages[0], "curve_im");
  // A data-dependent index: one point may read anywhere in the clamp range (the whole table).
  CHECK(lut.points_per_consumer_point == std::vector<int64_t>{256});
  CHECK_FALSE(lut.is_pointwise);
  CHECK(func(dag, "curve_im")->region.at(0).extent() == 256);
}

TEST_CASE("dag: missing estimates are named", "[dag]") {
  try {
    dag_of("no_estimates");
    FAIL("expected MissingEstimatesError");
  } catch (const MissingEstimatesError &e) {
    std::string message = e.what();
    CHECK(message.find("input 'image'") != std::string::npos);
    // ('result', or 'result$1' where this process made a Func of that name before: the whole
    // binary run beside other test processes failed here once, session twenty-nine)
    CHECK(message.find("output 'result") != std::string::npos);
    CHECK(message.find("weights") == std::string::npos);
  }
}

// The analyses plan a copy of the Funcs with the schedules generate() may have written reset to
// Halide's defaults. For generators that schedule nothing, that reset must change nothing: every
// stage's loops (names, order, pure or impure reduction variables) are the ones Halide gave it.
TEST_CASE("dag: the algorithm's schedules are reset to exactly Halide's defaults", "[dag]") {
  for (const std::string generator : {"reductions_small", "scans_shared", "fused_reductions_small", "stencil_small"}) {
    INFO(generator);
    auto inst = instantiate_generator(generator, default_gpu_target(), {});
    auto scheduled = pipeline_functions(inst.pipeline);  // schedule() set estimates only
    for (const auto &[name, f] : pipeline_functions(inst.algorithm)) {
      INFO(name);
      REQUIRE(scheduled.count(name));
      const Halide::Internal::Function &g = scheduled.at(name);
      REQUIRE(f.updates().size() == g.updates().size());
      for (std::size_t s = 0; s <= f.updates().size(); s++) {
        const auto &mine = (s == 0 ? f.definition() : f.updates()[s - 1]).schedule().dims();
        const auto &halide = (s == 0 ? g.definition() : g.updates()[s - 1]).schedule().dims();
        REQUIRE(mine.size() == halide.size());
        for (std::size_t d = 0; d < mine.size(); d++) {
          CHECK(mine[d].var == halide[d].var);
          CHECK(mine[d].dim_type == halide[d].dim_type);
          CHECK(mine[d].for_type == halide[d].for_type);
        }
      }
      CHECK(f.schedule().storage_dims().size() == g.schedule().storage_dims().size());
      CHECK(f.schedule().estimates().size() == g.schedule().estimates().size());
    }
  }
}

TEST_CASE("dag: a math call counts its library routine's arithmetic, a rounding call none", "[dag]") {
  Halide::Var x("x");
  Halide::Expr v = Halide::cast<float>(x);
  const OpCounts rounding = count_operations({Halide::floor(v)});
  CHECK(rounding.at("math.f32") == 1);
  CHECK(rounding.count("libm.f32") == 0);

  // pow takes its logarithm and exponential in software: far more than one special-function op,
  // and more than sqrt, exp or log alone.
  const OpCounts pow_ops = count_operations({Halide::pow(v, 0.45f)});
  const OpCounts sqrt_ops = count_operations({Halide::sqrt(v)});
  const OpCounts exp_ops = count_operations({Halide::exp(v)});
  const OpCounts log_ops = count_operations({Halide::log(v)});
  CHECK(pow_ops.at("math.f32") == 1);
  CHECK(pow_ops.at("libm.f32") > log_ops.at("libm.f32"));
  CHECK(log_ops.at("libm.f32") > exp_ops.at("libm.f32"));
  CHECK(sqrt_ops.at("libm.f32") > 0);

  // Counted with the basic arithmetic, which inlining and the compute term weigh.
  StageNode stage;
  stage.ops = pow_ops;
  CHECK(stage.arithmetic_ops().math == 1);
  CHECK(stage.arithmetic_ops().basic >= pow_ops.at("libm.f32"));
}

TEST_CASE("dag: integer division weighs what the GPU runs: a routine by a variable, a multiply by a constant",
          "[dag]") {
  Halide::Var x("x"), y("y");
  Halide::Expr a = Halide::cast<int32_t>(x), b = Halide::cast<int32_t>(y);
  Halide::Expr wide_a = Halide::cast<int64_t>(x), wide_b = Halide::cast<int64_t>(y) + 1;
  auto basic = [](const OpCounts &ops) {
    StageNode stage;
    stage.ops = ops;
    return stage.arithmetic_ops().basic;
  };
  const OpCounts by_constant = count_operations({a / 7});
  const OpCounts by_variable = count_operations({a / b});
  const OpCounts wide = count_operations({wide_a / wide_b});
  CHECK(by_constant.count("divc.i32") == 1);
  CHECK(by_variable.count("div.i32") == 1);
  CHECK(basic(by_variable) >= basic(by_constant) + 10);
  CHECK(basic(wide) >= basic(by_variable) + 40);
  // Floats divide in hardware-assisted code: one operation, as before.
  CHECK(basic(count_operations({Halide::cast<float>(x) / Halide::cast<float>(y)})) ==
        basic(count_operations({Halide::cast<float>(x) * Halide::cast<float>(y)})));
}

TEST_CASE("dag: a Tuple's values share their subexpressions, and its point is read once", "[dag]") {
  Halide::Func producer("tuple_producer"), consumer("tuple_consumer");
  Halide::Var x("x");
  Halide::Expr shared = Halide::sqrt(Halide::cast<float>(x) * 3.0f + 1.0f);
  producer(x) = Halide::Tuple(shared + 1.0f, shared * 2.0f);
  consumer(x) = producer(x)[0] * producer(x)[1] + producer(x + 1)[1];

  // One square root for both values, as the generated code computes it.
  const OpCounts ops = count_operations(producer.function().definition().values());
  CHECK(ops.at("math.f32") == 1);
  CHECK(ops.at("store.f32") == 2);

  // Both values at x are one evaluation (inlined) or one point moved (stored); x + 1 is another.
  const CallSites sites = count_call_sites(consumer.function().definition().values());
  CHECK(sites.calls.at(producer.name()) == 2);
}

TEST_CASE("dag: a Func can be computed past its region where its reads of inputs are clamped", "[dag]") {
  // stencil_small reads its input through repeat_edge: every Func but the input's own wrapper
  // (which reads the buffer at its point) can compute a few more rows (a RoundUp split).
  PipelineDag stencil = dag_of("stencil_small");
  CHECK_FALSE(func(stencil, "input_im")->computable_past_region);
  for (const std::string name : {"blur_x", "blur_y", "sharpened"}) {
    INFO(name);
    CHECK(func(stencil, name)->computable_past_region);
  }
  const FuncNode *boundary = nullptr;
  for (const FuncNode &f : stencil.funcs)
    if (f.is_boundary_condition) boundary = &f;
  REQUIRE(boundary);
  REQUIRE(boundary->stages[0].accesses.size() == 1);
  CHECK(boundary->stages[0].accesses[0].bounded_above);
  CHECK_FALSE(access_of(func(stencil, "blur_x")->stages[0], boundary->name).bounded_above);

  // bayer_small reads its mosaic at x + 2 + dx with no boundary condition: computed further, it
  // would read past the buffer. A constant coordinate (the colour read by out) is bounded.
  PipelineDag bayer = dag_of("bayer_small");
  CHECK_FALSE(func(bayer, "rgb")->computable_past_region);
  CHECK_FALSE(func(bayer, "out")->computable_past_region);

  // A gather through a clamp (pyramid_small's curve) is bounded whatever the index.
  PipelineDag pyramid = dag_of("pyramid_small", {{"levels", "2"}});
  CHECK(access_of(func(pyramid, "mapped")->stages[0], "curve_im").bounded_above);
}

TEST_CASE("dag: reads whose calls are each affine, and reads through a boundary condition", "[dag]") {
  // out reads premultiplied at (x, y, c) and at (x, y, 3): the merged region along c is
  // min(c, 3) .. max(c, 3), not affine, but each call is.
  PipelineDag normalized = dag_of("normalized_channels_small");
  const ProducerAccess &both = access_of(func(normalized, "out")->stages[0], "premultiplied");
  CHECK_FALSE(both.is_affine);
  CHECK(both.each_call_affine());
  for (const ProducerAccess &a : func(normalized, "premultiplied")->stages[0].accesses) CHECK(a.each_call_affine());
  // Their calls, each as affine as a single read: the alpha channel's follows no c.
  REQUIRE(both.call_args.size() == 2);
  CHECK(both.call_args[0].size() == 3);

  // A boundary condition's clamp moves with the loops: not affine call by call either.
  PipelineDag stencil = dag_of("stencil_small");
  for (const FuncNode &f : stencil.funcs) {
    if (!f.is_boundary_condition) continue;
    REQUIRE(f.stages[0].accesses.size() == 1);
    CHECK_FALSE(f.stages[0].accesses[0].is_affine);
    CHECK_FALSE(f.stages[0].accesses[0].each_call_affine());
  }
}
