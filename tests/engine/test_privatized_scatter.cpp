// A histogram (an atomic scatter of 640x480 updates into 256 bins) is privatized by the search:
// each GPU block reduces a strip of the image into its own copy (rfactor), then adds the copy
// into the histogram. The schedule compiles for CUDA and its CPU twin is exact.
// Cost: two searches and two compiles of reductions_small, a few seconds.
#include <catch2/catch.hpp>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

const FuncSchedule *intermediate_of(const ScheduleSpec &spec, const std::string &func) {
  return spec.find(func + "_intm");
}

std::string hist_name(const PipelineDag &dag) {
  for (const FuncNode &f : dag.funcs)
    if (f.name.rfind("hist", 0) == 0) return f.name;
  return "";
}

Halide::Realization run_on_cpu(const Halide::Pipeline &p, const Halide::Buffer<uint8_t> &input) {
  bind_input(p, "input", input);
  Halide::Pipeline handle = p;
  std::vector<Halide::Buffer<>> buffers = {Halide::Buffer<int32_t>(640), Halide::Buffer<int32_t>(256)};
  Halide::Realization outputs(buffers);
  handle.realize(outputs, cpu_target());
  return outputs;
}

}  // namespace

TEST_CASE("a histogram gets a privatized schedule that is exact on the CPU", "[schedule][privatized]") {
  const Halide::Buffer<uint8_t> input = random_buffer<uint8_t>({640, 480}, 21, 0, 255);
  auto reference = instantiate_generator("reductions_small", cpu_target(), {}, false);
  schedule_compute_root_everywhere(reference.pipeline);
  Halide::Realization expected = run_on_cpu(reference.pipeline, input);

  // Each instance has its own Func names, so each is scheduled on its own.
  auto schedule = [](const Halide::Target &target) {
    auto inst = instantiate_generator("reductions_small", target, {});
    PipelineDag dag = build_pipeline_dag(inst.pipeline);
    ScheduleResult result = schedule_pipeline(inst.pipeline, dag, AutoschedulerOptions{});
    const std::string hist = hist_name(dag);
    REQUIRE_FALSE(hist.empty());
    INFO(result.schedule_code);
    REQUIRE(intermediate_of(result.schedule, hist) != nullptr);
    CHECK(result.schedule_code.find(".rfactor(") != std::string::npos);
    return std::make_pair(std::move(inst), std::move(result));
  };

  auto [gpu, gpu_result] = schedule(default_gpu_target());
  apply_schedule(gpu_result.schedule, gpu.pipeline, ApplyMode::Gpu);
  CHECK(compile_pipeline(gpu.pipeline, default_gpu_target()).gpu_kernels() > 0);

  auto [cpu, cpu_result] = schedule(cpu_target());
  apply_schedule(cpu_result.schedule, cpu.pipeline, ApplyMode::Cpu);
  Halide::Realization got = run_on_cpu(cpu.pipeline, input);
  for (size_t i = 0; i < got.size(); i++) {
    Halide::Buffer<int32_t> a = got[i], b = expected[i];
    int64_t differences = 0;
    a.for_each_element([&](const int *pos) { differences += a(pos) != b(pos); });
    CHECK(differences == 0);
  }
}
