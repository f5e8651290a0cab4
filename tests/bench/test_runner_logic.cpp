// The benchmark runner's logic that needs no GPU: kernel attribution, deterministic inputs,
// output checks, timing summaries, argument specs from Halide metadata, input-set rotation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "argument_set.h"
#include "argument_spec.h"
#include "cuda_driver.h"
#include "input_values.h"
#include "kernel_names.h"
#include "manifest.h"
#include "orchestrator.h"
#include "output_check.h"
#include "sample_stats.h"

using namespace hlsched::bench;
using Buffer = Halide::Runtime::Buffer<void>;

TEST_CASE("kernels are attributed to the Func whose name they start with, longest first") {
  const std::vector<std::string> funcs = {"output", "blur", "blur_x", "g_pyr_1", "g_pyr_10", "f$1"};
  CHECK(kernel_owner("_kernel_output_s0_y_yo___block_id_y", funcs).func == "output");
  CHECK(kernel_owner("_kernel_blur_x_s0_x_xo___block_id_x", funcs).func == "blur_x");
  CHECK(kernel_owner("kernel_blur_s1_r4_x___block_id_x", funcs).func == "blur");
  CHECK(kernel_owner("kernel_blur_s1_r4_x___block_id_x", funcs).stage == 1);
  CHECK(kernel_owner("_kernel_g_pyr_10_s0_y___block_id_y", funcs).func == "g_pyr_10");
  CHECK(kernel_owner("_kernel_g_pyr_1_s0_y___block_id_y", funcs).func == "g_pyr_1");
  CHECK(kernel_owner("_kernel_f_1_s0_x___block_id_x", funcs).func == "f$1");  // sanitized name
}

TEST_CASE("without known Funcs, kernel names are cut at the first stage marker") {
  const KernelOwner owner = kernel_owner("_kernel_sharpen_s2_v0___block_id_x", {});
  CHECK(owner.func == "sharpen");
  CHECK(owner.stage == 2);
  CHECK(kernel_owner("_kernel_my_func_s0_x___block_id_x", {}).func == "my_func");
  CHECK(kernel_owner("memcpy_kernel", {}).func.empty());
  CHECK(kernel_owner("_kernel_nothing_here", {}).func.empty());
}

TEST_CASE("generated inputs are deterministic, in range, and independent of the thread count") {
  Buffer a(halide_type_t(halide_type_uint, 16), {301, 7});
  Buffer b(halide_type_t(halide_type_uint, 16), {301, 7});
  fill_deterministic(a, {0, 1023}, input_seed("app", "input", 0), 1);
  fill_deterministic(b, {0, 1023}, input_seed("app", "input", 0), 8);
  const auto *x = static_cast<const uint16_t *>(a.data()), *y = static_cast<const uint16_t *>(b.data());
  bool all_in_range = true, all_equal = true;
  int distinct_low = 0;
  for (int i = 0; i < 301 * 7; i++) {
    all_in_range = all_in_range && x[i] <= 1023;
    all_equal = all_equal && x[i] == y[i];
    distinct_low += x[i] < 512;
  }
  CHECK(all_in_range);
  CHECK(all_equal);
  CHECK(distinct_low > 800);  // roughly uniform: about half of 2107 below the middle
  CHECK(distinct_low < 1300);

  Buffer c(halide_type_t(halide_type_uint, 16), {301, 7});
  fill_deterministic(c, {0, 1023}, input_seed("app", "input", 1), 2);
  CHECK(std::memcmp(a.data(), c.data(), a.size_in_bytes()) != 0);  // another input set
}

TEST_CASE("float inputs fill [lo, hi] and default ranges follow the type") {
  Buffer f(halide_type_t(halide_type_float, 32), {1000});
  fill_deterministic(f, default_value_range(f.type()), 42, 3);
  const auto *v = static_cast<const float *>(f.data());
  float lo = 1, hi = 0;
  for (int i = 0; i < 1000; i++) lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
  CHECK(lo >= 0.0f);
  CHECK(lo < 0.01f);
  CHECK(hi <= 1.0f);
  CHECK(hi > 0.99f);
  CHECK(default_value_range(halide_type_t(halide_type_uint, 8)).hi == 255);
  CHECK(default_value_range(halide_type_t(halide_type_int, 16)).lo == -32768);
  CHECK(default_value_range(halide_type_t(halide_type_int, 32)).hi == 1023);
  Buffer handle(halide_type_t(halide_type_handle, 64), {4});
  CHECK_THROWS_AS(fill_deterministic(handle, {0, 1}, 1, 1), std::invalid_argument);
}

