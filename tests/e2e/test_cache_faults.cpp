// The CLI against damaged caches and failing workers: a damaged cached build or memo file gives
// a rebuild or a clean miss (never "the generator crashed"), a worker that crashes on a cached
// build is retried once with a fresh build, two processes share one cache, and a worker killed
// or writing garbage at any point becomes a clear error that leaves no file behind.
//
// Each test has its own cache folder, whose precompiled headers are those of the shared test
// cache (a symlink): only the generators are built (seconds each), not Halide.h (a minute).
// (Cost: about ten generator builds and twenty worker runs.)
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <thread>

#include "cli_runner.h"

using namespace hlsched::testing;
namespace fs = std::filesystem;

namespace {

struct CliCache {
  fs::path dir;
  fs::path cache;
  fs::path tmp;

  explicit CliCache(const std::string &name) : dir(scratch_dir(name)), cache(dir / "cache"), tmp(dir / "tmp") {
    fs::create_directories(cache);
    fs::create_directories(tmp);
    fs::create_directories(fs::path(HLSCHED_TEST_CACHE_DIR) / "pch");
    fs::create_directory_symlink(fs::path(HLSCHED_TEST_CACHE_DIR) / "pch", cache / "pch");
  }

  // `hlsched ARGS` with this cache, TMPDIR inside the scratch folder, and `environment` added.
  hlsched::WorkerOutcome run(const std::vector<std::string> &args, const std::vector<std::string> &environment = {}) const {
    std::vector<std::string> argv = {"/usr/bin/env", "HLSCHED_CACHE_DIR=" + cache.string(), "TMPDIR=" + tmp.string()};
    argv.insert(argv.end(), environment.begin(), environment.end());
    argv.push_back(HLSCHED_BINARY);
    argv.insert(argv.end(), args.begin(), args.end());
    hlsched::WorkerLimits limits;
    limits.time_limit = std::chrono::minutes(5);
    return hlsched::run_worker(argv, limits);
  }

  // A copy of a generator with a comment that gives it a cache key of its own.
  fs::path copy_of(const std::string &relative, const std::string &tag) const {
    const fs::path path = dir / (tag + "_" + fs::path(relative).filename().string());
    std::ofstream(path) << "// " << tag << "\n" << read_file(source_path(relative));
    return path;
  }

  std::set<fs::path> built() const {
    std::set<fs::path> files;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(cache / "generators", ec))
      if (entry.path().extension() == ".so") files.insert(entry.path());
    return files;
  }

  std::vector<fs::path> leftovers() const {
    std::vector<fs::path> found;
    for (const auto &entry : fs::directory_iterator(tmp)) found.push_back(entry.path());
    for (const auto &entry : fs::recursive_directory_iterator(cache / "generators"))
      if (entry.path().string().find(".tmp") != std::string::npos) found.push_back(entry.path());
    return found;
  }
};

std::string describe(const hlsched::WorkerOutcome &run) {
  return run.describe() + "\nstdout: " + run.stdout_text.substr(0, 2000) + "\nstderr: " + run.stderr_text.substr(0, 4000);
}

void truncate_half(const fs::path &path) { fs::resize_file(path, fs::file_size(path) / 2); }

void overwrite_middle(const fs::path &path) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 3));
  for (int i = 0; i < 256; i++) f.put(static_cast<char>(0xA5 ^ i));
}

}  // namespace

TEST_CASE("cli: a damaged build cache and memo file give a rebuild and a clean miss, not a crash",
          "[e2e][cache]") {
  CliCache c("cache_damaged");
  const fs::path source = c.copy_of("examples/blur/blur_generator.cpp", "damaged");
  const std::string memo = (c.dir / "search.memo").string();
  const std::vector<std::string> args = {"schedule", "--json", "--memo-file", memo, source.string()};

  const auto first = c.run(args);
  INFO(describe(first));
  REQUIRE(first.succeeded());
  REQUIRE(c.built().size() == 1);
  const fs::path so = *c.built().begin();

  // The default model (both) keeps a memo and a warm start per model.
  const std::vector<std::string> memo_files = {memo, memo + ".warm", memo + ".learned", memo + ".learned.warm"};
  for (const std::string &f : memo_files) REQUIRE(fs::exists(f));
  const bool truncate = GENERATE(true, false);
  if (truncate) {
    truncate_half(so);
    for (const std::string &f : memo_files) truncate_half(f);
  } else {
    overwrite_middle(so);
    for (const std::string &f : memo_files) overwrite_middle(f);
  }
  const auto second = c.run(args);
  INFO(describe(second));
  REQUIRE(second.succeeded());
  const nlohmann::json result = stdout_json(second);
  CHECK(result["search"]["memo_entries_loaded"] == 0);
  CHECK(result["search"]["warm_start_funcs"] == 0);
  CHECK(second.stderr_text.find("SIGSEGV") == std::string::npos);

  // Both files were rewritten whole: the third run uses them.
  const auto third = c.run(args);
  INFO(describe(third));
  REQUIRE(third.succeeded());
  CHECK(stdout_json(third)["search"]["memo_entries_loaded"] > 0);
  CHECK(c.leftovers().empty());
}

