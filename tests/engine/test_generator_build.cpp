// build_generator(): compiling examples/blur into a .so (cold, then a cache hit), the precompiled
// Halide.h really being used, compiler diagnostics, cache keys.
//
// All tests share one cache under the build directory (never ~/.cache), kept between runs so that
// the slow part, precompiling Halide.h, happens once per build tree. Tests that need a cold build
// compile a copy of their source with a unique comment, which gives it a key never seen before.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "hlsched/engine/generator_build.h"
#include "hlsched/engine/generator_instance.h"
#include "hlsched/engine/worker_process.h"
#include "scratch_files.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path test_root() { return hlsched::current_executable().parent_path() / "generator-build-test"; }

// The options every test uses: the shared cache.
hlsched::GeneratorBuildOptions test_options() {
  hlsched::GeneratorBuildOptions options;
  options.cache_dir = test_root() / "cache";
  options.compile_time_limit = 120s;
  return options;
}

// Not from __FILE__: with ccache's base_dir the compiler sees a relative path.
fs::path repository_root() { return HLSCHED_SOURCE_DIR; }

using hlsched::testing::read_text;
using hlsched::testing::unique_tag;
using hlsched::testing::write_text;

// A fresh directory for a test's sources, removed (with the .so files registered in it) at the end.
struct Scratch : hlsched::testing::ScratchDir {
  std::vector<fs::path> built;
  Scratch() : ScratchDir(test_root() / "sources") {}
  ~Scratch() {
    std::error_code ec;
    for (const auto &so : built) fs::remove(so, ec);
  }
  fs::path write(const std::string &name, const std::string &text) {
    write_text(dir / name, text);
    return dir / name;
  }
};

std::string describe(const hlsched::GeneratorBuild &build) {
  return "error: " + build.error + "\ncommand: " + build.command_line + "\noutput:\n" + build.compiler_output;
}

bool has_errors(const hlsched::GeneratorBuild &build) {
  return std::any_of(build.diagnostics.begin(), build.diagnostics.end(),
                     [](const auto &d) { return d.severity == "error" || d.severity == "fatal error"; });
}

}  // namespace

TEST_CASE("build_generator compiles blur into a .so that registers it and then hits the cache", "[generator_build]") {
  Scratch scratch;
  const auto source = scratch.write("blur_generator.cpp", read_text(repository_root() / "examples/blur/blur_generator.cpp") +
                                                              "\n// " + unique_tag() + "\n");
  const auto cold = hlsched::build_generator(source, test_options());
  INFO(describe(cold));
  REQUIRE(cold.ok);
  scratch.built.push_back(cold.shared_object);
  CHECK_FALSE(cold.cache_hit);
  CHECK(fs::is_regular_file(cold.shared_object));
  CHECK(cold.shared_object.parent_path() == test_options().cache_dir / "generators");
  CHECK_FALSE(has_errors(cold));
  // -Winvalid-pch is on: a rejected Halide.h.gch would show up here.
  CHECK(cold.compiler_output.find("gch") == std::string::npos);
  CHECK_FALSE(cold.precompiled_header.empty());
  std::cout << "blur: cold build " << cold.seconds << " s (of which PCH " << cold.pch_seconds << " s)\n";

  const auto built_at = fs::last_write_time(cold.shared_object);
  const auto hit = hlsched::build_generator(source, test_options());
  REQUIRE(hit.ok);
  CHECK(hit.cache_hit);
  CHECK(hit.shared_object == cold.shared_object);
  // Not compiled again: the file is the one the cold build wrote. (Not a time bound: a hit takes
  // milliseconds, but on a loaded machine any bound can fail.)
  CHECK(fs::last_write_time(hit.shared_object) == built_at);
  std::cout << "blur: cache hit " << hit.seconds << " s\n";

  // dlopen() in a child: this test executable, re-run as the hidden test case below. (Isolation:
  // registering "blur" in this process could clash with other tests.)
  const auto outcome = hlsched::run_worker(
      {"/usr/bin/env", "HLSCHED_TEST_GENERATOR_SO=" + cold.shared_object.string(),
       hlsched::current_executable().string(), "generator_build child: dlopen"},
      {});
  INFO(outcome.describe() << "\n" << outcome.stdout_text << outcome.stderr_text);
  CHECK(outcome.succeeded());
  CHECK(outcome.stdout_text.find("registered: blur\n") != std::string::npos);
}