TEST_CASE("integer outputs must match exactly") {
  Buffer a(halide_type_t(halide_type_uint, 8), {10}), b(halide_type_t(halide_type_uint, 8), {10});
  for (int i = 0; i < 10; i++) static_cast<uint8_t *>(a.data())[i] = static_cast<uint8_t *>(b.data())[i] = uint8_t(i);
  CHECK(compare_outputs(a, b).ok);
  static_cast<uint8_t *>(a.data())[7] = 8;
  const OutputComparison c = compare_outputs(a, b);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 1);
  CHECK(c.first_mismatch == 7);
  CHECK(c.max_abs_diff == 1);
  CHECK(c.rule == "exact");
}

TEST_CASE("float outputs match within the tolerance; NaN only matches NaN") {
  Buffer a(halide_type_t(halide_type_float, 32), {4}), b(halide_type_t(halide_type_float, 32), {4});
  float *x = static_cast<float *>(a.data()), *y = static_cast<float *>(b.data());
  const float ref[4] = {1.0f, 0.5f, 0.0f, 2.0f};
  for (int i = 0; i < 4; i++) x[i] = y[i] = ref[i];
  x[0] = 1.0005f;  // 5e-4 relative: inside 1e-3
  x[2] = 0.0001f;  // near zero: inside 1e-4 * max|ref| = 2e-4
  CHECK(compare_outputs(a, b).ok);
  x[1] = 0.51f;    // 2% off
  const OutputComparison c = compare_outputs(a, b);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 1);
  CHECK(c.first_mismatch == 1);
  x[1] = 0.5f;
  x[3] = std::numeric_limits<float>::quiet_NaN();  // a poisoned, unwritten element
  CHECK_FALSE(compare_outputs(a, b).ok);
  y[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK(compare_outputs(a, b).ok);
}

TEST_CASE("timing summaries and the repetition policy") {
  const TimingSummary s = summarize({5, 1, 3, 2, 4});
  CHECK(s.median == 3);
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.p10 == Approx(1.4));
  CHECK(s.p90 == Approx(4.6));
  CHECK(s.count == 5);
  CHECK_THROWS(summarize({}));

  RepetitionPolicy policy;
  policy.min_repetitions = 10;
  policy.max_repetitions = 100;
  policy.target_seconds = 0.5;
  CHECK(policy.want_more(9, 10.0));   // always the minimum
  CHECK(policy.want_more(10, 0.1));   // fast: more samples
  CHECK_FALSE(policy.want_more(10, 0.6));
  CHECK_FALSE(policy.want_more(100, 0.1));
}

TEST_CASE("small working sets rotate through enough input sets to cover the target") {
  const int64_t mb = 1 << 20;
  CHECK(input_set_count(150 * mb, 100 * mb, 200 * mb, 16) == 1);
  CHECK(input_set_count(90 * mb, 100 * mb, 200 * mb, 16) == 3);
  CHECK(input_set_count(8 * mb, 100 * mb, 200 * mb, 16) == 16);  // capped
  CHECK(input_set_count(50 * mb, 100 * mb, 200 * mb, 16) == 4);
}

namespace {

// Metadata as GenGen's registration emits it: a 2-D uint16 input with estimates, a float scalar,
// a 2-D uint16 output.
struct FakeMetadata {
  int64_t zero = 0, width = 64, height = 32;
  const int64_t *estimates[4] = {&zero, &width, &zero, &height};
  halide_scalar_value_t def{}, estimate{};
  halide_filter_argument_t args[3];
  halide_filter_metadata_t metadata{};

