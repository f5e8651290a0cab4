// unsharp: CPU output against direct loops (luma, 2-D Gaussian blur, ratio sharpening); manual
// schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// Straightforward loops in double precision: the blur is done as a full 2-D 9x9 sum (not
// separably) from the Gaussian with sigma 1.5 truncated at radius 4, normalized.
Halide::Buffer<float> reference_unsharp(const Halide::Buffer<float> &in, double amount) {
  const int w = in.width(), h = in.height(), radius = 4;
  const double sigma = 1.5;
  std::vector<double> k(2 * radius + 1);
  double total = 0;
  for (int i = -radius; i <= radius; i++) total += k[i + radius] = std::exp(-i * i / (2 * sigma * sigma));
  for (double &v : k) v /= total;
  auto luma = [&](int x, int y) {
    x = std::clamp(x, 0, w - 1);
    y = std::clamp(y, 0, h - 1);
    return 0.299 * in(x, y, 0) + 0.587 * in(x, y, 1) + 0.114 * in(x, y, 2);
  };
  Halide::Buffer<float> out(w, h, 3);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double blurred = 0;
      for (int dy = -radius; dy <= radius; dy++)
        for (int dx = -radius; dx <= radius; dx++) blurred += k[dx + radius] * k[dy + radius] * luma(x + dx, y + dy);
      const double g = luma(x, y);
      const double ratio = g > 1e-6 ? (g + amount * (g - blurred)) / g : 1.0;
      for (int c = 0; c < 3; c++) out(x, y, c) = static_cast<float>(std::clamp(ratio * in(x, y, c), 0.0, 1.0));
    }
  return out;
}

}  // namespace

TEST_CASE("unsharp: CPU output matches the reference", "[examples][unsharp]") {
  auto inst = hlsched::instantiate_generator("unsharp", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  // Luma is kept away from 0 (inputs >= 0.05) so the ratio is well conditioned.
  auto input = random_buffer<float>({53, 41, 3}, 11, 0.05, 1.0);
  const float amount = 1.5f;
  bind_input(inst.pipeline, "input", input);
  bind_scalar(inst.pipeline, "amount", amount);
  Halide::Buffer<float> output = inst.pipeline.realize({53, 41, 3}, cpu_target());
  auto expected = reference_unsharp(input, amount);
  // Float single precision vs double: a 9x9 weighted sum of values <= 1, a subtraction and a
  // division by luma >= 0.05 amplify rounding to ~1e-5 at worst; 1e-4 absolute on [0, 1]
  // outputs leaves margin while still catching any wrong tap or weight.
  double max_err = 0;
  output.for_each_element([&](int x, int y, int c) {
    max_err = std::max(max_err, static_cast<double>(std::abs(output(x, y, c) - expected(x, y, c))));
  });
  REQUIRE(max_err < 1e-4);
}

TEST_CASE("unsharp: manual schedule compiles for CUDA", "[examples][unsharp]") {
  auto inst = hlsched::instantiate_generator("unsharp", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
