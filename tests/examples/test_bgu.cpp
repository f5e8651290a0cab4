// bgu: CPU output against a direct implementation in loops (scatter splat with a z tent, explicit
// blurs, Gaussian elimination in double, slicing by interpolating the corner models' outputs);
// manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

constexpr int kStep = 8, kBins = 8;  // the generator's defaults
constexpr int kChannels = 22;        // 4x4 Gram matrix (upper triangle, 10) + 4x3 right-hand side

using Model = std::array<std::array<double, 4>, 3>;  // [output channel][r, g, b, 1]

double luma(double r, double g, double b) { return 0.299 * r + 0.587 * g + 0.114 * b; }

Halide::Buffer<double> reference_bgu(const Halide::Buffer<float> &lin, const Halide::Buffer<float> &lout,
                                     const Halide::Buffer<float> &hin, double lambda) {
  const int lw = lin.width(), lh = lin.height(), W = hin.width(), H = hin.height();
  const int last_cx = (lw - 1 + kStep / 2) / kStep, last_cy = (lh - 1 + kStep / 2) / kStep;
  // Grid over cells [-2, last+3) in x/y and bins [-1, kBins] in z; zero where nothing lands.
  const int ox = 2, oy = 2, oz = 1, nx = last_cx + 5, ny = last_cy + 5, nz = kBins + 2;
  auto idx = [&](int cx, int cy, int z) { return (size_t(z + oz) * ny + (cy + oy)) * nx + (cx + ox); };
  std::vector<std::array<double, kChannels>> grid(size_t(nx) * ny * nz), tmp, tmp2;
  for (auto &g : grid) g.fill(0.0);

  // Scatter every low-res pixel into its cell, split between the two nearest bins.
  for (int yl = 0; yl < lh; yl++)
    for (int xl = 0; xl < lw; xl++) {
      const double f[4] = {lin(xl, yl, 0), lin(xl, yl, 1), lin(xl, yl, 2), 1.0};
      const double t[3] = {lout(xl, yl, 0), lout(xl, yl, 1), lout(xl, yl, 2)};
      const double pos = std::clamp(luma(f[0], f[1], f[2]), 0.0, 1.0) * (kBins - 1);
      const int z0 = static_cast<int>(std::floor(pos));
      const double frac = pos - z0;
      const int cx = (xl + kStep / 2) / kStep, cy = (yl + kStep / 2) / kStep;
      for (int dz = 0; dz < 2; dz++) {
        const double w = dz ? frac : 1 - frac;
        auto &g = grid[idx(cx, cy, z0 + dz)];
        int k = 0;
        for (int i = 0; i < 4; i++)
          for (int j = i; j < 4; j++) g[k++] += w * f[i] * f[j];
        for (int i = 0; i < 4; i++)
          for (int j = 0; j < 3; j++) g[k++] += w * f[i] * t[j];
      }
    }

  // [1 2 1]/4 blurs in z, x, y over the interior (the outer ring stays zero / unused).
  auto blur = [&](const std::vector<std::array<double, kChannels>> &src, int dx, int dy, int dz) {
    std::vector<std::array<double, kChannels>> dst(src.size());
    for (auto &g : dst) g.fill(0.0);
    for (int z = -oz + dz; z < nz - oz - dz; z++)
      for (int cy = -oy + dy; cy < ny - oy - dy; cy++)
        for (int cx = -ox + dx; cx < nx - ox - dx; cx++)
          for (int ch = 0; ch < kChannels; ch++)
            dst[idx(cx, cy, z)][ch] = 0.25 * src[idx(cx - dx, cy - dy, z - dz)][ch] + 0.5 * src[idx(cx, cy, z)][ch] +
                                      0.25 * src[idx(cx + dx, cy + dy, z + dz)][ch];
    return dst;
  };
  tmp = blur(grid, 0, 0, 1);
  tmp2 = blur(tmp, 1, 0, 0);
  grid = blur(tmp2, 0, 1, 0);

  // Fit each needed cell's model: (G + lambda I) X = R + lambda I_{4x3}, Gaussian elimination
  // with partial pivoting.
  auto fit = [&](int cx, int cy, int z) {
    const auto &g = grid[idx(cx, cy, z)];
    double a[4][7];
    int k = 0;
    for (int i = 0; i < 4; i++)
      for (int j = i; j < 4; j++) a[i][j] = a[j][i] = g[k++];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 3; j++) a[i][4 + j] = g[k++] + (i == j ? lambda : 0.0);
    for (int i = 0; i < 4; i++) a[i][i] += lambda;
    for (int col = 0; col < 4; col++) {
      int piv = col;
      for (int row = col + 1; row < 4; row++)
        if (std::abs(a[row][col]) > std::abs(a[piv][col])) piv = row;
      for (int j = 0; j < 7; j++) std::swap(a[col][j], a[piv][j]);
      for (int row = 0; row < 4; row++) {
        if (row == col) continue;
        const double m = a[row][col] / a[col][col];
        for (int j = 0; j < 7; j++) a[row][j] -= m * a[col][j];
      }
    }
    Model m;
    for (int t = 0; t < 3; t++)
      for (int i = 0; i < 4; i++) m[t][i] = a[i][4 + t] / a[i][i];
    return m;
  };
  std::vector<Model> models(grid.size());
  for (int z = 0; z < kBins; z++)
    for (int cy = 0; cy <= last_cy + 1; cy++)
      for (int cx = 0; cx <= last_cx + 1; cx++) models[idx(cx, cy, z)] = fit(cx, cy, z);

  // Slice: apply the 8 corner models to the pixel and blend the results trilinearly.
  Halide::Buffer<double> out(W, H, 3);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const double gx = std::clamp(((x + 0.5) * lw / W - 0.5) / kStep, 0.0, double(last_cx));
      const double gy = std::clamp(((y + 0.5) * lh / H - 0.5) / kStep, 0.0, double(last_cy));
      const double f[4] = {hin(x, y, 0), hin(x, y, 1), hin(x, y, 2), 1.0};
      const double gz = std::clamp(luma(f[0], f[1], f[2]), 0.0, 1.0) * (kBins - 1);
      const int x0 = int(std::floor(gx)), y0 = int(std::floor(gy)), z0 = std::min(int(std::floor(gz)), kBins - 2);
      const double fx = gx - x0, fy = gy - y0, fz = gz - z0;
      for (int t = 0; t < 3; t++) {
        double acc = 0;
        for (int dz = 0; dz < 2; dz++)
          for (int dy = 0; dy < 2; dy++)
            for (int dx = 0; dx < 2; dx++) {
              const Model &m = models[idx(x0 + dx, y0 + dy, z0 + dz)];
              const double v = m[t][0] * f[0] + m[t][1] * f[1] + m[t][2] * f[2] + m[t][3];
              acc += (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * (dz ? fz : 1 - fz) * v;
            }
        out(x, y, t) = acc;
      }
    }
  return out;
}

