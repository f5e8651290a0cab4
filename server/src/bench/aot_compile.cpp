#include "bench/aot_compile.h"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

#include "hlsched/engine/worker_process.h"
#include "util/file_text.h"

namespace hlsched::server::bench {
namespace {

namespace fs = std::filesystem;

// The last `lines` lines of a tool's output: where compilers and Halide put the error.
std::string tail(const std::string &text, int lines) {
  size_t at = text.size();
  while (lines-- > 0 && at > 0) {
    at = text.rfind('\n', at - 1);
    if (at == std::string::npos) return text;
  }
  // Empty output (a compile that failed saying nothing) leaves `at` at the end: substr(at + 1)
  // threw there and took `hlsched dataset collect` down.
  return at >= text.size() ? text : text.substr(at + 1);
}

std::string join(const std::vector<std::string> &argv) {
  std::string line;
  for (const auto &a : argv) line += (line.empty() ? "" : " ") + a;
  return line;
}

// Runs a tool; on failure fills result.error with what it said.
bool run_tool(const std::vector<std::string> &argv, std::chrono::seconds limit, AotResult &result) {
  WorkerLimits limits;
  limits.time_limit = limit;
  const WorkerOutcome outcome = run_worker(argv, limits);
  if (outcome.succeeded()) return true;
  result.error = "`" + fs::path(argv[0]).filename().string() + "` " + outcome.describe() + ":\n" +
                 tail(outcome.stderr_text + outcome.stdout_text, 25);
  return false;
}

// The command line without the generator's shared object (`--load PATH`): what identifies the
// compiled variant, given that the generator is found by name.
std::string identity(const std::vector<std::string> &argv) {
  std::string line;
  for (size_t i = 1; i < argv.size(); i++) {
    if (argv[i] == "--load") {
      i++;
      continue;
    }
    line += argv[i] + "\n";
  }
  return line;
}

std::string read_text(const fs::path &path) { return server::read_file_text(path).value_or(""); }

}  // namespace

AotResult compile_variant(const BenchVariant &variant, const fs::path &generator_library, const AotToolchain &toolchain,
                          const fs::path &out_dir) {
  const auto start = std::chrono::steady_clock::now();
  AotResult result;
  const std::string function = variant.function_name();
  std::vector<std::string> argv = {toolchain.gengen.string(), "--load", generator_library.string()};
  for (const auto &[key, value] : variant.scheduler.environment) argv.insert(argv.end(), {"--env", key + "=" + value});
  if (!variant.generator.empty()) argv.insert(argv.end(), {"-g", variant.generator});
  std::string emit = "static_library,h,registration";
  if (variant.scheduler.uses_plugin()) {
    emit += ",schedule";
    argv.insert(argv.end(), {"-p", variant.scheduler.plugin.string(), "-s", variant.scheduler.autoscheduler});
  }
  argv.insert(argv.end(), {"-f", function, "-n", function, "-o", out_dir.string(), "-e", emit,
                           "target=" + toolchain.target + "-no_runtime"});
  for (const auto &[key, value] : variant.params) argv.push_back(key + "=" + value);
  if (variant.scheduler.uses_plugin())
    argv.insert(argv.end(), {"auto_schedule=true", "machine_params=" + variant.scheduler.machine_params});
  result.command_line = join(argv);
  spdlog::debug("compiling {}: {}", function, result.command_line);

  const fs::path record = out_dir / (function + ".command");
  const fs::path object = out_dir / (function + ".registration.o");
  if (toolchain.reuse_previous && fs::exists(object) && fs::exists(out_dir / (function + ".a")) &&
      read_text(record) == identity(argv)) {
    result.ok = true;
    result.link_inputs = {object, out_dir / (function + ".a")};
    result.schedule_file = out_dir / (function + ".schedule.h");
    return result;
  }
  fs::remove(record);
  if (run_tool(argv, toolchain.time_limit, result)) {
    const fs::path registration = out_dir / (function + ".registration.cpp");
    if (run_tool({toolchain.compiler, "-c", "-O1", registration.string(), "-o", object.string()}, std::chrono::seconds(120),
                 result)) {
      std::ofstream(record) << identity(argv);
      result.ok = true;
      result.link_inputs = {object, out_dir / (function + ".a")};
      result.schedule_file = out_dir / (function + ".schedule.h");
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

AotResult compile_runtime(const AotToolchain &toolchain, const fs::path &out_dir) {
  const auto start = std::chrono::steady_clock::now();
  AotResult result;
  const std::vector<std::string> argv = {toolchain.gengen.string(), "-r", "halide_runtime", "-o", out_dir.string(),
                                         "-e", "static_library", "target=" + toolchain.target};
  result.command_line = join(argv);
  if (run_tool(argv, toolchain.time_limit, result)) {
    result.ok = true;
    result.link_inputs = {out_dir / "halide_runtime.a"};
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace hlsched::server::bench
