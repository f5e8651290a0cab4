// bilateral_grid: CPU output against a direct bilateral-grid implementation in loops (scatter
// splat, explicit blurs, trilinear slice); manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// A dense 4-D array over [lo, hi) in x/y/z (same padding everywhere), 2 channels.
struct Grid {
  int lo_x, lo_y, lo_z, nx, ny, nz;
  std::vector<double> v;
  Grid(int lx, int hx, int ly, int hy, int lz, int hz)
      : lo_x(lx), lo_y(ly), lo_z(lz), nx(hx - lx), ny(hy - ly), nz(hz - lz), v(size_t(nx) * ny * nz * 2, 0.0) {}
  bool inside(int x, int y, int z) const {
    return x >= lo_x && x < lo_x + nx && y >= lo_y && y < lo_y + ny && z >= lo_z && z < lo_z + nz;
  }
  double &at(int x, int y, int z, int c) {
    return v[((size_t(z - lo_z) * ny + (y - lo_y)) * nx + (x - lo_x)) * 2 + c];
  }
  double get(int x, int y, int z, int c) const {  // zero outside (only reached in z)
    return inside(x, y, z) ? v[((size_t(z - lo_z) * ny + (y - lo_y)) * nx + (x - lo_x)) * 2 + c] : 0.0;
  }
};

Halide::Buffer<float> reference_bilateral_grid(const Halide::Buffer<float> &in, float r_sigma, int s) {
  const int W = in.width(), H = in.height();
  const float inv_r = 1.0f / r_sigma;
  auto pixel = [&](int x, int y) {
    return std::clamp(in(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1)), 0.0f, 1.0f);
  };
  // Cells needed by the slice: [0, (W-1)/s + 1], plus 2 per blur in x and y; bins [0, 1/r + 1] + 2.
  const int cx_hi = (W - 1) / s + 2, cy_hi = (H - 1) / s + 2, z_hi = int(inv_r) + 2;
  const int pad = 2;
  // Splat: every pixel of the (edge-extended) domain of each cell goes to its nearest bin.
  Grid hist(-pad, cx_hi + pad, -pad, cy_hi + pad, -pad, z_hi + pad + 1);
  for (int cy = -pad; cy < cy_hi + pad; cy++)
    for (int cx = -pad; cx < cx_hi + pad; cx++)
      for (int py = cy * s - s / 2; py < cy * s - s / 2 + s; py++)
        for (int px = cx * s - s / 2; px < cx * s - s / 2 + s; px++) {
          const float v = pixel(px, py);
          const int bin = static_cast<int>(v * inv_r + 0.5f);
          hist.at(cx, cy, bin, 0) += v;
          hist.at(cx, cy, bin, 1) += 1.0;
        }
  const double taps[5] = {1, 4, 6, 4, 1};
  // Blur along z, then x, then y (each shrinks the valid x/y range by 2 where needed).
  Grid bz = hist, bx = hist, by = hist;
  for (int z = -pad; z < z_hi + pad + 1; z++)
    for (int cy = -pad; cy < cy_hi + pad; cy++)
      for (int cx = -pad; cx < cx_hi + pad; cx++)
        for (int c = 0; c < 2; c++) {
          double sum = 0;
          for (int k = -2; k <= 2; k++) sum += taps[k + 2] * hist.get(cx, cy, z + k, c);
          bz.at(cx, cy, z, c) = sum;
        }
  for (int z = -pad; z < z_hi + pad + 1; z++)
    for (int cy = -pad; cy < cy_hi + pad; cy++)
      for (int cx = 0; cx < cx_hi; cx++)
        for (int c = 0; c < 2; c++) {
          double sum = 0;
          for (int k = -2; k <= 2; k++) sum += taps[k + 2] * bz.get(cx + k, cy, z, c);
          bx.at(cx, cy, z, c) = sum;
        }
  for (int z = -pad; z < z_hi + pad + 1; z++)
    for (int cy = 0; cy < cy_hi; cy++)
      for (int cx = 0; cx < cx_hi; cx++)
        for (int c = 0; c < 2; c++) {
          double sum = 0;
          for (int k = -2; k <= 2; k++) sum += taps[k + 2] * bx.get(cx, cy + k, z, c);
          by.at(cx, cy, z, c) = sum;
        }
  // Slice.
  Halide::Buffer<float> out(W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const float v = std::clamp(in(x, y), 0.0f, 1.0f);
      const float zv = v * inv_r;
      const int z0 = static_cast<int>(zv);
      const double zf = zv - z0;
      const int x0 = x / s, y0 = y / s;
      const double xf = double(x % s) / s, yf = double(y % s) / s;
      double val[2];
      for (int c = 0; c < 2; c++) {
        double acc = 0;
        for (int dz = 0; dz < 2; dz++)
          for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
              const double w = (dx ? xf : 1 - xf) * (dy ? yf : 1 - yf) * (dz ? zf : 1 - zf);
              acc += w * by.get(x0 + dx, y0 + dy, z0 + dz, c);
            }
        val[c] = acc;
      }
      out(x, y) = static_cast<float>(val[0] / val[1]);
    }
  return out;
}

}  // namespace

TEST_CASE("bilateral_grid: CPU output matches a direct bilateral grid", "[examples][bilateral_grid]") {
  auto inst = hlsched::instantiate_generator("bilateral_grid", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int W = 61, H = 45;
  const float r_sigma = 0.1f;
  // A smooth ramp plus noise, so neighbouring pixels fall into a few different bins.
  auto input = random_buffer<float>({W, H}, 41, 0.0, 0.3);
  input.for_each_element([&](int x, int y) { input(x, y) += 0.6f * x / W + 0.1f * y / H; });
  bind_input(inst.pipeline, "input", input);
  bind_scalar<float>(inst.pipeline, "r_sigma", r_sigma);
  Halide::Buffer<float> output = inst.pipeline.realize({W, H}, cpu_target());
  auto expected = reference_bilateral_grid(input, r_sigma, 8);
  // Outputs are weighted means of values in [0, 1]; float sums of <= ~16k terms vs double give
  // ~1e-6 relative error, so 1e-4 absolute is a comfortable bound. (A bin choice flipped by a
  // different rounding of v/r_sigma would be ~1e-2 off and caught.)
  int mismatches = 0;
  double max_diff = 0;
  output.for_each_element([&](int x, int y) {
    const double d = std::abs(output(x, y) - expected(x, y));
    max_diff = std::max(max_diff, d);
    mismatches += d > 1e-4;
  });
  INFO("max abs diff " << max_diff);
  REQUIRE(mismatches == 0);
  // The filter smooths: the output differs from the input.
  double change = 0;
  output.for_each_element([&](int x, int y) { change += std::abs(output(x, y) - input(x, y)); });
  REQUIRE(change / (W * H) > 1e-3);
}

TEST_CASE("bilateral_grid: manual schedule compiles for CUDA", "[examples][bilateral_grid]") {
  auto inst = hlsched::instantiate_generator("bilateral_grid", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
