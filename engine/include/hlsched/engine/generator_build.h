// Compiling a user's Halide generator source (.cpp) into a shared object that registers its
// generators when dlopen()ed (see generator_instance.h for what to do with them then).
//
// The compiler runs as a child process (worker_process.h) with a time limit. Two caches make
// repeated builds cheap, both under GeneratorBuildOptions::cache_dir:
//   <cache>/pch/<key>/Halide.h.gch   Halide.h precompiled once per (compiler, flags, Halide.h);
//                                    Halide.h is ~1.2 MB of templates, most of a generator's
//                                    compile time (the .gch is ~130 MB). Built and offered only to
//                                    sources that include Halide.h; GCC uses it only when it is
//                                    their first include (nothing but preprocessor directives may
//                                    come before a precompiled header), else silently parses
//                                    Halide.h as usual.
//   <cache>/generators/<key>.so      one per distinct build; a hit skips the compiler entirely.
// The .so key hashes (XXH3-64): the source's contents, the contents of the files it includes as
// `#include "name"` that exist next to it (one level: headers they include in turn are NOT part
// of the key), the compiler's identity (`<compiler> --version`), every flag, and Halide.h's
// contents. Both files are sealed with their size and checksum, written under a temporary name
// and renamed into place, and built under a file lock (loader/cache_artifact.h): a damaged or
// half-written file is a miss and is built again, and concurrent hlsched processes never see a
// half-written one nor build the same file twice at once.
//
// Threading: build_generator() may be called from several threads (and processes) at once.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace hlsched {

/// One "file:line:col: severity: message" line of compiler output.
struct CompilerDiagnostic {
  std::string file;      ///< as the compiler printed it (the source is passed as an absolute path)
  int line = 0;          ///< 0 when the compiler gave none (e.g. "cc1plus: error: ...")
  int column = 0;        ///< 0 when the compiler gave none
  std::string severity;  ///< "error", "warning", "note" or "fatal error"
  std::string message;
};

struct GeneratorBuildOptions {
  /// Where the PCH and the built .so files live; default_cache_dir() when empty.
  std::filesystem::path cache_dir;
  /// Compiler driver, looked up in PATH when it has no '/'. Must understand GCC's flags.
  std::string compiler = "g++";
  /// Extra compiler flags, e.g. "-I/some/dir", "-DFOO=1". Part of both cache keys.
  std::vector<std::string> extra_flags;
  /// For each compiler run (the PCH build and the generator build each get this much).
  std::chrono::seconds compile_time_limit{300};
  /// Directory with Halide.h; default_halide_include_dir() when empty.
  std::filesystem::path halide_include_dir;
  /// What links the generator against Halide; default_halide_link_flags() when empty.
  std::vector<std::string> halide_link_flags;
  /// Build and offer <cache>/pch/<key>/Halide.h.gch. Off: every build parses Halide.h itself.
  bool use_precompiled_header = true;
  /// Checked while the compiler runs; when set, the compiler is killed and the build fails.
  const std::atomic<bool> *cancel = nullptr;
  /// Build even when the cache has this .so, and replace it: for a worker that crashed loading
  /// a cached build (damage the seal cannot see, e.g. a file changed under the same seal).
  bool rebuild = false;
};

struct GeneratorBuild {
  bool ok = false;
  std::filesystem::path shared_object;  ///< the cached .so (valid when ok)
  std::string compiler_output;          ///< raw stderr+stdout of the generator compile
  std::vector<CompilerDiagnostic> diagnostics;  ///< parsed from compiler_output
  std::string error;  ///< why it failed when it is not (only) the compiler's fault: missing
                      ///< source, compiler not found, time limit, unwritable cache, ...
  bool cache_hit = false;
  double seconds = 0;      ///< wall time of the whole call
  double pch_seconds = 0;  ///< part of `seconds` spent building the PCH (0 when it was cached)
  std::filesystem::path precompiled_header;  ///< the .gch offered to the compiler; empty if none
  std::vector<std::string> command;  ///< the generator compile's argv (output: a temporary name)
  std::string command_line;          ///< `command`, shell-quoted, for logs and error reports
};

/// Compiles `source` into `<cache>/generators/<key>.so`, or finds it there. Never throws for
/// anything the user can get wrong (syntax errors, missing files, bad flags, unwritable cache):
/// those come back as ok=false with `error` and/or `diagnostics` set.
GeneratorBuild build_generator(const std::filesystem::path &source, const GeneratorBuildOptions &options);

/// The compiler that hlsched's analyses build generators with: $HLSCHED_GENERATOR_COMPILER when
/// set, else clang++-14 when it is on PATH (its precompiled Halide.h carries the code of Halide's
/// inline functions: a generator builds in about half of g++'s time), else g++.
std::string default_generator_compiler();

/// $HLSCHED_CACHE_DIR, else $XDG_CACHE_HOME/hlsched, else ~/.cache/hlsched (HOME from the
/// environment, then the password database).
std::filesystem::path default_cache_dir();

/// $HLSCHED_HALIDE_INCLUDE_DIR, else the Halide hlsched was built with (configured by CMake),
/// else the first of /usr/include/halide14, /usr/local/include, /usr/include with a Halide.h.
std::filesystem::path default_halide_include_dir();

/// The Halide library hlsched was built with (configured by CMake), else {"-lHalide14"}.
std::vector<std::string> default_halide_link_flags();

/// Parses GCC/Clang-style "file:line:col: severity: message" lines; other lines are skipped.
std::vector<CompilerDiagnostic> parse_compiler_diagnostics(const std::string &output);

}  // namespace hlsched