// Run only as the child of the test above (hidden: the "[.]" tag).
TEST_CASE("generator_build child: dlopen", "[.]") {
  const char *path = std::getenv("HLSCHED_TEST_GENERATOR_SO");
  REQUIRE(path);
  void *handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  INFO((handle ? "" : ::dlerror()));
  REQUIRE(handle);
  for (const auto &name : hlsched::registered_generators()) std::cout << "registered: " << name << "\n";
  std::cout.flush();
}

TEST_CASE("build_generator really uses the precompiled Halide.h", "[generator_build]") {
  Scratch scratch;
  const auto source = scratch.write("tiny_generator.cpp", "#include \"Halide.h\"\n// " + unique_tag() + "\n");
  const auto build = hlsched::build_generator(source, test_options());
  INFO(describe(build));
  REQUIRE(build.ok);
  scratch.built.push_back(build.shared_object);
  REQUIRE(fs::is_regular_file(build.precompiled_header));

  // Same command with -H (lists the headers used; "!" marks a valid precompiled header) and
  // -fsyntax-only (nothing is written).
  auto command = build.command;
  command.insert(command.begin() + 1, {"-H", "-fsyntax-only"});
  const auto outcome = hlsched::run_worker(command, {});
  INFO(outcome.stderr_text.substr(0, 2000));
  CHECK(outcome.succeeded());
  CHECK(outcome.stderr_text.find("! " + build.precompiled_header.string()) != std::string::npos);
}

TEST_CASE("build_generator uses the precompiled Halide.h after system headers, and keeps other orders", "[generator_build]") {
  Scratch scratch;
  // Like examples/stencil_chain: GCC ignores a .gch unless it is the first include, so the build
  // includes Halide.h first (-include), which changes nothing for such a source.
  const auto after_std = scratch.write("after_std_generator.cpp", "// a comment\n/* and a\n block */\n#include <vector>\n\n"
                                       "#include \"Halide.h\"\n// " + unique_tag() + "\nstd::vector<Halide::Expr> v;\n");
  const auto build = hlsched::build_generator(after_std, test_options());
  INFO(describe(build));
  REQUIRE(build.ok);
  scratch.built.push_back(build.shared_object);
  auto command = build.command;
  command.insert(command.begin() + 1, {"-H", "-fsyntax-only"});
  const auto outcome = hlsched::run_worker(command, {});
  INFO(outcome.stderr_text.substr(0, 2000));
  CHECK(outcome.succeeded());
  CHECK(outcome.stderr_text.find("! " + build.precompiled_header.string()) != std::string::npos);

  // A macro before Halide.h may change what it means: no forced include then.
  const auto with_macro = scratch.write("macro_generator.cpp", "#define HLSCHED_TEST_MACRO 1\n#include \"Halide.h\"\n// " +
                                        unique_tag() + "\n");
  const auto kept = hlsched::build_generator(with_macro, test_options());
  INFO(describe(kept));
  CHECK(kept.ok);
  if (kept.ok) scratch.built.push_back(kept.shared_object);
  CHECK(std::find(kept.command.begin(), kept.command.end(), "-include") == kept.command.end());
}

TEST_CASE("build_generator with clang links the precompiled Halide.h's code into the generator", "[generator_build]") {
  // What the analyses use when clang++-14 is installed (scripts/setup.sh installs it).
  auto options = test_options();
  options.compiler = "clang++-14";
  Scratch scratch;
  const auto source = scratch.write("blur_generator.cpp", "#include <vector>\n" +
                                    read_text(repository_root() / "examples/blur/blur_generator.cpp") + "\n// " +
                                    unique_tag() + "\n");
  const auto build = hlsched::build_generator(source, options);
  INFO(describe(build));
  REQUIRE(build.ok);
  scratch.built.push_back(build.shared_object);
  CHECK(build.precompiled_header.extension() == ".pch");
  CHECK(build.compiler_output.find("pch") == std::string::npos);  // not rejected (-Winvalid-pch)
  const auto pch = std::find(build.command.begin(), build.command.end(), "-include-pch");
  REQUIRE(pch != build.command.end());
  CHECK(*(pch + 1) == build.precompiled_header.string());
  // -fpch-codegen: the generator calls Halide's inline functions in the PCH's object file, which
  // the build links in; without it the .so would not load.
  CHECK(std::find(build.command.begin(), build.command.end(), build.precompiled_header.string() + ".o") !=
        build.command.end());
  const auto outcome = hlsched::run_worker(
      {"/usr/bin/env", "HLSCHED_TEST_GENERATOR_SO=" + build.shared_object.string(),
       hlsched::current_executable().string(), "generator_build child: dlopen"},
      {});
  INFO(outcome.describe() << "\n" << outcome.stdout_text << outcome.stderr_text);
  CHECK(outcome.succeeded());
  CHECK(outcome.stdout_text.find("registered: blur\n") != std::string::npos);

  // Where Halide.h cannot come first, Clang builds without the PCH (and without its code).
  const auto with_macro = scratch.write("macro_generator.cpp", "#define HLSCHED_TEST_MACRO 1\n#include \"Halide.h\"\n// " +
                                        unique_tag() + "\n");
  const auto kept = hlsched::build_generator(with_macro, options);
  INFO(describe(kept));
  CHECK(kept.ok);
  if (kept.ok) scratch.built.push_back(kept.shared_object);
  CHECK(std::find(kept.command.begin(), kept.command.end(), "-include-pch") == kept.command.end());
  CHECK(kept.precompiled_header.empty());
}

