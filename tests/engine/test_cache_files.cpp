// Caches that survive damage and sharing: the generator build cache (.so and precompiled header),
// the cost memo and the warm-start file. Each is truncated, partly overwritten, replaced by a file
// of an older format, written on a full disk and shared by concurrent users; the outcome must be
// a rebuild or a clean miss, never a crash, a wrong result or a corrupted file left behind.
//
// The build-cache tests compile tiny sources against a stand-in Halide.h (a few lines), so that
// each cold build, the precompiled header included, takes well under a second.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/generator_instance.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/pipeline_walk.h"
#include "hlsched/engine/generator_build.h"
#include "hlsched/engine/worker_process.h"
#include "loader/cache_artifact.h"
#include "scratch_files.h"
#include "search/cost_memo.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using namespace hlsched;

using testing::read_text;
using testing::unique_tag;
using testing::write_text;

// A fresh folder under the build tree, removed at the end.
struct Scratch : testing::ScratchDir {
  Scratch() : ScratchDir(current_executable().parent_path() / "cache-files-test") {}
};

// The ways a file gets damaged: cut short (a crash while writing, a full disk), or a run of
// bytes in the middle overwritten (another program, a bad sector).
enum class Damage { Truncate, Overwrite, Empty };

void damage(const fs::path &path, Damage how) {
  const auto size = fs::file_size(path);
  REQUIRE(size > 16);
  switch (how) {
    case Damage::Truncate: fs::resize_file(path, size / 2); break;
    case Damage::Empty: fs::resize_file(path, 0); break;
    case Damage::Overwrite: {
      std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
      f.seekp(static_cast<std::streamoff>(size / 3));
      std::mt19937 random(42);
      for (int i = 0; i < 64 && i < int(size / 3); i++) f.put(static_cast<char>(random() | 1));
      break;
    }
  }
}

// While alive, files this process writes may not grow past `bytes` (a full disk, as a writer sees
// it: write() fails with EFBIG); children inherit the limit.
class DiskFullSimulation {
public:
  explicit DiskFullSimulation(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing the writer
    struct rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~DiskFullSimulation() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, SIG_DFL);
  }

private:
  struct rlimit saved_ {};
};

std::vector<fs::path> leftovers(const fs::path &dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto &entry : fs::recursive_directory_iterator(dir, ec))
    if (entry.path().string().find(".tmp") != std::string::npos) found.push_back(entry.path());
  return found;
}

// ---- Build cache fixtures ---------------------------------------------------------------------

// A stand-in Halide.h and a cache; sources are plain C++ that include it.
struct TinyBuildCache {
  Scratch scratch;
  fs::path halide_dir = scratch.dir / "halide";
  GeneratorBuildOptions options;

  TinyBuildCache() {
    fs::create_directories(halide_dir);
    write_text(halide_dir / "Halide.h", "#pragma once\nnamespace Halide { inline int answer() { return 42; } }\n");
    options.cache_dir = scratch.dir / "cache";
    options.halide_include_dir = halide_dir;
    options.halide_link_flags = {"-lm"};
    options.compile_time_limit = 120s;
  }

  fs::path source(const std::string &tag) {
    const fs::path path = scratch.dir / ("gen_" + tag + ".cpp");
    write_text(path, "#include \"Halide.h\"\n// " + tag + "\nextern \"C\" int hlsched_test_answer() { return Halide::answer(); }\n");
    return path;
  }

  GeneratorBuild build(const fs::path &source) {
    GeneratorBuild b = build_generator(source, options);
    INFO(b.error << "\n" << b.compiler_output);
    REQUIRE(b.ok);
    return b;
  }
};

}  // namespace

// ---- Sealed artifacts -----------------------------------------------------------------------

