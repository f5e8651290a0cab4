// The dataset fidelity check (dataset/fidelity.h): a record against what today's code rebuilt
// from it. Each rule is checked on a record that passes and on one that breaks only that rule.
#include <catch2/catch.hpp>

#include "dataset/fidelity.h"

using namespace hlsched::dataset;
using nlohmann::json;

namespace {

// One record measured on the GPU: two kernels, one of a Func whose Halide name has a '$'.
json measured_record() {
  return json::parse(R"({
    "id": "c/r1__beam",
    "measured": {"pipeline_ms": 0.2, "kernels": [
      {"func": "blur", "stage": 0, "grid": [60, 135, 1], "block": [32, 8, 1], "ms": 0.1},
      {"func": "repeat_edge__1", "stage": 0, "grid": [100, 1, 1], "block": [128, 1, 1], "ms": 0.05}]}})");
}

json rebuilt_as_measured() {
  return json::parse(R"({
    "from": "state", "loop_nest_differs": [],
    "kernels": [{"func": "blur", "stage": 0, "blocks": 8100, "threads": 256},
                {"func": "repeat_edge$1", "stage": 0, "blocks": 100, "threads": 128}]})");
}

}  // namespace

TEST_CASE("a schedule rebuilt as it was measured passes the fidelity check", "[dataset][fidelity]") {
  const Fidelity f = check_fidelity(measured_record(), rebuilt_as_measured());
  CHECK(f.ok());
  CHECK(f.rebuilt_from == "state");
  CHECK(kernel_func_name("repeat_edge$1") == "repeat_edge__1");
}

TEST_CASE("the fidelity check names each way a rebuilt schedule can differ", "[dataset][fidelity]") {
  json rebuilt = rebuilt_as_measured();
  SECTION("not rebuilt at all") {
    rebuilt["from"] = "";
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    REQUIRE(f.mismatches.size() == 1);
    CHECK(f.mismatches[0].find("not rebuilt") == 0);
  }
  SECTION("another loop nest") {
    rebuilt["loop_nest_differs"] = {"measured: blur.s0: loops xi:thread y:block xo:block",
                                    "rebuilt:  blur.s0: loops xi:thread xo:block y:block"};
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    REQUIRE(f.mismatches.size() == 1);
    CHECK(f.mismatches[0].find("loop nest differs") == 0);
    CHECK(f.mismatches[0].find("xo:block y:block") != std::string::npos);
  }
  SECTION("a kernel more or less") {
    rebuilt["kernels"].push_back({{"func", "extra"}, {"stage", 0}, {"blocks", 1}, {"threads", 32}});
    rebuilt["kernels"].erase(1);
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    REQUIRE(f.mismatches.size() == 2);
    CHECK(f.mismatches[0] == "kernel repeat_edge__1.s0 ran but is not in the rebuilt schedule");
    CHECK(f.mismatches[1] == "kernel extra.s0 of the rebuilt schedule did not run");
  }
  SECTION("a Func computed with a sibling runs in the sibling's kernel") {
    // blur_2.compute_with(blur, xo): CUPTI times one kernel, named after blur.
    rebuilt["kernels"].push_back({{"func", "blur_2"}, {"stage", 0}, {"blocks", 8100}, {"threads", 256},
                                  {"computed_with", "blur"}});
    CHECK(check_fidelity(measured_record(), rebuilt).ok());
    // blur's kernel is timed, its launch kept; the time is both Funcs', neither's own.
    const auto kernels = measured_by_model_kernel(measured_record()["measured"], rebuilt);
    CHECK(kernels.at("blur.s0").ms < 0);
    CHECK(kernels.at("blur.s0").grid == json::array({60, 135, 1}));
    CHECK(kernels.at("repeat_edge__1.s0").ms == Approx(0.05));
    rebuilt["kernels"].back().erase("computed_with");
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    REQUIRE(f.mismatches.size() == 1);
    CHECK(f.mismatches[0] == "kernel blur_2.s0 of the rebuilt schedule did not run");
  }
  SECTION("another grid or block, beyond 5%") {
    rebuilt["kernels"][0]["blocks"] = 8100 / 5;
    rebuilt["kernels"][1]["threads"] = 256;
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    REQUIRE(f.mismatches.size() == 2);
    CHECK(f.mismatches[0] == "kernel blur.s0 launched 8100 blocks x 256 threads; the kernel model has 1620 x 256");
    CHECK(f.mismatches[1].find("repeat_edge__1.s0 launched 100 blocks x 128 threads") == 7);
  }
  SECTION("no CUPTI trace: the kernels cannot be compared") {
    json record = measured_record();
    record["measured"]["kernels"] = json::array();
    rebuilt["kernels"][0]["blocks"] = 1;
    CHECK(check_fidelity(record, rebuilt).ok());
  }
  SECTION("a schedule for whole tiles added to one measured before those existed") {
    rebuilt["whole_tiles_added"] = true;
    const Fidelity f = check_fidelity(measured_record(), rebuilt);
    CHECK(f.ok());
    CHECK(f.whole_tiles_added);
    CHECK_FALSE(check_fidelity(measured_record(), rebuilt_as_measured()).whole_tiles_added);
  }
  SECTION("a grid rounded differently, within 5%") {
    rebuilt["kernels"][0]["blocks"] = 8090;
    CHECK(check_fidelity(measured_record(), rebuilt).ok());
  }
}

TEST_CASE("a stage in partial results is its intm kernels and its own, launched as the partial results",
          "[dataset][fidelity]") {
  // Random pipeline 600002's histogram: Halide runs hist_1.s1's rfactor as hist_1_intm.s0 (the
  // partial results' initialization), hist_1_intm.s1 (the partial results) and hist_1.s1
  // (combining them); the kernel model has one kernel, launched as hist_1_intm.s1.
  const json record = json::parse(R"({
    "id": "c/r600002__beam",
    "measured": {"pipeline_ms": 0.18, "kernels": [
      {"func": "hist_1_intm", "stage": 0, "grid": [8, 1, 1], "block": [32, 1, 1], "ms": 0.019},
      {"func": "hist_1_intm", "stage": 1, "grid": [8, 1, 1], "block": [32, 1, 1], "ms": 0.129},
      {"func": "hist_1", "stage": 0, "grid": [1, 1, 1], "block": [128, 1, 1], "ms": 0.0005},
      {"func": "hist_1", "stage": 1, "grid": [2, 1, 1], "block": [64, 1, 1], "ms": 0.0067}]}})");
  json rebuilt = json::parse(R"({
    "from": "state", "loop_nest_differs": [],
    "kernels": [{"func": "hist_1", "stage": 0, "blocks": 1, "threads": 128},
                {"func": "hist_1", "stage": 1, "blocks": 8, "threads": 32, "partials": true}]})");
  CHECK(check_fidelity(record, rebuilt).ok());
  const auto kernels = measured_by_model_kernel(record["measured"], rebuilt);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels.at("hist_1.s1").ms == Approx(0.019 + 0.129 + 0.0067));
  CHECK(kernels.at("hist_1.s0").ms == Approx(0.0005));

  SECTION("without partial results in the rebuild, the intm kernels are kernels it lacks") {
    rebuilt["kernels"][1].erase("partials");
    const Fidelity f = check_fidelity(record, rebuilt);
    REQUIRE(f.mismatches.size() == 3);
    CHECK(f.mismatches[0] == "kernel hist_1_intm.s0 ran but is not in the rebuilt schedule");
    CHECK(f.mismatches[2] == "kernel hist_1.s1 launched 2 blocks x 64 threads; the kernel model has 8 x 32");
  }
}