TEST_CASE("build_generator accepts Halide.h included twice with the precompiled header", "[generator_build]") {
  Scratch scratch;
  scratch.write("helpers.h", "#pragma once\n#include \"Halide.h\"\ninline Halide::Expr twice(Halide::Expr e) { return e * 2; }\n");
  const auto source = scratch.write("twice_generator.cpp", "#include \"Halide.h\"\n#include \"helpers.h\"\n// " +
                                                               unique_tag() + "\nHalide::Expr use = twice(1);\n");
  const auto build = hlsched::build_generator(source, test_options());
  INFO(describe(build));
  CHECK(build.ok);
  if (build.ok) scratch.built.push_back(build.shared_object);
  CHECK(fs::is_regular_file(build.precompiled_header));
}

TEST_CASE("build_generator reports compile errors with file line and column", "[generator_build]") {
  Scratch scratch;
  const auto source = scratch.write("broken_generator.cpp",
                                    "#include \"Halide.h\"\n"
                                    "// " + unique_tag() + "\n"
                                    "int broken() {\n"
                                    "  int x = ;\n"
                                    "  return x;\n"
                                    "}\n");
  const auto build = hlsched::build_generator(source, test_options());
  INFO(describe(build));
  CHECK_FALSE(build.ok);
  CHECK_FALSE(build.cache_hit);
  CHECK_FALSE(fs::exists(build.shared_object));
  CHECK_THAT(build.error, Catch::Contains("broken_generator.cpp") && Catch::Contains("exited with code"));
  CHECK_THAT(build.compiler_output, Catch::Contains("int x = ;"));  // the raw text, caret lines included
  REQUIRE_FALSE(build.diagnostics.empty());
  const auto &first = build.diagnostics.front();
  CHECK(first.file == source.string());
  CHECK(first.line == 4);
  CHECK(first.column == 11);
  CHECK(first.severity == "error");
  CHECK_THAT(first.message, Catch::Contains("expected"));

  // Failures are not cached.
  CHECK_FALSE(hlsched::build_generator(source, test_options()).cache_hit);
}

TEST_CASE("build_generator's cache key follows the source and its local headers", "[generator_build]") {
  // No Halide in these sources: they compile in a fraction of a second.
  Scratch scratch;
  const std::string tag = unique_tag();
  scratch.write("local.h", "inline int value() { return 1; }\n");
  const auto source = scratch.write("plain.cpp", "#include \"local.h\"\n// " + tag + "\nint f() { return value(); }\n");

  const auto first = hlsched::build_generator(source, test_options());
  INFO(describe(first));
  REQUIRE(first.ok);
  scratch.built.push_back(first.shared_object);
  CHECK_FALSE(first.cache_hit);
  CHECK(first.precompiled_header.empty());  // no Halide.h, no PCH
  CHECK(hlsched::build_generator(source, test_options()).cache_hit);

  SECTION("a changed source misses") {
    write_text(source, read_text(source) + "int g() { return 2; }\n");
    const auto changed = hlsched::build_generator(source, test_options());
    REQUIRE(changed.ok);
    scratch.built.push_back(changed.shared_object);
    CHECK_FALSE(changed.cache_hit);
    CHECK(changed.shared_object != first.shared_object);
  }
  SECTION("a changed local header misses") {
    scratch.write("local.h", "inline int value() { return 2; }\n");
    const auto changed = hlsched::build_generator(source, test_options());
    REQUIRE(changed.ok);
    scratch.built.push_back(changed.shared_object);
    CHECK_FALSE(changed.cache_hit);
  }
  SECTION("different flags miss") {
    auto options = test_options();
    options.extra_flags = {"-DHLSCHED_TEST_FLAG=1"};
    const auto changed = hlsched::build_generator(source, options);
    REQUIRE(changed.ok);
    scratch.built.push_back(changed.shared_object);
    CHECK_FALSE(changed.cache_hit);
  }
}