TEST_CASE("cache artifacts are used only while they match their seal", "[cache]") {
  Scratch scratch;
  const fs::path artifact = scratch.dir / "thing.so";
  const fs::path temporary = cache::temporary_name(artifact);
  write_text(temporary, std::string(4096, 'x') + "end");
  std::string error;
  REQUIRE(cache::publish(temporary, artifact, error));
  CHECK_FALSE(fs::exists(temporary));
  CHECK(cache::verify(artifact));

  SECTION("truncated") {
    damage(artifact, Damage::Truncate);
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("partly overwritten, same size") {
    damage(artifact, Damage::Overwrite);
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("emptied") {
    damage(artifact, Damage::Empty);
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("no seal (a cache of an older format)") {
    fs::remove(artifact.string() + ".sum");
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("a seal of another format version") {
    std::string seal = read_text(artifact.string() + ".sum");
    seal.replace(seal.find("-v1"), 3, "-v0");
    write_text(artifact.string() + ".sum", seal);
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("a seal of random bytes") {
    write_text(artifact.string() + ".sum", std::string("\x01\xff\x7f garbage", 12));
    CHECK_FALSE(cache::verify(artifact));
  }
  SECTION("discarded") {
    cache::discard(artifact);
    CHECK_FALSE(fs::exists(artifact));
    CHECK_FALSE(fs::exists(artifact.string() + ".sum"));
  }
}

TEST_CASE("publishing an artifact on a full disk leaves nothing behind", "[cache]") {
  Scratch scratch;
  const fs::path artifact = scratch.dir / "thing.so";
  const fs::path temporary = cache::temporary_name(artifact);
  write_text(temporary, "contents");
  std::string error;
  {
    DiskFullSimulation full(0);  // not even the seal fits
    CHECK_FALSE(cache::publish(temporary, artifact, error));
  }
  CHECK_FALSE(error.empty());
  CHECK_FALSE(fs::exists(artifact));
  CHECK(leftovers(scratch.dir).empty());
}

// ---- The generator build cache ----------------------------------------------------------------

TEST_CASE("a damaged cached build is rebuilt, not loaded", "[cache][generator_build]") {
  TinyBuildCache cache;
  const fs::path source = cache.source(unique_tag());
  const GeneratorBuild cold = cache.build(source);
  CHECK_FALSE(cold.cache_hit);
  CHECK(cache.build(source).cache_hit);

  const auto how = GENERATE(Damage::Truncate, Damage::Overwrite, Damage::Empty);
  damage(cold.shared_object, how);
  const GeneratorBuild again = cache.build(source);
  CHECK_FALSE(again.cache_hit);  // rebuilt
  CHECK(again.shared_object == cold.shared_object);
  CHECK(cache::verify(again.shared_object));
  CHECK(read_text(again.shared_object).substr(1, 3) == "ELF");
  CHECK(cache.build(source).cache_hit);
  CHECK(leftovers(cache.options.cache_dir).empty());
}

TEST_CASE("a cached build without a seal (an older cache) is a miss", "[cache][generator_build]") {
  TinyBuildCache cache;
  const fs::path source = cache.source(unique_tag());
  const GeneratorBuild cold = cache.build(source);
  fs::remove(cold.shared_object.string() + ".sum");
  CHECK_FALSE(cache.build(source).cache_hit);
  CHECK(cache.build(source).cache_hit);
}

TEST_CASE("rebuild replaces a cached build that passed its seal", "[cache][generator_build]") {
  TinyBuildCache cache;
  const fs::path source = cache.source(unique_tag());
  cache.build(source);
  cache.options.rebuild = true;
  const GeneratorBuild forced = cache.build(source);
  CHECK_FALSE(forced.cache_hit);
  CHECK(cache::verify(forced.shared_object));
}

TEST_CASE("a damaged precompiled header is rebuilt before it is offered", "[cache][generator_build]") {
  TinyBuildCache cache;
  const GeneratorBuild first = cache.build(cache.source(unique_tag()));
  REQUIRE_FALSE(first.precompiled_header.empty());
  REQUIRE(cache::verify(first.precompiled_header));

  damage(first.precompiled_header, GENERATE(Damage::Truncate, Damage::Overwrite));
  const GeneratorBuild second = cache.build(cache.source(unique_tag()));  // a new key: compiles
  CHECK_FALSE(second.cache_hit);
  CHECK(second.precompiled_header == first.precompiled_header);
  CHECK(cache::verify(second.precompiled_header));
  CHECK(second.compiler_output.find("Halide.h.gch") == std::string::npos);  // no -Winvalid-pch complaint
}

TEST_CASE("a build on a full disk fails cleanly and leaves no file behind", "[cache][generator_build]") {
  TinyBuildCache cache;
  cache.build(cache.source(unique_tag()));  // the precompiled header exists
  const fs::path source = cache.source(unique_tag());
  GeneratorBuild failed;
  {
    DiskFullSimulation full(64);  // the compiler's output cannot be written
    failed = build_generator(source, cache.options);
  }
  CHECK_FALSE(failed.ok);
  CHECK_FALSE(fs::exists(failed.shared_object));
  CHECK(leftovers(cache.options.cache_dir).empty());
  const GeneratorBuild after = cache.build(source);  // space again: builds
  CHECK_FALSE(after.cache_hit);
  CHECK(cache::verify(after.shared_object));
}

TEST_CASE("concurrent builds of one source share one cache safely", "[cache][generator_build]") {
  TinyBuildCache cache;
  cache.build(cache.source(unique_tag()));  // the precompiled header exists
  const fs::path source = cache.source(unique_tag());
  std::vector<GeneratorBuild> builds(4);
  std::vector<std::thread> threads;
  for (auto &b : builds) threads.emplace_back([&] { b = build_generator(source, cache.options); });
  for (auto &t : threads) t.join();
  int compiled = 0;
  for (const auto &b : builds) {
    INFO(b.error);
    CHECK(b.ok);
    CHECK(b.shared_object == builds[0].shared_object);
    compiled += !b.cache_hit;
  }
  CHECK(compiled == 1);  // the others waited for its lock and then hit
  CHECK(cache::verify(builds[0].shared_object));
  CHECK(leftovers(cache.options.cache_dir).empty());
}

// ---- The cost memo ----------------------------------------------------------------------------

namespace {

CostMemo memo_of(int entries, double cost) {
  CostMemo memo;
  for (int i = 0; i < entries; i++) memo.insert(0x9e3779b97f4a7c15ULL * uint64_t(i + 1), cost + i);
  return memo;
}

}  // namespace

TEST_CASE("the cost memo file loads nothing when damaged or foreign", "[cache][memo]") {
  Scratch scratch;
  const std::string path = (scratch.dir / "search.memo").string();
  REQUIRE(memo_of(500, 1.0).save(path));
  CHECK(CostMemo().load(path) == 500);

  SECTION("truncated") { damage(path, Damage::Truncate); }
  SECTION("partly overwritten") { damage(path, Damage::Overwrite); }
  SECTION("emptied") { damage(path, Damage::Empty); }
  SECTION("random bytes") {
    std::mt19937 random(7);
    std::string bytes(8016, '\0');
    for (char &c : bytes) c = static_cast<char>(random());
    write_text(path, bytes);
  }
  SECTION("an older format version") {
    std::string contents = read_text(path);
    const size_t version = contents.find("cost-memo-v") + 11;  // whatever the current one is
    REQUIRE(version < contents.find('\n'));
    contents.replace(version, contents.find('\n') - version, "1");
    write_text(path, contents);
  }
  SECTION("the right header and a wrong record count") {
    std::string contents = read_text(path);
    contents[contents.find('\n') + 1] ^= 0x40;
    write_text(path, contents);
  }
  CostMemo memo;
  CHECK(memo.load(path) == 0);
  CHECK(memo.size() == 0);
}

TEST_CASE("a cost memo that cannot be written keeps the old file", "[cache][memo]") {
  Scratch scratch;
  const std::string path = (scratch.dir / "search.memo").string();
  REQUIRE(memo_of(10, 1.0).save(path));
  {
    DiskFullSimulation full(1000);  // 10,000 entries need 160 kB
    CHECK_FALSE(memo_of(10000, 2.0).save(path));
  }
  CHECK(CostMemo().load(path) == 10);
  CHECK(leftovers(scratch.dir).empty());
  CHECK_FALSE(memo_of(1, 1.0).save((scratch.dir / "no-such-dir" / "search.memo").string()));
}

TEST_CASE("concurrent writers and readers of one memo file never see a torn file", "[cache][memo]") {
  Scratch scratch;
  const std::string path = (scratch.dir / "search.memo").string();
  REQUIRE(memo_of(3000, 1.0).save(path));
  std::atomic<bool> stop{false};
  std::atomic<int> bad_loads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; w++)
    threads.emplace_back([&, w] {
      const CostMemo memo = memo_of(w ? 3000 : 1000, 1.0);
      for (int i = 0; i < 40; i++) memo.save(path);
    });
  threads.emplace_back([&] {
    while (!stop) {
      const size_t loaded = CostMemo().load(path);
      if (loaded != 1000 && loaded != 3000) bad_loads++;
    }
  });
  threads[0].join();
  threads[1].join();
  stop = true;
  threads[2].join();
  CHECK(bad_loads == 0);
  CHECK(leftovers(scratch.dir).empty());
}

// ---- The memo and warm start through the search -----------------------------------------------

TEST_CASE("a search with a damaged memo or warm-start file finds the cold schedule", "[cache][memo][search]") {
  Scratch scratch;
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {{"radius", "2"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.model = "hand";  // one search's two files (model=both keeps a pair per model)
  options.seed = 3;
  options.work_budget = 600;
  options.time_budget_s = 600;
  options.memo_path = (scratch.dir / "search.memo").string();
  const ScheduleResult cold = schedule_pipeline(inst.pipeline, dag, options);
  REQUIRE(fs::exists(options.memo_path));
  REQUIRE(fs::exists(options.memo_path + ".warm"));
  const ScheduleResult warm = schedule_pipeline(inst.pipeline, dag, options);
  CHECK(warm.search.memo_entries_loaded > 0);
  CHECK(warm.search.warm_start_funcs > 0);

  const std::string which = GENERATE(std::string(""), std::string(".warm"));
  const auto how = GENERATE(Damage::Truncate, Damage::Overwrite);
  damage(options.memo_path + which, how);
  const ScheduleResult damaged = schedule_pipeline(inst.pipeline, dag, options);
  // A damaged memo: the warm start still applies (the memo never changes a result). A damaged
  // warm start: a cold search.
  if (which.empty()) CHECK(damaged.search.memo_entries_loaded == 0);
  else CHECK(damaged.search.warm_start_funcs == 0);
  CHECK(damaged.schedule_code == (which.empty() ? warm : cold).schedule_code);
  // The search wrote both files again, whole.
  CHECK(CostMemo().load(options.memo_path) > 0);
  CHECK(schedule_pipeline(inst.pipeline, dag, options).search.warm_start_funcs > 0);
}

// ---- A compiler that is missing or crashes ----------------------------------------------------

TEST_CASE("a missing or crashing compiler fails the build cleanly", "[cache][generator_build][worker]") {
  TinyBuildCache cache;
  const fs::path source = cache.source(unique_tag());
  SECTION("missing") {
    cache.options.compiler = (cache.scratch.dir / "no-such-compiler").string();
    const GeneratorBuild b = build_generator(source, cache.options);
    CHECK_FALSE(b.ok);
    CHECK(b.error.find("cannot run the compiler") != std::string::npos);
  }
  SECTION("crashing") {
    // Answers --version like a compiler, then dies of SIGSEGV when asked to compile.
    const fs::path compiler = cache.scratch.dir / "crashing-g++";
    write_text(compiler, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'crashing-g++ 1.0'; exit 0; }\nkill -SEGV $$\n");
    fs::permissions(compiler, fs::perms::owner_all);
    cache.options.compiler = compiler.string();
    const GeneratorBuild b = build_generator(source, cache.options);
    CHECK_FALSE(b.ok);
    CHECK(b.error.find("the compiler crashed with SIGSEGV") != std::string::npos);
    CHECK(leftovers(cache.options.cache_dir).empty());
    CHECK_FALSE(fs::exists(b.shared_object));
  }
}