TEST_CASE("cli: a worker that crashes on a cached build is retried once with a fresh build", "[e2e][cache]") {
  CliCache c("cache_retry");
  const fs::path good = c.copy_of("examples/blur/blur_generator.cpp", "retry");
  const fs::path bad = c.copy_of("tests/data/bad_generators/crashes.cpp", "retry");
  REQUIRE(c.run({"dag", good.string()}).succeeded());
  const std::set<fs::path> after_good = c.built();
  const auto crash = c.run({"dag", bad.string()});
  CHECK(crash.stderr_text.find("SIGSEGV") != std::string::npos);
  fs::path good_so = *after_good.begin(), bad_so;
  for (const fs::path &so : c.built())
    if (!after_good.count(so)) bad_so = so;
  REQUIRE_FALSE(bad_so.empty());

  // The good generator's cache entry now holds the crashing one, with a seal that matches it:
  // damage no checksum can see.
  fs::copy_file(bad_so, good_so, fs::copy_options::overwrite_existing);
  fs::copy_file(bad_so.string() + ".sum", good_so.string() + ".sum", fs::copy_options::overwrite_existing);
  const auto retried = c.run({"dag", good.string()});
  INFO(describe(retried));
  CHECK(retried.succeeded());
  CHECK(retried.stderr_text.find("rebuilding it once") != std::string::npos);
  // A generator that really crashes still says so (after its one retry).
  const auto still = c.run({"dag", bad.string()});
  CHECK_FALSE(still.succeeded());
  CHECK(still.stderr_text.find("SIGSEGV") != std::string::npos);
}

TEST_CASE("cli: two processes building and scheduling one generator in one cache at once", "[e2e][cache]") {
  CliCache c("cache_shared");
  const fs::path source = c.copy_of("examples/blur/blur_generator.cpp", "shared");
  const std::string memo = (c.dir / "search.memo").string();
  hlsched::WorkerOutcome runs[2];
  std::thread other([&] { runs[1] = c.run({"schedule", "--json", "--memo-file", memo, source.string()}); });
  runs[0] = c.run({"schedule", "--json", "--memo-file", memo, source.string()});
  other.join();
  for (const auto &run : runs) {
    INFO(describe(run));
    CHECK(run.succeeded());
  }
  CHECK(c.built().size() == 1);
  CHECK(c.leftovers().empty());
  const auto after = c.run({"schedule", "--json", "--memo-file", memo, source.string()});
  INFO(describe(after));
  REQUIRE(after.succeeded());
  CHECK(stdout_json(after)["search"]["memo_entries_loaded"] > 0);  // whole files, whoever wrote last
}

TEST_CASE("cli: a worker killed or writing garbage at any point is a clear error and leaves no file", "[e2e][cache]") {
  CliCache c("worker_faults");
  const fs::path source = c.copy_of("examples/blur/blur_generator.cpp", "faults");
  const std::vector<std::string> args = {"schedule", "--json", "--time-budget", "2", source.string()};
  REQUIRE(c.run(args).succeeded());  // built and cached

  const std::string fault = GENERATE(std::string("kill-after-load"), std::string("kill-after-instantiate"),
                                     std::string("kill-after-search"), std::string("garbage-result"),
                                     std::string("partial-result"));
  const auto failed = c.run(args, {"HLSCHED_WORKER_FAULT=" + fault});
  INFO(fault << ": " << describe(failed));
  CHECK(failed.kind == hlsched::WorkerOutcome::Kind::Exited);  // the CLI itself stays in control
  CHECK_FALSE(failed.succeeded());
  if (fault.rfind("kill", 0) == 0) CHECK(failed.stderr_text.find("SIGKILL") != std::string::npos);
  else CHECK(failed.stderr_text.find("result is missing or unreadable") != std::string::npos);
  CHECK(c.leftovers().empty());
  // Without the fault, the same cache works.
  CHECK(c.run(args).succeeded());
}