  explicit FakeMetadata(bool with_estimates = true) {
    def.u.f32 = 1.0f;
    estimate.u.f32 = 2.5f;
    args[0] = {"input", halide_argument_kind_input_buffer, 2, halide_type_t(halide_type_uint, 16), nullptr, nullptr,
               nullptr, nullptr, with_estimates ? estimates : nullptr};
    args[1] = {"amount", halide_argument_kind_input_scalar, 0, halide_type_t(halide_type_float, 32), &def, nullptr,
               nullptr, &estimate, nullptr};
    args[2] = {"output", halide_argument_kind_output_buffer, 2, halide_type_t(halide_type_uint, 16), nullptr, nullptr,
               nullptr, nullptr, estimates};
    metadata = {halide_filter_metadata_t::VERSION, 3, args, "x86-64-linux-cuda", "fake"};
  }
};

}  // namespace

TEST_CASE("argument specs come from the metadata's estimates") {
  FakeMetadata fake;
  const std::vector<ArgumentSpec> specs = argument_specs(fake.metadata);
  REQUIRE(specs.size() == 3);
  CHECK(specs[0].extents == std::vector<int64_t>{64, 32});
  CHECK(specs[0].bytes() == 64 * 32 * 2);
  CHECK(specs[1].scalar.u.f32 == 2.5f);
  CHECK(specs[1].scalar_source == "estimate");
  CHECK(specs[2].is_output());
  CHECK(describe(specs[0]) == "input: uint16 input [0,64)x[0,32)");
  CHECK(describe(specs[1]) == "amount: float32 = 2.5 (estimate)");
  CHECK(working_set_bytes(specs) == 2 * 64 * 32 * 2);
  CHECK(argument_differences(specs, specs).empty());

  FakeMetadata other;
  other.height = 16;
  other.estimate.u.f32 = 3.0f;
  const auto differences = argument_differences(specs, argument_specs(other.metadata));
  CHECK(differences.size() == 3);  // input shape, output shape, scalar value

  FakeMetadata missing(false);
  CHECK_THROWS_WITH(argument_specs(missing.metadata), Catch::Contains("no estimate for dimension 0"));
}

TEST_CASE("the manifest lists apps, input ranges and which variants compiled") {
  const Manifest m = parse_manifest(nlohmann::json::parse(R"({
    "target": "x86-64-linux-cuda-cuda_capability_86",
    "apps": {"blur": {"funcs": ["output", "blur_x"], "input_ranges": {"input": [0, 1023]}}},
    "variants": [{"function": "blur__manual", "app": "blur", "label": "manual", "status": "compiled"},
                 {"function": "blur__li2018", "app": "blur", "label": "li2018", "status": "failed"}]})"));
  CHECK(m.uses_cuda());
  CHECK(m.app("blur").input_ranges.at("input").hi == 1023);
  CHECK(m.app("blur").funcs.size() == 2);
  REQUIRE(m.compiled_variants("blur").size() == 1);
  CHECK(m.compiled_variants("blur")[0].function == "blur__manual");
  CHECK_THROWS(m.app("nope"));
}

TEST_CASE("the L1/shared-memory split reaches every app's process, as cuda.h numbers it") {
  // cuda.h's CUfunc_cache: PREFER_NONE 0, PREFER_SHARED 1, PREFER_L1 2, PREFER_EQUAL 3.
  CHECK(cache_config_from_name("none") == 0);
  CHECK(cache_config_from_name("shared") == 1);
  CHECK(cache_config_from_name("l1") == 2);
  CHECK(cache_config_from_name("equal") == 3);
  CHECK_THROWS_WITH(cache_config_from_name("max"), Catch::Contains("none, shared, l1, equal"));
  RunOptions options;
  CHECK(options.app.cache_config == "none");  // the driver's own carve-out unless asked
  options.app.cache_config = "shared";
  const std::vector<std::string> args = child_arguments(options);
  const auto at = std::find(args.begin(), args.end(), "--cache-config");
  REQUIRE(at != args.end());
  REQUIRE(at + 1 != args.end());
  CHECK(*(at + 1) == "shared");
}
