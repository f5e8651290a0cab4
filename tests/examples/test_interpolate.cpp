// interpolate: CPU output against a direct C++ pyramid implementation; manual schedule compiles
// for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// One RGBA pyramid level with clamped reads.
struct Level {
  int w = 0, h = 0;
  std::vector<float> v;
  Level() = default;
  Level(int w_, int h_) : w(w_), h(h_), v(static_cast<size_t>(w_) * h_ * 4) {}
  float &operator()(int x, int y, int c) { return v[(static_cast<size_t>(y) * w + x) * 4 + c]; }
  float at(int x, int y, int c) const {
    return v[(static_cast<size_t>(std::clamp(y, 0, h - 1)) * w + std::clamp(x, 0, w - 1)) * 4 + c];
  }
};

Level reduce(const Level &f) {
  const int w = (f.w - 1) / 2 + 1, h = (f.h - 1) / 2 + 1;
  Level t(w, f.h), out(w, h);
  for (int y = 0; y < f.h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) t(x, y, c) = (f.at(2 * x - 1, y, c) + 2.0f * f.at(2 * x, y, c) + f.at(2 * x + 1, y, c)) / 4;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) out(x, y, c) = (t.at(x, 2 * y - 1, c) + 2.0f * t.at(x, 2 * y, c) + t.at(x, 2 * y + 1, c)) / 4;
  return out;
}

Level expand(const Level &f, int w, int h) {
  auto other = [](int i) { return i % 2 ? i / 2 + 1 : i / 2 - 1; };
  Level t(w, f.h), out(w, h);
  for (int y = 0; y < f.h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) t(x, y, c) = 0.75f * f.at(x / 2, y, c) + 0.25f * f.at(other(x), y, c);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 4; c++) out(x, y, c) = 0.75f * t.at(x, y / 2, c) + 0.25f * t.at(x, other(y), c);
  return out;
}

Halide::Buffer<float> reference_interpolate(const Halide::Buffer<float> &in, int L) {
  const int W = in.width(), H = in.height();
  std::vector<Level> down(L);
  down[0] = Level(W, H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const float a = in(x, y, 3);
      for (int c = 0; c < 3; c++) down[0](x, y, c) = in(x, y, c) * a;
      down[0](x, y, 3) = a;
    }
  for (int l = 1; l < L; l++) down[l] = reduce(down[l - 1]);
  Level acc = down[L - 1];
  for (int l = L - 2; l >= 0; l--) {
    Level e = expand(acc, down[l].w, down[l].h);
    for (int y = 0; y < e.h; y++)
      for (int x = 0; x < e.w; x++) {
        const float a = down[l](x, y, 3);
        for (int c = 0; c < 4; c++) e(x, y, c) = down[l](x, y, c) + (1.0f - a) * e(x, y, c);
      }
    acc = e;
  }
  Halide::Buffer<float> out(W, H, 3);
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) out(x, y, c) = acc(x, y, c) / acc(x, y, 3);
  return out;
}

}  // namespace

TEST_CASE("interpolate: CPU output matches the reference", "[examples][interpolate]") {
  auto inst = hlsched::instantiate_generator("interpolate", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int W = 141, H = 77;  // odd sizes; 10 levels go down to 1x1
  // Random colors; 60% of the pixels are holes (alpha 0), the rest have alpha in [0.2, 1).
  auto input = random_buffer<float>({W, H, 4}, 5, 0.0, 1.0);
  auto holes = random_buffer<float>({W, H}, 6, 0.0, 1.0);
  input.for_each_element([&](int x, int y, int c) {
    if (c == 3) input(x, y, 3) = holes(x, y) < 0.6f ? 0.0f : 0.2f + 0.8f * input(x, y, 3);
  });
  bind_input(inst.pipeline, "input", input);
  Halide::Buffer<float> output = inst.pipeline.realize({W, H, 3}, cpu_target());
  auto expected = reference_interpolate(input, 10);
  // Float arithmetic in the same order, but Halide may contract multiply-adds into FMAs: allow a
  // relative error of 1e-4 (values are in [0, 1], error through 10 levels stays ~1e-6).
  float max_err = 0;
  output.for_each_element([&](int x, int y, int c) {
    max_err = std::max(max_err, std::abs(output(x, y, c) - expected(x, y, c)) / std::max(1.0f, std::abs(expected(x, y, c))));
  });
  INFO("max relative error " << max_err);
  REQUIRE(max_err < 1e-4f);
}

TEST_CASE("interpolate: manual schedule compiles for CUDA", "[examples][interpolate]") {
  auto inst = hlsched::instantiate_generator("interpolate", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  const std::string host = compile_for_cuda(inst.pipeline);
  REQUIRE(launches_gpu_kernels(host));
  // Every stage runs on the GPU: the host code has no loops at all (not even over tiles to size
  // shared memory, which tile-dependent footprints would cause).
  CHECK(host.find("for (") == std::string::npos);
}
