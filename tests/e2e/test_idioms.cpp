// Halide idioms that the examples and the random pipelines do not write, as a user would
// (tests/data/idioms/, 38 generators: a matrix-vector product, whole-image totals, Tuple outputs
// and updates, an output with updates, five dimensions, a 20x12 image, interleaved buffers,
// scans, scatters, several outputs, gathers at runtime coordinates, float16, double, a 30-stage
// chain...). Each is scheduled by the default search, and the schedule pasted into its generator
// compiles and lowers to exactly what the applied schedule lowers to. Written for generators
// never seen before: a crash or an uncompilable schedule here is what a user would meet first.
// The same generators make a GPU benchmark: scripts/bench/idioms_bundle.sh.
//
// Cost: the generators are compiled together (one source, each registered under its own name),
// twice: the originals, then the pasted schedules; 38 searches and 76 compiles for CUDA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>

#include "cli_runner.h"

using namespace hlsched::testing;
namespace fs = std::filesystem;

namespace {

constexpr const char *kMarker = "// HLSCHED_SCHEDULE";

// The generator name registered by a source (HALIDE_REGISTER_GENERATOR(Class, name)).
std::string registered_name(const std::string &source) {
  const std::string macro = "HALIDE_REGISTER_GENERATOR(";
  const auto at = source.find(macro);
  REQUIRE(at != std::string::npos);
  const auto comma = source.find(',', at), close = source.find(')', comma);
  std::string name = source.substr(comma + 1, close - comma - 1);
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  return name;
}

}  // namespace

TEST_CASE("idioms: every generator gets a schedule that compiles pasted as it is applied", "[e2e][idioms]") {
  std::vector<fs::path> files;
  for (const auto &entry : fs::directory_iterator(source_path("tests/data/idioms")))
    if (entry.path().extension() == ".cpp") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);

  const fs::path dir = scratch_dir("idioms");
  std::string originals;
  std::map<std::string, std::string> source_of;
  for (const fs::path &file : files) {
    const std::string source = read_file(file);
    REQUIRE(source.find(kMarker) != std::string::npos);
    INFO(file.filename().string());
    REQUIRE(source_of.emplace(registered_name(source), source).second);  // names are unique
    originals += source + "\n";
  }
  std::ofstream(dir / "idioms.cpp") << originals;

  std::string pasted;
  for (const auto &[name, source] : source_of) {
    INFO(name);
    const fs::path applied_stmt = dir / (name + ".applied.stmt");
    auto scheduled = run_hlsched({"schedule", "--json", "--verify", "--generator", name, "--stmt-out",
                                  applied_stmt.string(), (dir / "idioms.cpp").string()});
    INFO(scheduled.stderr_text);
    REQUIRE(scheduled.exit_code == 0);
    const auto result = stdout_json(scheduled);
    CHECK(result["verified"]["gpu_kernels"].get<int>() > 0);
    CHECK(result["predicted_runtime_ms"].get<double>() > 0);
    pasted += paste_schedule(source, result["schedule_code"]) + "\n";
  }
  std::ofstream(dir / "pasted.cpp") << pasted;

  for (const auto &[name, source] : source_of) {
    INFO(name);
    const fs::path pasted_stmt = dir / (name + ".pasted.stmt");
    auto lowered = run_hlsched({"lower", "--json", "--generator", name, "--stmt-out", pasted_stmt.string(),
                                (dir / "pasted.cpp").string()});
    INFO(lowered.stderr_text);
    REQUIRE(lowered.exit_code == 0);
    CHECK(canonical_lowered_program(read_file(pasted_stmt)) ==
          canonical_lowered_program(read_file(dir / (name + ".applied.stmt"))));
  }
}
