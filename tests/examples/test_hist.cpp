// hist: CPU output against direct loops (fixed-point YCbCr, histogram, cdf, equalization curve,
// back to RGB), exactly; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int round256(int v) { return static_cast<int>(floor_div(v + 128, 256)); }

Halide::Buffer<uint8_t> reference_hist_eq(const Halide::Buffer<uint8_t> &in) {
  const int w = in.width(), h = in.height();
  const int64_t n = int64_t(w) * h;
  std::vector<int> Y(w * h), Cb(w * h), Cr(w * h);
  int64_t hist[256] = {};
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const int r = in(x, y, 0), g = in(x, y, 1), b = in(x, y, 2);
      const int k = y * w + x;
      Y[k] = round256(77 * r + 150 * g + 29 * b);
      Cb[k] = std::clamp(round256(-43 * r - 85 * g + 128 * b) + 128, 0, 255);
      Cr[k] = std::clamp(round256(128 * r - 107 * g - 21 * b) + 128, 0, 255);
      hist[Y[k]]++;
    }
  int64_t cdf[256], running = 0, cdf_min = -1;
  for (int v = 0; v < 256; v++) {
    running += hist[v];
    cdf[v] = running;
    if (cdf_min < 0 && hist[v] > 0) cdf_min = cdf[v];
  }
  int lut[256];
  const int64_t den = std::max<int64_t>(n - cdf_min, 1);
  for (int v = 0; v < 256; v++)
    lut[v] = static_cast<int>(std::clamp<int64_t>(floor_div((cdf[v] - cdf_min) * 255 + den / 2, den), 0, 255));
  Halide::Buffer<uint8_t> out(w, h, 3);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const int k = y * w + x, yy = lut[Y[k]], cb = Cb[k] - 128, cr = Cr[k] - 128;
      out(x, y, 0) = static_cast<uint8_t>(std::clamp(yy + round256(359 * cr), 0, 255));
      out(x, y, 1) = static_cast<uint8_t>(std::clamp(yy - round256(88 * cb + 183 * cr), 0, 255));
      out(x, y, 2) = static_cast<uint8_t>(std::clamp(yy + round256(454 * cb), 0, 255));
    }
  return out;
}

}  // namespace

TEST_CASE("hist: CPU output equals the reference exactly", "[examples][hist]") {
  auto inst = hlsched::instantiate_generator("hist", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  // A low-contrast image (values 60..140) so equalization actually stretches the luma.
  auto input = random_buffer<uint8_t>({71, 53, 3}, 23, 60, 140);
  bind_input(inst.pipeline, "input", input);
  Halide::Buffer<uint8_t> output = inst.pipeline.realize({71, 53, 3}, cpu_target());
  auto expected = reference_hist_eq(input);
  int mismatches = 0, changed = 0;
  output.for_each_element([&](int x, int y, int c) {
    mismatches += output(x, y, c) != expected(x, y, c);
    changed += expected(x, y, c) != input(x, y, c);
  });
  REQUIRE(changed > 0);
  REQUIRE(mismatches == 0);
}

TEST_CASE("hist: manual schedule compiles for CUDA", "[examples][hist]") {
  auto inst = hlsched::instantiate_generator("hist", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