TEST_CASE("build_generator fails cleanly without a source or a compiler", "[generator_build]") {
  auto build = hlsched::build_generator(test_root() / "no-such-generator.cpp", test_options());
  CHECK_FALSE(build.ok);
  CHECK_THAT(build.error, Catch::Contains("no-such-generator.cpp"));

  Scratch scratch;
  const auto source = scratch.write("plain.cpp", "int f() { return 1; }\n");
  auto options = test_options();
  options.compiler = "hlsched-no-such-compiler";
  build = hlsched::build_generator(source, options);
  CHECK_FALSE(build.ok);
  CHECK_THAT(build.error, Catch::Contains("hlsched-no-such-compiler"));
}

TEST_CASE("parse_compiler_diagnostics", "[generator_build]") {
  const std::string output =
      "In file included from /src/gen.cpp:2:\n"
      "/src/local.h:7:3: error: 'foo' was not declared in this scope; did you mean 'for'?\n"
      "    7 |   foo(x: 1);\n"
      "      |   ^~~\n"
      "/src/gen.cpp:12:5:   required from here\n"
      "/src/gen.cpp:20:1: note: in definition of macro 'X'\n"
      "/src/gen.cpp:3:10: fatal error: missing.h: No such file or directory\n"
      "cc1plus: warning: command-line option '-Wfoo' is valid for C but not for C++\n"
      "/tmp/gen.o:/src/gen.cpp:30: warning: weird linker thing\n";
  const auto diagnostics = hlsched::parse_compiler_diagnostics(output);
  REQUIRE(diagnostics.size() == 5);
  CHECK(diagnostics[0].file == "/src/local.h");
  CHECK(diagnostics[0].line == 7);
  CHECK(diagnostics[0].column == 3);
  CHECK(diagnostics[0].severity == "error");
  CHECK(diagnostics[0].message == "'foo' was not declared in this scope; did you mean 'for'?");
  CHECK(diagnostics[1].severity == "note");
  CHECK(diagnostics[2].severity == "fatal error");
  CHECK(diagnostics[2].message == "missing.h: No such file or directory");
  CHECK(diagnostics[3].file == "cc1plus");
  CHECK(diagnostics[3].line == 0);
  CHECK(diagnostics[4].file == "/tmp/gen.o:/src/gen.cpp");
  CHECK(diagnostics[4].line == 30);
  CHECK(diagnostics[4].column == 0);
}

TEST_CASE("default_cache_dir follows HLSCHED_CACHE_DIR then XDG_CACHE_HOME then HOME", "[generator_build]") {
  // Saves and restores the variables: other tests in this process read them.
  struct SavedVariable {
    std::string name;
    bool had = false;
    std::string value;
    explicit SavedVariable(std::string n) : name(std::move(n)) {
      if (const char *v = std::getenv(name.c_str())) had = true, value = v;
    }
    ~SavedVariable() { had ? ::setenv(name.c_str(), value.c_str(), 1) : ::unsetenv(name.c_str()); }
  } cache("HLSCHED_CACHE_DIR"), xdg("XDG_CACHE_HOME"), home("HOME");

  ::setenv("HOME", "/home/someone", 1);
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HLSCHED_CACHE_DIR", "/explicit", 1);
  CHECK(hlsched::default_cache_dir() == "/explicit");
  ::unsetenv("HLSCHED_CACHE_DIR");
  CHECK(hlsched::default_cache_dir() == "/xdg/hlsched");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(hlsched::default_cache_dir() == "/home/someone/.cache/hlsched");
}

TEST_CASE("the default Halide include dir has Halide.h", "[generator_build]") {
  CHECK(fs::exists(hlsched::default_halide_include_dir() / "Halide.h"));
  CHECK_FALSE(hlsched::default_halide_link_flags().empty());
}
