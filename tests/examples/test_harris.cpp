// harris: CPU output against direct loops (luma, Sobel, 3x3 structure tensor, response);
// manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// Straightforward loops in double precision, with the Sobel kernels as explicit 3x3 tables.
Halide::Buffer<float> reference_harris(const Halide::Buffer<float> &in, double kappa) {
  const int w = in.width(), h = in.height();
  auto luma = [&](int x, int y) {
    x = std::clamp(x, 0, w - 1);
    y = std::clamp(y, 0, h - 1);
    return 0.299 * in(x, y, 0) + 0.587 * in(x, y, 1) + 0.114 * in(x, y, 2);
  };
  const double sobel_x[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};  // [dy][dx]
  const double sobel_y[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  auto grad = [&](const double (&k)[3][3], int x, int y) {
    double s = 0;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) s += k[dy + 1][dx + 1] * luma(x + dx, y + dy);
    return s / 12.0;
  };
  Halide::Buffer<float> out(w, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double sxx = 0, syy = 0, sxy = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const double gx = grad(sobel_x, x + dx, y + dy), gy = grad(sobel_y, x + dx, y + dy);
          sxx += gx * gx;
          syy += gy * gy;
          sxy += gx * gy;
        }
      const double trace = sxx + syy;
      out(x, y) = static_cast<float>(sxx * syy - sxy * sxy - kappa * trace * trace);
    }
  return out;
}

}  // namespace

TEST_CASE("harris: CPU output matches the reference", "[examples][harris]") {
  auto inst = hlsched::instantiate_generator("harris", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  auto input = random_buffer<float>({57, 39, 3}, 5, 0.0, 1.0);
  const float kappa = 0.06f;
  bind_input(inst.pipeline, "input", input);
  bind_scalar(inst.pipeline, "kappa", kappa);
  Halide::Buffer<float> output = inst.pipeline.realize({57, 39}, cpu_target());
  auto expected = reference_harris(input, kappa);
  // Gradients are <= 1/3 in magnitude, tensor entries <= 1, responses O(1) (a random image has
  // plenty of structure). Single-precision rounding through ~4 levels of sums and a
  // cancellation in det stays below ~1e-6 absolute; 1e-5 absolute + 1e-4 relative leaves
  // margin and still catches any wrong tap.
  int bad = 0;
  double max_abs = 0;
  output.for_each_element([&](int x, int y) {
    const double e = expected(x, y), d = std::abs(output(x, y) - e);
    max_abs = std::max(max_abs, std::abs(e));
    bad += d > 1e-5 + 1e-4 * std::abs(e);
  });
  REQUIRE(max_abs > 1e-3);  // the response is not trivially zero
  REQUIRE(bad == 0);
}

TEST_CASE("harris: manual schedule compiles for CUDA", "[examples][harris]") {
  auto inst = hlsched::instantiate_generator("harris", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
