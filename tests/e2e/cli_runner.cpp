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

std::string canonical_temporaries(const std::string &stmt) {
  static const std::regex temp(R"(\bt[0-9]+\b)");
  std::map<std::string, std::string> renamed;
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(stmt.begin(), stmt.end(), temp); it != std::sregex_iterator(); ++it) {
    out += stmt.substr(last, it->position() - last);
    out += renamed.emplace(it->str(), "t_" + std::to_string(renamed.size())).first->second;
    last = it->position() + it->length();
  }
  return out + stmt.substr(last);
}

}  // namespace hlsched::testing
