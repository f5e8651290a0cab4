// Random schedules drawn from the search's options (random walks): every one compiles for CUDA,
// and its CPU twin computes exactly what the compute_root reference computes. Any failure is a
// bug in the options: the engine must never emit an invalid schedule.
#include <catch2/catch.hpp>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"

using namespace hlsched;
using namespace hlsched::testing;

namespace {

struct Pipeline {
  std::string generator;
  GeneratorParams params;
  std::function<void(const Halide::Pipeline &)> bind;
  std::vector<int> output_size;
};

std::vector<Pipeline> pipelines() {
  return {
      {"stencil_small", {{"radius", "2"}},
       [](const Halide::Pipeline &p) {
         bind_input(p, "input", random_buffer<float>({41, 23}, 11, -1, 1));
         bind_scalar<float>(p, "gain", 1.25f);
       },
       {41, 23}},
      {"pyramid_small", {{"levels", "3"}},
       [](const Halide::Pipeline &p) {
         bind_input(p, "input", random_buffer<uint8_t>({50, 38, 3}, 12, 0, 255));
         bind_input(p, "curve", random_buffer<float>({256}, 13, 0, 1));
       },
       {50, 38, 3}},
  };
}

Halide::Buffer<> run(const Pipeline &c, const Halide::Pipeline &p) {
  c.bind(p);
  Halide::Pipeline handle = p;
  return handle.realize(c.output_size, cpu_target())[0];
}

}  // namespace

TEST_CASE("random schedules are valid and exact", "[schedule][random]") {
  constexpr int kSamplesPerPipeline = 6;
  for (const Pipeline &c : pipelines()) {
    auto reference = instantiate_generator(c.generator, cpu_target(), c.params, false);
    schedule_compute_root_everywhere(reference.pipeline);
    Halide::Buffer<> expected = run(c, reference.pipeline);

    // Halide names Funcs uniquely per process ("blur_x$2" in a second instance), so each instance
    // draws its own copy of sample i: the walk depends only on the seed and the index.
    auto draw = [&](const Halide::Target &target, int index) {
      auto inst = instantiate_generator(c.generator, target, c.params);
      PipelineDag dag = build_pipeline_dag(inst.pipeline);
      auto samples = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 1, 2026, index);
      REQUIRE(samples.size() == 1);
      return std::make_pair(std::move(inst), samples.front());
    };
    for (int i = 0; i < kSamplesPerPipeline; i++) {
      auto [gpu, gpu_sample] = draw(default_gpu_target(), i);
      INFO(c.generator << " sample " << i << "\n" << gpu_sample.schedule_code);
      apply_schedule(gpu_sample.schedule, gpu.pipeline, ApplyMode::Gpu);
      CHECK(compile_pipeline(gpu.pipeline, default_gpu_target()).gpu_kernels() > 0);

      auto [cpu, cpu_sample] = draw(cpu_target(), i);
      apply_schedule(cpu_sample.schedule, cpu.pipeline, ApplyMode::Cpu);
      CHECK(count_differences(run(c, cpu.pipeline), expected) == 0);
    }
  }
}

TEST_CASE("sampling is deterministic per seed", "[schedule][random]") {
  auto inst = instantiate_generator("pyramid_small", default_gpu_target(), {{"levels", "3"}});
  PipelineDag dag = build_pipeline_dag(inst.pipeline);
  auto a = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 4, 7);
  auto b = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 4, 7);
  auto c = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 4, 8);
  auto third_alone = sample_schedules(inst.pipeline, dag, AutoschedulerOptions{}, 1, 7, 2);
  REQUIRE(a.size() == 4);
  bool any_different = false;
  for (size_t i = 0; i < a.size(); i++) {
    CHECK(a[i].schedule_code == b[i].schedule_code);
    any_different |= a[i].schedule_code != c[i].schedule_code;
  }
  CHECK(any_different);
  CHECK(third_alone.front().schedule_code == a[2].schedule_code);
}
