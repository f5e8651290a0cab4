// lens_blur: CPU output against a direct C++ disparity search + aperture gather; manual schedule
// compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

Halide::Buffer<uint8_t> reference_lens_blur(const Halide::Buffer<uint8_t> &L, const Halide::Buffer<uint8_t> &R,
                                            int slices, int focus, float scale, std::vector<int> *depth_out) {
  const int W = L.width(), H = L.height();
  auto l = [&](int x, int y, int c) { return static_cast<int>(L(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1), c)); };
  auto r = [&](int x, int y, int c) { return static_cast<int>(R(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1), c)); };
  // Disparity: arg-min over z of the 9x9 sum of per-pixel RGB SADs (first minimum on ties).
  std::vector<int> depth(static_cast<size_t>(W) * H, 0), best(static_cast<size_t>(W) * H, INT_MAX);
  for (int z = 0; z < slices; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int sum = 0;
        for (int j = -4; j <= 4; j++)
          for (int i = -4; i <= 4; i++)
            for (int c = 0; c < 3; c++) sum += std::abs(l(x + i, y + j, c) - r(x + i - z, y + j, c));
        const size_t at = static_cast<size_t>(y) * W + x;
        if (sum < best[at]) best[at] = sum, depth[at] = z;
      }
  if (depth_out) *depth_out = depth;
  // Gather: samples on the even grid within radius 8 whose circle of confusion reaches this pixel.
  Halide::Buffer<uint8_t> out(W, H, 3);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int acc[3] = {0, 0, 0}, weight = 0;
      for (int dy = -8; dy <= 8; dy += 2)
        for (int dx = -8; dx <= 8; dx += 2) {
          if (dx * dx + dy * dy > 64) continue;
          const int sx = std::clamp(x + dx, 0, W - 1), sy = std::clamp(y + dy, 0, H - 1);
          const float coc = std::abs(depth[static_cast<size_t>(sy) * W + sx] - focus) * scale;
          if (coc * coc < static_cast<float>(dx * dx + dy * dy)) continue;
          weight++;
          for (int c = 0; c < 3; c++) acc[c] += l(x + dx, y + dy, c);
        }
      for (int c = 0; c < 3; c++) out(x, y, c) = static_cast<uint8_t>((acc[c] + weight / 2) / weight);
    }
  return out;
}

}  // namespace

TEST_CASE("lens_blur: CPU output equals the reference exactly", "[examples][lens_blur]") {
  auto inst = hlsched::instantiate_generator("lens_blur", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int W = 72, H = 40, slices = 32, focus = 6;
  const float scale = 0.6f;
  // A stereo pair with real disparities: random texture, the left half of the scene shifted by
  // 3 pixels between the views and the right half by 11, plus independent noise in each view.
  auto texture = random_buffer<uint8_t>({W + 16, H, 3}, 31, 0, 255);
  auto noise_l = random_buffer<uint8_t>({W, H, 3}, 32, 0, 12), noise_r = random_buffer<uint8_t>({W, H, 3}, 33, 0, 12);
  Halide::Buffer<uint8_t> left(W, H, 3), right(W, H, 3);
  left.for_each_element([&](int x, int y, int c) {
    left(x, y, c) = static_cast<uint8_t>(std::min(255, texture(x + 12, y, c) + noise_l(x, y, c)));
    const int d = x < W / 2 ? 3 : 11;  // right(x) sees the point left(x + d)
    right(x, y, c) = static_cast<uint8_t>(std::min(255, texture(std::min(x + d, W - 1) + 12, y, c) + noise_r(x, y, c)));
  });
  bind_input(inst.pipeline, "left_im", left);
  bind_input(inst.pipeline, "right_im", right);
  bind_scalar<int32_t>(inst.pipeline, "focus_depth", focus);
  bind_scalar<float>(inst.pipeline, "blur_radius_scale", scale);
  Halide::Buffer<uint8_t> output = inst.pipeline.realize({W, H, 3}, cpu_target());
  std::vector<int> depth;
  auto expected = reference_lens_blur(left, right, slices, focus, scale, &depth);
  // The search must find real structure (not a degenerate constant depth map).
  REQUIRE(*std::max_element(depth.begin(), depth.end()) > *std::min_element(depth.begin(), depth.end()));
  // Integer pipeline (the only float is the radius comparison, computed identically): exact.
  int mismatches = 0;
  output.for_each_element([&](int x, int y, int c) { mismatches += output(x, y, c) != expected(x, y, c); });
  REQUIRE(mismatches == 0);
}

TEST_CASE("lens_blur: manual schedule compiles for CUDA", "[examples][lens_blur]") {
  auto inst = hlsched::instantiate_generator("lens_blur", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  const std::string host = compile_for_cuda(inst.pipeline);
  REQUIRE(launches_gpu_kernels(host));
  // Every stage runs on the GPU: the host code has no loops at all (not even over tiles to size
  // shared memory, which tile-dependent footprints would cause).
  CHECK(host.find("for (") == std::string::npos);
}
