// stencil_chain: CPU output against direct loops (32 rounds of a 5x5 integer binomial stencil
// over the edge-clamped input); manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// Stage 0 is the clamped input over the output region grown by 2 pixels per remaining stage;
// each stage shrinks the region by 2 per side. Exact uint32 arithmetic with rounding.
Halide::Buffer<uint16_t> reference_chain(const Halide::Buffer<uint16_t> &in, int stages) {
  const int w = in.width(), h = in.height();
  const int kernel[5][5] = {{1, 4, 6, 4, 1}, {4, 16, 24, 16, 4}, {6, 24, 36, 24, 6},
                            {4, 16, 24, 16, 4}, {1, 4, 6, 4, 1}};
  int margin = 2 * stages;
  int cw = w + 2 * margin, ch = h + 2 * margin;
  std::vector<uint16_t> cur(cw * ch);
  for (int y = 0; y < ch; y++)
    for (int x = 0; x < cw; x++)
      cur[y * cw + x] = in(std::clamp(x - margin, 0, w - 1), std::clamp(y - margin, 0, h - 1));
  for (int s = 0; s < stages; s++) {
    const int nw = cw - 4, nh = ch - 4;
    std::vector<uint16_t> next(nw * nh);
    for (int y = 0; y < nh; y++)
      for (int x = 0; x < nw; x++) {
        uint32_t sum = 0;
        for (int ky = 0; ky < 5; ky++)
          for (int kx = 0; kx < 5; kx++) sum += uint32_t(cur[(y + ky) * cw + (x + kx)]) * kernel[ky][kx];
        next[y * nw + x] = static_cast<uint16_t>((sum + 128) / 256);
      }
    cur.swap(next);
    cw = nw;
    ch = nh;
  }
  Halide::Buffer<uint16_t> out(w, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) out(x, y) = cur[y * cw + x];
  return out;
}

}  // namespace

TEST_CASE("stencil_chain: CPU output equals the reference exactly", "[examples][stencil_chain]") {
  auto inst = hlsched::instantiate_generator("stencil_chain", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  // A random image plus a gradient, so 32 rounds of smoothing still leave varied values.
  auto input = random_buffer<uint16_t>({43, 31}, 3, 0, 30000);
  input.for_each_element([&](int x, int y) { input(x, y) = static_cast<uint16_t>(input(x, y) + 500 * x + 300 * y); });
  bind_input(inst.pipeline, "input", input);
  Halide::Buffer<uint16_t> output = inst.pipeline.realize({43, 31}, cpu_target());
  auto expected = reference_chain(input, 32);
  int mismatches = 0;
  output.for_each_element([&](int x, int y) { mismatches += output(x, y) != expected(x, y); });
  REQUIRE(mismatches == 0);
  REQUIRE(expected(0, 0) != expected(42, 30));
}

TEST_CASE("stencil_chain: manual schedule compiles for CUDA", "[examples][stencil_chain]") {
  auto inst = hlsched::instantiate_generator("stencil_chain", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
