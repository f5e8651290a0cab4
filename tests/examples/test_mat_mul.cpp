// mat_mul: CPU output against a naive triple loop; manual schedule compiles for CUDA.
#include <catch2/catch.hpp>

#include <cmath>

#include "halide_test_support.h"

using namespace hlsched::testing;

namespace {

// C(n, m) = sum_k A(k, m) * B(n, k), accumulated in double.
Halide::Buffer<double> reference_mat_mul(const Halide::Buffer<float> &a, const Halide::Buffer<float> &b) {
  const int K = a.dim(0).extent(), M = a.dim(1).extent(), N = b.dim(0).extent();
  Halide::Buffer<double> c(N, M);
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double sum = 0;
      for (int k = 0; k < K; k++) sum += static_cast<double>(a(k, m)) * b(n, k);
      c(n, m) = sum;
    }
  return c;
}

}  // namespace

TEST_CASE("mat_mul: CPU output matches a naive triple loop", "[examples][mat_mul]") {
  auto inst = hlsched::instantiate_generator("mat_mul", cpu_target(), {{"schedule", "none"}}, false);
  schedule_compute_root_everywhere(inst.pipeline);
  const int K = 53, M = 29, N = 41;  // odd sizes on purpose
  auto a = random_buffer<float>({K, M}, 11, -1.0, 1.0);
  auto b = random_buffer<float>({N, K}, 12, -1.0, 1.0);
  bind_input(inst.pipeline, "A", a);
  bind_input(inst.pipeline, "B", b);
  Halide::Buffer<float> c = inst.pipeline.realize({N, M}, cpu_target());
  auto expected = reference_mat_mul(a, b);
  // Float accumulation of 53 products of magnitude <= 1: the error stays far below 1e-4
  // (about K * eps * |sum of |products|| ~ 53 * 6e-8 * 53).
  int mismatches = 0;
  c.for_each_element([&](int n, int m) { mismatches += std::abs(c(n, m) - expected(n, m)) > 1e-4; });
  REQUIRE(mismatches == 0);
}

TEST_CASE("mat_mul: manual schedule compiles for CUDA", "[examples][mat_mul]") {
  auto inst = hlsched::instantiate_generator("mat_mul", hlsched::default_gpu_target(), {{"schedule", "manual"}}, false);
  std::string stmt = compile_for_cuda(inst.pipeline);
  REQUIRE(launches_gpu_kernels(stmt));
}