// The "operator" the grid learns: a color mix plus offset, with a little noise.
Halide::Buffer<float> apply_operator(const Halide::Buffer<float> &in, uint32_t seed) {
  auto noise = random_buffer<float>({in.width(), in.height(), 3}, seed, -0.01, 0.01);
  Halide::Buffer<float> out(in.width(), in.height(), 3);
  out.for_each_element([&](int x, int y, int c) {
    out(x, y, c) = 0.6f * in(x, y, c) + 0.3f * in(x, y, (c + 1) % 3) + 0.05f + noise(x, y, c);
  });
  return out;
}

}  // namespace

TEST_CASE("bgu: CPU output matches a direct implementation", "[examples][bgu]") {
  auto inst = hlsched::instantiate_generator("bgu", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int lw = 37, lh = 22, W = 148, H = 88;  // 4x upsampling, partial cells at the edges
  const float lambda = 0.01f;
  auto lin = random_buffer<float>({lw, lh, 3}, 51, 0.0, 1.0);
  auto lout = apply_operator(lin, 52);
  auto hin = random_buffer<float>({W, H, 3}, 53, 0.0, 1.0);
  bind_input(inst.pipeline, "lowres_input", lin);
  bind_input(inst.pipeline, "lowres_output", lout);
  bind_input(inst.pipeline, "highres_input", hin);
  bind_scalar<float>(inst.pipeline, "lambda", lambda);
  Halide::Buffer<float> output = inst.pipeline.realize({W, H, 3}, cpu_target());
  auto expected = reference_bgu(lin, lout, hin, lambda);
  // Float Cholesky on well-conditioned 4x4 systems (random colors, lambda = 0.01) against double
  // elimination: coefficient errors ~1e-5 relative; outputs are O(1), so 1e-3 absolute is safe
  // while any indexing or weighting mistake shows up at >= 1e-2.
  int mismatches = 0;
  double max_diff = 0, fit_error = 0;
  output.for_each_element([&](int x, int y, int c) {
    const double d = std::abs(output(x, y, c) - expected(x, y, c));
    max_diff = std::max(max_diff, d);
    mismatches += d > 1e-3;
    fit_error += std::abs(output(x, y, c) - (0.6 * hin(x, y, c) + 0.3 * hin(x, y, (c + 1) % 3) + 0.05));
  });
  INFO("max abs diff " << max_diff << ", mean error vs the true operator " << fit_error / (W * H * 3));
  REQUIRE(mismatches == 0);
  // The local affine models recover the (globally affine) operator at full resolution.
  REQUIRE(fit_error / (W * H * 3) < 0.02);
}

TEST_CASE("bgu: manual schedule compiles for CUDA", "[examples][bgu]") {
  auto inst = hlsched::instantiate_generator("bgu", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
