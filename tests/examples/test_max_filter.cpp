// max_filter: CPU output against a brute-force max over every pixel of the disc
// dx^2 + dy^2 <= r^2 (edges repeated); manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

Halide::Buffer<float> reference_max_filter(const Halide::Buffer<float> &in, int r) {
  const int w = in.width(), h = in.height();
  Halide::Buffer<float> out(w, h, 3);
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float m = -1e30f;
        for (int dy = -r; dy <= r; dy++)
          for (int dx = -r; dx <= r; dx++)
            if (dx * dx + dy * dy <= r * r)
              m = std::max(m, in(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1), c));
        out(x, y, c) = m;
      }
  return out;
}

}  // namespace

TEST_CASE("max_filter: CPU output equals the reference exactly", "[examples][max_filter]") {
  // The default radius (26, larger than the test image, so edges matter) and a small one
  // (5, where the disc shape is visible inside the image).
  for (int radius : {26, 5}) {
    INFO("radius " << radius);
    auto inst = hlsched::instantiate_generator("max_filter", cpu_target(),
                                               {{"schedule", "none"}, {"radius", std::to_string(radius)}}, false);
    schedule_compute_root_everywhere(inst.pipeline);
    auto input = random_buffer<float>({47, 35, 3}, 13 + radius, -1.0, 1.0);
    bind_input(inst.pipeline, "input", input);
    Halide::Buffer<float> output = inst.pipeline.realize({47, 35, 3}, cpu_target());
    auto expected = reference_max_filter(input, radius);
    int mismatches = 0;  // max is exact in floating point
    output.for_each_element([&](int x, int y, int c) { mismatches += output(x, y, c) != expected(x, y, c); });
    REQUIRE(mismatches == 0);
  }
}

TEST_CASE("max_filter: manual schedule compiles for CUDA", "[examples][max_filter]") {
  auto inst = hlsched::instantiate_generator("max_filter", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
