// depthwise_separable_conv: CPU output against direct loops; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

struct Weights {
  Halide::Buffer<float> dw_filter, dw_bias, pw_filter, pw_bias;
};

// Depthwise 3x3 with zero padding + bias + ReLU, then 1x1 + bias + ReLU, in double.
Halide::Buffer<double> reference_dsc(const Halide::Buffer<float> &in, const Weights &w) {
  const int CI = in.dim(0).extent(), W = in.dim(1).extent(), H = in.dim(2).extent(), N = in.dim(3).extent();
  const int CO = w.pw_filter.dim(0).extent();
  Halide::Buffer<double> dw(CI, W, H, N), out(CO, W, H, N);
  for (int n = 0; n < N; n++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < CI; c++) {
          double sum = w.dw_bias(c);
          for (int ky = -1; ky <= 1; ky++)
            for (int kx = -1; kx <= 1; kx++) {
              const int xx = x + kx, yy = y + ky;
              if (xx < 0 || xx >= W || yy < 0 || yy >= H) continue;  // zero padding
              sum += static_cast<double>(w.dw_filter(c, kx + 1, ky + 1)) * in(c, xx, yy, n);
            }
          dw(c, x, y, n) = std::max(sum, 0.0);
        }
  for (int n = 0; n < N; n++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int co = 0; co < CO; co++) {
          double sum = w.pw_bias(co);
          for (int ci = 0; ci < CI; ci++) sum += w.pw_filter(co, ci) * dw(ci, x, y, n);
          out(co, x, y, n) = std::max(sum, 0.0);
        }
  return out;
}

}  // namespace

TEST_CASE("depthwise_separable_conv: CPU output matches direct loops", "[examples][depthwise_separable_conv]") {
  auto inst = hlsched::instantiate_generator("depthwise_separable_conv", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int CI = 7, CO = 9, W = 17, H = 11, N = 2;
  auto input = random_buffer<float>({CI, W, H, N}, 31, -1.0, 1.0);
  Weights w{random_buffer<float>({CI, 3, 3}, 32, -0.5, 0.5), random_buffer<float>({CI}, 33, -0.2, 0.2),
            random_buffer<float>({CO, CI}, 34, -0.5, 0.5), random_buffer<float>({CO}, 35, -0.2, 0.2)};
  bind_input(inst.pipeline, "input", input);
  bind_input(inst.pipeline, "dw_filter", w.dw_filter);
  bind_input(inst.pipeline, "dw_bias", w.dw_bias);
  bind_input(inst.pipeline, "pw_filter", w.pw_filter);
  bind_input(inst.pipeline, "pw_bias", w.pw_bias);
  Halide::Buffer<float> output = inst.pipeline.realize({CO, W, H, N}, cpu_target());
  auto expected = reference_dsc(input, w);
  // Short float sums (10 and 8 terms) of values <= ~1: rounding error ~1e-6; 1e-5 absolute is safe.
  int mismatches = 0, zeros = 0, positives = 0;
  output.for_each_element([&](int c, int x, int y, int n) {
    mismatches += std::abs(output(c, x, y, n) - expected(c, x, y, n)) > 1e-5;
    zeros += output(c, x, y, n) == 0.0f;
    positives += output(c, x, y, n) > 0.0f;
  });
  REQUIRE(mismatches == 0);
  REQUIRE(zeros > 0);
  REQUIRE(positives > 0);
}

TEST_CASE("depthwise_separable_conv: manual schedule compiles for CUDA", "[examples][depthwise_separable_conv]") {
  auto inst = hlsched::instantiate_generator("depthwise_separable_conv", hlsched::default_gpu_target(),
                                             {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
