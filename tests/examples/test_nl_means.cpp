// nl_means: CPU output against a direct C++ non-local means (patch distances summed pixel by
// pixel); manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

Halide::Buffer<float> reference_nl_means(const Halide::Buffer<float> &in, int P, int S, float sigma) {
  const int W = in.width(), H = in.height();
  auto at = [&](int x, int y, int c) { return in(std::clamp(x, 0, W - 1), std::clamp(y, 0, H - 1), c); };
  Halide::Buffer<float> out(W, H, 3);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double acc[3] = {0, 0, 0}, wsum = 0;
      for (int sy = -S / 2; sy <= S / 2; sy++)
        for (int sx = -S / 2; sx <= S / 2; sx++) {
          double dist = 0;  // patch distance between (x, y) and (x + sx, y + sy)
          for (int py = -P / 2; py <= P / 2; py++)
            for (int px = -P / 2; px <= P / 2; px++)
              for (int c = 0; c < 3; c++) {
                const double e = at(x + px, y + py, c) - at(x + sx + px, y + sy + py, c);
                dist += e * e;
              }
          const double w = std::exp(-dist / (static_cast<double>(sigma) * sigma * P * P));
          wsum += w;
          for (int c = 0; c < 3; c++) acc[c] += w * at(x + sx, y + sy, c);
        }
      for (int c = 0; c < 3; c++) out(x, y, c) = static_cast<float>(acc[c] / wsum);
    }
  return out;
}

}  // namespace

TEST_CASE("nl_means: CPU output matches the reference", "[examples][nl_means]") {
  auto inst = hlsched::instantiate_generator("nl_means", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int W = 53, H = 37;
  const float sigma = 0.15f;
  // A piecewise-smooth image (two regions with a vertical edge) plus uniform noise.
  auto input = random_buffer<float>({W, H, 3}, 41, -0.1, 0.1);
  input.for_each_element([&](int x, int y, int c) {
    input(x, y, c) += (x < W / 2 ? 0.3f : 0.7f) + 0.004f * y + 0.1f * c;
  });
  bind_input(inst.pipeline, "input", input);
  bind_scalar<float>(inst.pipeline, "sigma", sigma);
  Halide::Buffer<float> output = inst.pipeline.realize({W, H, 3}, cpu_target());
  auto expected = reference_nl_means(input, 7, 7, sigma);
  // The reference accumulates in double; Halide in float (separable box sums, its own exp). Values
  // are ~[0, 1] and every output is a convex combination of 49 inputs, so float rounding stays
  // ~1e-6: allow 1e-4 absolute.
  float max_err = 0, max_change = 0;
  output.for_each_element([&](int x, int y, int c) {
    max_err = std::max(max_err, std::abs(output(x, y, c) - expected(x, y, c)));
    max_change = std::max(max_change, std::abs(output(x, y, c) - input(x, y, c)));
  });
  INFO("max error " << max_err << ", max change from the input " << max_change);
  REQUIRE(max_change > 0.01f);  // it actually denoises
  REQUIRE(max_err < 1e-4f);
}

TEST_CASE("nl_means: manual schedule compiles for CUDA", "[examples][nl_means]") {
  auto inst = hlsched::instantiate_generator("nl_means", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  const std::string host = compile_for_cuda(inst.pipeline);
  REQUIRE(launches_gpu_kernels(host));
  // Every stage runs on the GPU: the host code has no loops at all (not even over tiles to size
  // shared memory, which tile-dependent footprints would cause).
  CHECK(host.find("for (") == std::string::npos);
}
