// The default search on pipelines that stress it: inputs of 2^31 elements (stencils, a histogram,
// a reduction, a lookup-table gather), 100+ stages (a chain, and a wide DAG with three outputs),
// scans and outputs sharing producers. Each gets a schedule from the beam search within its time
// budget (the bound is honoured, with slack for a loaded machine: this is not a speed test) that
// compiles for CUDA (--verify). Cost on 2 cores at load ~10: each generator's build ~10-40 s
// (once: the build cache is shared), then ~2 s per case, and ~20 s for each many-stage one
// (4 s search budget, then Halide lowers and compiles 40-50 kernels).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

using namespace hlsched::testing;

namespace {

nlohmann::json schedule_verified(const std::string &generator, const std::vector<std::string> &extra,
                                 double budget_s) {
  std::vector<std::string> args = {"schedule", "--json", "--verify", "--timeout", "400", "--time-budget",
                                   std::to_string(budget_s), source_path("tests/data/generators/" + generator).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  auto run = run_hlsched(args, 600);
  INFO(generator << "\n" << run.stderr_text);
  REQUIRE(run.exit_code == 0);
  auto result = stdout_json(run);
  CHECK(result["search"]["strategy"] == "beam");
  CHECK(result["search"]["fallback"] == "");
  // The slack is for a loaded machine: the steps after the deadline take wall time that grows
  // with the load (2 s left little margin); a search ignoring its budget takes minutes.
  CHECK(result["search"]["time_ms"].get<double>() <= budget_s * 1000 + 20000);
  CHECK(result["verified"]["compiled"] == true);
  CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);
  return result;
}

}  // namespace

TEST_CASE("robustness: a 2^31-element image through stencils, a histogram, a reduction and a gather",
          "[e2e][robustness]") {
  auto result = schedule_verified("large_image.cpp", {}, 8);
  // Halide refuses buffers of 2^31 elements at run time without large_buffers: the schedule
  // names the feature and verification compiled with it.
  CHECK(result["target"] == "host-cuda-cuda_capability_86-large_buffers");
  CHECK(result["verified"]["target"].get<std::string>().find("large_buffers") != std::string::npos);
  CHECK(result["schedule_code"].get<std::string>().find("large_buffers") != std::string::npos);
}

TEST_CASE("robustness: a 2^31-element 3-D volume", "[e2e][robustness]") {
  auto result = schedule_verified("large_volume.cpp", {}, 8);
  CHECK(result["target"] == "host-cuda-cuda_capability_86-large_buffers");
  // Its boundary condition covers 2050 x 1026 x 1026 points, past a 32-bit index: it must not be
  // stored in global memory.
  CHECK(result["schedule_code"].get<std::string>().find("repeat_edge.compute_root()") == std::string::npos);
}

TEST_CASE("robustness: 150 stages in a chain", "[e2e][robustness]") {
  auto result = schedule_verified("many_stages.cpp", {"--param", "shape=chain", "--param", "stages=150"}, 4);
  CHECK(result["stages"].size() >= 3);  // at least the three outputs' kernels
}

TEST_CASE("robustness: 120 stages in a wide DAG with three outputs", "[e2e][robustness]") {
  auto result = schedule_verified("many_stages.cpp", {"--param", "shape=wide", "--param", "stages=120"}, 4);
  CHECK(result["stages"].size() >= 3);
}

TEST_CASE("robustness: scans along x and y, outputs sharing producers", "[e2e][robustness]") {
  auto result = schedule_verified("scans_shared.cpp", {}, 8);
  CHECK(result["target"] == "host-cuda-cuda_capability_86");
  // The scans stay serial along their RDom and parallel over the other dimension.
  bool saw_running_update = false;
  for (const auto &stage : result["stages"])
    if (stage["func"].get<std::string>().rfind("running", 0) == 0 && stage["stage"] == 1) saw_running_update = true;
  CHECK(saw_running_update);
}

TEST_CASE("robustness: the simple schedule keeps a 4-D grid within the GPU's limits", "[e2e][robustness]") {
  // Its two innermost loops are tiled; the other two (2048 x 64 = 131072) do not fit one grid
  // dimension of 65535 blocks: the ones that do not fit run inside each thread.
  auto dir = scratch_dir("tall_grid");
  std::ofstream(dir / "tall.cpp") << R"(#include "Halide.h"
namespace {
using namespace Halide;
class Tall : public Generator<Tall> {
public:
    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};
    void generate() { output(x, y, z, w) = input(x, y, z, w) * 2.0f; }
    void schedule() {
        input.set_estimates({{0, 64}, {0, 64}, {0, 2048}, {0, 64}});
        output.set_estimates({{0, 64}, {0, 64}, {0, 2048}, {0, 64}});
    }
private:
    Var x{"x"}, y{"y"}, z{"z"}, w{"w"};
};
}  // namespace
HALIDE_REGISTER_GENERATOR(Tall, tall)
)";
  auto run = run_hlsched({"schedule", "--json", "--verify", "--strategy", "simple", (dir / "tall.cpp").string()});
  INFO(run.stderr_text);
  REQUIRE(run.exit_code == 0);
  auto result = stdout_json(run);
  CHECK(result["verified"]["compiled"] == true);
  const std::string code = result["schedule_code"].get<std::string>();
  INFO(code);
  CHECK(code.find("reorder(w, xi, yi, xo, yo, z)") != std::string::npos);  // w runs inside each thread
  CHECK(code.find("gpu_blocks(z)") != std::string::npos);
}
