// The simple GPU schedule: valid for CUDA, and (applied as its CPU twin) computes exactly what
// the unscheduled pipeline computes.
#include <catch2/catch.hpp>

#include <functional>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

struct Case {
  std::string generator;
  GeneratorParams params;
  std::function<void(const Halide::Pipeline &)> bind_inputs;
  std::function<Halide::Realization(Halide::Pipeline &)> realize;
};

std::vector<Case> cases() {
  return {
      {"stencil_small", {{"radius", "2"}},
       [](const Halide::Pipeline &p) {
         bind_input(p, "input", random_buffer<float>({37, 29}, 1, -1, 1));
         bind_scalar<float>(p, "gain", 1.5f);
       },
       [](Halide::Pipeline &p) { return p.realize({37, 29}, cpu_target()); }},
      {"reductions_small", {},
       [](const Halide::Pipeline &p) { bind_input(p, "input", random_buffer<uint8_t>({40, 31}, 2, 0, 255)); },
       [](Halide::Pipeline &p) {
         Halide::Buffer<int32_t> sums(40), cdf(256);
         p.realize(Halide::Realization({sums, cdf}), cpu_target());
         return Halide::Realization({sums, cdf});
       }},
      {"pyramid_small", {{"levels", "3"}},
       [](const Halide::Pipeline &p) {
         bind_input(p, "input", random_buffer<uint8_t>({48, 40, 3}, 3, 0, 255));
         bind_input(p, "curve", random_buffer<float>({256}, 4, 0, 1));
       },
       [](Halide::Pipeline &p) { return p.realize({48, 40, 3}, cpu_target()); }},
  };
}

template <typename T>
int64_t count_mismatches(const Halide::Buffer<> &a_raw, const Halide::Buffer<> &b_raw) {
  Halide::Buffer<T> a(a_raw), b(b_raw);
  int64_t bad = 0;
  a.for_each_element([&](const int *pos) { bad += a(pos) != b(pos); });
  return bad;
}

int64_t mismatches(const Halide::Buffer<> &a, const Halide::Buffer<> &b) {
  REQUIRE(a.type() == b.type());
  if (a.type() == Halide::Float(32)) return count_mismatches<float>(a, b);
  if (a.type() == Halide::Int(32)) return count_mismatches<int32_t>(a, b);
  if (a.type() == Halide::UInt(8)) return count_mismatches<uint8_t>(a, b);
  if (a.type() == Halide::UInt(16)) return count_mismatches<uint16_t>(a, b);
  FAIL("unhandled type");
  return -1;
}

AutoschedulerOptions with_strategy(const std::string &strategy) {
  AutoschedulerOptions options;
  options.strategy = strategy;
  options.time_budget_s = 5;
  return options;
}

}  // namespace

TEST_CASE("schedules of every strategy compile for CUDA with GPU kernels", "[schedule]") {
  const std::string strategy = GENERATE(as<std::string>{}, "simple", "beam");
  for (const Case &c : cases()) {
    INFO(c.generator << " with the " << strategy << " strategy");
    auto inst = instantiate_generator(c.generator, default_gpu_target(), c.params);
    PipelineDag dag = build_pipeline_dag(inst.pipeline);
    ScheduleResult result = schedule_pipeline(inst.pipeline, dag, with_strategy(strategy));
    apply_schedule(result.schedule, inst.pipeline, ApplyMode::Gpu);
    REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
    CHECK(result.predicted_runtime_ms > 0);
    CHECK(result.search.fallback.empty());  // the search itself found the schedule
    CHECK_FALSE(result.stages.empty());
  }
}

TEST_CASE("CPU twins of every strategy's schedule compute exactly what compute_root computes", "[schedule]") {
  const std::string strategy = GENERATE(as<std::string>{}, "simple", "beam");
  for (const Case &c : cases()) {
    INFO(c.generator << " with the " << strategy << " strategy");
    auto reference = instantiate_generator(c.generator, cpu_target(), c.params, false);
    schedule_compute_root_everywhere(reference.pipeline);
    c.bind_inputs(reference.pipeline);
    Halide::Realization expected = c.realize(reference.pipeline);

    auto scheduled = instantiate_generator(c.generator, cpu_target(), c.params);
    PipelineDag dag = build_pipeline_dag(scheduled.pipeline);
    ScheduleResult result = schedule_pipeline(scheduled.pipeline, dag, with_strategy(strategy));
    apply_schedule(result.schedule, scheduled.pipeline, ApplyMode::Cpu);
    c.bind_inputs(scheduled.pipeline);
    Halide::Realization actual = c.realize(scheduled.pipeline);

    REQUIRE(actual.size() == expected.size());
    for (size_t i = 0; i < actual.size(); i++) CHECK(mismatches(actual[i], expected[i]) == 0);
  }
}

TEST_CASE("schedule source: Vars declared, Funcs reached by name, one statement per stage", "[schedule]") {
  auto inst = instantiate_generator("reductions_small", default_gpu_target(), {});
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  ScheduleResult result = schedule_pipeline(inst.pipeline, dag, with_strategy("simple"));
  const std::string &code = result.schedule_code;
  INFO(code);
  // Halide uniquifies names per process ("sums$1" when the generator was built before).
  std::string sums, widened;
  for (const auto &f : dag.funcs) {
    if (f.name.rfind("sums", 0) == 0) sums = f.name;
    if (f.name.rfind("widened", 0) == 0) widened = f.name;
  }
  const std::string id = cpp_identifier(sums);
  CHECK(code.find("get_pipeline().outputs()") != std::string::npos);
  CHECK(code.find("Func " + id + "(hlsched_funcs.at(\"" + sums + "\"));") != std::string::npos);
  CHECK(code.find(id + ".update(0)") != std::string::npos);
  CHECK(code.find("Var ") != std::string::npos);
  CHECK(code.find("gpu_tile(") != std::string::npos);
  CHECK(code.find("// " + widened + ": inlined") != std::string::npos);
}

TEST_CASE("cpp_identifier makes valid, unique-looking names", "[schedule]") {
  CHECK(cpp_identifier("blur_x") == "blur_x");
  CHECK(cpp_identifier("r$x") == "r_x");
  CHECK(cpp_identifier("repeat_edge$1") == "repeat_edge_1");
  CHECK(cpp_identifier("_0") == "v_0");
  CHECK(cpp_identifier("int") == "int_");
  CHECK(cpp_identifier("Func") == "Func_");
}
