// conv_layer: CPU output against direct convolution loops; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "halide_test_support.h"

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
