// conv_layer: CPU output against direct convolution loops; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "hlsched/engine/pipeline_walk.h"

using namespace hlsched::testing;

namespace {

// output(co, x, y, n) = max(0, bias(co) + sum_{ci,kx,ky} filter(co, ci, kx, ky) * input(ci, x+kx, y+ky, n)).
Halide::Buffer<double> reference_conv_layer(const Halide::Buffer<float> &input, const Halide::Buffer<float> &filter,
                                            const Halide::Buffer<float> &bias, int W, int H) {
  const int CI = input.dim(0).extent(), N = input.dim(3).extent(), CO = filter.dim(0).extent();
  Halide::Buffer<double> out(CO, W, H, N);
  for (int n = 0; n < N; n++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int co = 0; co < CO; co++) {
          double sum = bias(co);
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++)
              for (int ci = 0; ci < CI; ci++)
                sum += static_cast<double>(filter(co, ci, kx, ky)) * input(ci, x + kx, y + ky, n);
          out(co, x, y, n) = std::max(sum, 0.0);
        }
  return out;
}

}  // namespace

TEST_CASE("conv_layer: CPU output matches direct convolution", "[examples][conv_layer]") {
  auto inst = hlsched::instantiate_generator("conv_layer", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int CI = 12, CO = 10, W = 13, H = 9, N = 2;
  auto input = random_buffer<float>({CI, W + 2, H + 2, N}, 21, -1.0, 1.0);
  auto filter = random_buffer<float>({CO, CI, 3, 3}, 22, -0.5, 0.5);
  auto bias = random_buffer<float>({CO}, 23, -0.5, 0.5);
  bind_input(inst.pipeline, "input", input);
  bind_input(inst.pipeline, "filter", filter);
  bind_input(inst.pipeline, "bias", bias);
  Halide::Buffer<float> output = inst.pipeline.realize({CO, W, H, N}, cpu_target());
  auto expected = reference_conv_layer(input, filter, bias, W, H);
  // 108-term float sums of products <= 0.5 in magnitude: rounding error is a few 1e-6; 1e-4
  // absolute leaves a wide margin. ReLU must clamp negatives to exactly 0.
  int mismatches = 0, zeros = 0;
  output.for_each_element([&](int c, int x, int y, int n) {
    mismatches += std::abs(output(c, x, y, n) - expected(c, x, y, n)) > 1e-4;
    zeros += output(c, x, y, n) == 0.0f;
  });
  REQUIRE(mismatches == 0);
  REQUIRE(zeros > 0);  // the ReLU did something
}

TEST_CASE("conv_layer: manual schedule compiles for CUDA", "[examples][conv_layer]") {
  auto inst = hlsched::instantiate_generator("conv_layer", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}

// The search's schedule (default options) holds the convolution in a register tile with both
// 3-tap loops unrolled around it (on the H200: 0.83 ms, the manual schedule's time; 1.14 ms with
// one tap loop unrolled and no rows per thread, docs/PERFORMANCE.md session twenty-one). It
// compiles for CUDA with the accumulators in registers, and on the CPU it computes the
// convolution, tails included (sizes that no tile divides).
TEST_CASE("conv_layer: the searched register tile unrolls both tap loops, in registers and exact",
          "[examples][conv_layer]") {
  auto gpu = hlsched::instantiate_generator("conv_layer", hlsched::default_gpu_target(), {{"schedule", "none"}});
  const hlsched::PipelineDag dag = hlsched::build_pipeline_dag(gpu.pipeline);
  const hlsched::ScheduleResult searched = hlsched::schedule_pipeline(gpu.pipeline, dag, hlsched::AutoschedulerOptions{});
  INFO(searched.schedule_code);
  CHECK(searched.schedule_code.find(".split(r_x, r_xo, r_xi, 3, TailStrategy::GuardWithIf)\n"
                                    "    .split(r_y, r_yo, r_yi, 3, TailStrategy::GuardWithIf)") != std::string::npos);
  CHECK(searched.schedule_code.find(".unroll(r_xi)\n    .unroll(r_yi);") != std::string::npos);
  CHECK(searched.schedule_code.find(", 2 y per thread") != std::string::npos);  // rows along the third loop
  hlsched::apply_schedule(searched.schedule, gpu.pipeline, hlsched::ApplyMode::Gpu);
  const hlsched::CompiledPipeline compiled = hlsched::compile_pipeline(gpu.pipeline, hlsched::default_gpu_target());
  CHECK(compiled.gpu_kernels() == 1);
  CHECK(compiled.lowered_stmt.find("ld.local") == std::string::npos);

  // The same schedule on a CPU instance of the generator, whose Funcs Halide names apart
  // ("bias_im$1"): the DAGs list them in the same order.
  auto cpu = hlsched::instantiate_generator("conv_layer", cpu_target(), {{"schedule", "none"}});
  const hlsched::PipelineDag cpu_dag = hlsched::build_pipeline_dag(cpu.pipeline);
  REQUIRE(cpu_dag.funcs.size() == dag.funcs.size());
  auto renamed = [&](const std::string &name) {
    for (size_t i = 0; i < dag.funcs.size(); i++)
      if (dag.funcs[i].name == name) return cpu_dag.funcs[i].name;
    return name;
  };
  hlsched::ScheduleSpec spec = searched.schedule;
  for (hlsched::FuncSchedule &f : spec.funcs) {
    f.func = renamed(f.func);
    for (hlsched::StageSchedule &stage : f.stages)
      for (hlsched::Directive &d : stage.directives)
        if (!d.at_func.empty()) d.at_func = renamed(d.at_func);
  }
  hlsched::apply_schedule(spec, cpu.pipeline, hlsched::ApplyMode::Cpu);
  const int CI = 12, CO = 10, W = 13, H = 9, N = 2;
  auto input = random_buffer<float>({CI, W + 2, H + 2, N}, 31, -1.0, 1.0);
  auto filter = random_buffer<float>({CO, CI, 3, 3}, 32, -0.5, 0.5);
  auto bias = random_buffer<float>({CO}, 33, -0.5, 0.5);
  bind_input(cpu.pipeline, "input", input);
  bind_input(cpu.pipeline, "filter", filter);
  bind_input(cpu.pipeline, "bias", bias);
  Halide::Buffer<float> output = cpu.pipeline.realize({CO, W, H, N}, cpu_target());
  auto expected = reference_conv_layer(input, filter, bias, W, H);
  int mismatches = 0;
  output.for_each_element([&](int c, int x, int y, int n) { mismatches += std::abs(output(c, x, y, n) - expected(c, x, y, n)) > 1e-4; });
  CHECK(mismatches == 0);
}
