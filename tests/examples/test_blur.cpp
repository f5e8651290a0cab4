// blur: CPU output against a direct 3x3 box-blur loop; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// Direct loops with clamped edges, in the generator's order of operations (uint16 arithmetic).
Halide::Buffer<uint16_t> reference_blur(const Halide::Buffer<uint16_t> &in) {
  const int w = in.width(), h = in.height();
  auto at = [&](int x, int y) {
    return in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1));
  };
  Halide::Buffer<uint16_t> out(w, h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint16_t rows[3];
      for (int dy = -1; dy <= 1; dy++)
        rows[dy + 1] = static_cast<uint16_t>((at(x - 1, y + dy) + at(x, y + dy) + at(x + 1, y + dy)) / 3);
      out(x, y) = static_cast<uint16_t>((rows[0] + rows[1] + rows[2]) / 3);
    }
  return out;
}

}  // namespace

TEST_CASE("blur: CPU output equals the reference exactly", "[examples][blur]") {
  auto inst = hlsched::instantiate_generator("blur", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  auto input = random_buffer<uint16_t>({67, 45}, 7, 0, 20000);
  bind_input(inst.pipeline, "input", input);
  Halide::Buffer<uint16_t> output = inst.pipeline.realize({67, 45}, cpu_target());
  auto expected = reference_blur(input);
  int mismatches = 0;
  output.for_each_element([&](int x, int y) { mismatches += output(x, y) != expected(x, y); });
  REQUIRE(mismatches == 0);
}

TEST_CASE("blur: manual schedule compiles for CUDA", "[examples][blur]") {
  auto inst = hlsched::instantiate_generator("blur", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  REQUIRE(launches_gpu_kernels(compile_for_cuda(inst.pipeline)));
}
