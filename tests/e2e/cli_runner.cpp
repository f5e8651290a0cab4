#include "cli_runner.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace hlsched::testing {

WorkerOutcome run_hlsched(const std::vector<std::string> &args, double timeout_s) {
  std::vector<std::string> argv = {"/usr/bin/env", "HLSCHED_CACHE_DIR=" HLSCHED_TEST_CACHE_DIR, HLSCHED_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
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
