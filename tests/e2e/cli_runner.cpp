#include "cli_runner.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace hlsched::testing {

WorkerOutcome run_hlsched(const std::vector<std::string> &args, double timeout_s) {
  std::vector<std::string> argv = {"/usr/bin/env", "HLSCHED_CACHE_DIR=" HLSCHED_TEST_CACHE_DIR, HLSCHED_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  // The CLI gives a generator 60 s to build and search; on a 2-core machine at load 15 an
  // example's build alone can take longer (measured: interpolate, 62 s). Tests that are not about
  // the limit give the generator nearly all of this call's own time instead.
  const bool analyzes_a_source = !args.empty() && (args[0] == "schedule" || args[0] == "lower");
  const bool sets_timeout = std::find(args.begin(), args.end(), "--timeout") != args.end();
  if (analyzes_a_source && !sets_timeout && timeout_s > 30) {
    argv.insert(argv.begin() + 4, {"--timeout", std::to_string(static_cast<int>(timeout_s - 20))});
  }
  WorkerLimits limits;
  limits.time_limit = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  return run_worker(argv, limits);
}

nlohmann::json stdout_json(const WorkerOutcome &run) {
  INFO("stdout: " << run.stdout_text.substr(0, 2000) << "\nstderr: " << run.stderr_text.substr(0, 4000));
  try {
    return nlohmann::json::parse(run.stdout_text);
  } catch (const nlohmann::json::exception &e) {
    FAIL("stdout is not JSON: " << e.what());
  }
  return {};
}

std::filesystem::path source_path(const std::string &relative) {
  return std::filesystem::path(HLSCHED_SOURCE_DIR) / relative;
}

std::filesystem::path scratch_dir(const std::string &name) {
  std::filesystem::path dir = std::filesystem::path(HLSCHED_TEST_SCRATCH_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string paste_schedule(const std::string &source, const std::string &code) {
  std::string::size_type at = source.find("// HLSCHED_SCHEDULE");
  if (at == std::string::npos) {
    at = source.find("output.set_estimates");
    REQUIRE(at != std::string::npos);
    at = source.find('\n', at) + 1;
  }
  return source.substr(0, at) + "{\n" + code + "}\n" + source.substr(at);
}

std::string canonical_lowered_program(std::string stmt) {
  static const std::regex kernel_size(R"(cuda_gpu_source_kernels\.buffer\), [0-9]+\))");
  stmt = std::regex_replace(stmt, kernel_size, "cuda_gpu_source_kernels.buffer), size)");
  static const std::regex numbered(
      R"(\bt[0-9]+\b|\b[A-Za-z_][A-Za-z0-9_]*_result(\$[0-9]+)?\b|_kernel_[A-Za-z0-9_]*?___block_id_[xyzw](__[0-9]+)?)");
  std::map<std::string, std::string> renamed;
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(stmt.begin(), stmt.end(), numbered); it != std::sregex_iterator(); ++it) {
    out += stmt.substr(last, size_t(it->position()) - last);
    out += renamed.emplace(it->str(), "n_" + std::to_string(renamed.size())).first->second;
    last = size_t(it->position() + it->length());
  }
  return out + stmt.substr(last);
}

}  // namespace hlsched::testing
