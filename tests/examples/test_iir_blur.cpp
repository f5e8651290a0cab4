// iir_blur: CPU output against direct loops (causal + anti-causal first-order filters along
// columns, then along rows); manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// The filter on one line of n samples with stride: forward then backward recursion, in double.
void iir_line(std::vector<double> &v, double alpha) {
  const size_t n = v.size();
  for (size_t i = 1; i < n; i++) v[i] = (1 - alpha) * v[i - 1] + alpha * v[i];
  for (size_t i = n - 1; i-- > 0;) v[i] = (1 - alpha) * v[i + 1] + alpha * v[i];
}

Halide::Buffer<float> reference_iir(const Halide::Buffer<float> &in, double alpha) {
  const int w = in.width(), h = in.height();
  Halide::Buffer<float> out(w, h, 3);
  for (int c = 0; c < 3; c++) {
    std::vector<std::vector<double>> img(h, std::vector<double>(w));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) img[y][x] = in(x, y, c);
    for (int x = 0; x < w; x++) {  // columns
      std::vector<double> col(h);
      for (int y = 0; y < h; y++) col[y] = img[y][x];
      iir_line(col, alpha);
      for (int y = 0; y < h; y++) img[y][x] = col[y];
    }
    for (int y = 0; y < h; y++) iir_line(img[y], alpha);  // rows
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) out(x, y, c) = static_cast<float>(img[y][x]);
  }
  return out;
}

}  // namespace

TEST_CASE("iir_blur: CPU output matches the reference", "[examples][iir_blur]") {
  auto inst = hlsched::instantiate_generator("iir_blur", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  // Non-square, so a swapped width/height in either transpose or scan bound shows up.
  auto input = random_buffer<float>({61, 37, 3}, 17, 0.0, 1.0);
  const float alpha = 0.3f;
  bind_input(inst.pipeline, "input", input);
  bind_scalar(inst.pipeline, "alpha", alpha);
  Halide::Buffer<float> output = inst.pipeline.realize({61, 37, 3}, cpu_target());
  auto expected = reference_iir(input, alpha);
  // Each output is a convex combination of inputs in [0, 1]; the recursions are contractive
  // (factor 1 - alpha), so single-precision rounding error stays ~1e-6. 1e-5 absolute.
  double max_err = 0;
  output.for_each_element([&](int x, int y, int c) {
    max_err = std::max(max_err, static_cast<double>(std::abs(output(x, y, c) - expected(x, y, c))));
  });
  REQUIRE(max_err < 1e-5);
}

TEST_CASE("iir_blur: manual schedule compiles for CUDA", "[examples][iir_blur]") {
  auto inst = hlsched::instantiate_generator("iir_blur", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
