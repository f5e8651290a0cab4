#include "hlsched/engine/generator_build.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "hlsched/engine/worker_process.h"
#include "loader/cache_artifact.h"

namespace hlsched {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Bump when the layout of the cache or the meaning of a key changes.
constexpr const char *kCacheFormat = "hlsched-generator-cache-v2";  // v2: sealed artifacts

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool read_file(const fs::path &path, std::string &contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  contents = buffer.str();
  return true;
}

// XXH3-64 over a sequence of fields. Each field is length-prefixed so that ("ab","c") and
// ("a","bc") hash differently.
class KeyHasher {
public:
  KeyHasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_);
  }
  ~KeyHasher() { XXH3_freeState(state_); }
  KeyHasher(const KeyHasher &) = delete;
  KeyHasher &operator=(const KeyHasher &) = delete;

  KeyHasher &add(const std::string &field) {
    const std::uint64_t size = field.size();
    XXH3_64bits_update(state_, &size, sizeof size);
    XXH3_64bits_update(state_, field.data(), field.size());
    return *this;
  }
  KeyHasher &add(const std::vector<std::string> &fields) {
    add(std::to_string(fields.size()));
    for (const auto &field : fields) add(field);
    return *this;
  }

  std::string hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(XXH3_64bits_digest(state_)));
    return text;
  }

private:
  XXH3_state_t *state_;
};

std::string hash_of(const std::string &text) {
  return KeyHasher().add(text).hex();
}

std::string shell_quote(const std::string &word) {
  const bool plain = !word.empty() && word.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string join_command(const std::vector<std::string> &argv) {
  std::string line;
  for (const auto &word : argv) line += (line.empty() ? "" : " ") + shell_quote(word);
  return line;
}

// ---------------------------------------------------------------------------------------------
// Key ingredients (each computed once per process: the compiler's identity and Halide.h's hash
// do not change while we run, and computing them costs a process launch or a 1.2 MB read).

// First line of `<compiler> --version`, e.g. "g++ (Debian 12.2.0-14) 12.2.0". Empty + `error`
// when the compiler cannot be run.
std::string compiler_identity(const std::string &compiler, std::string &error) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(compiler); it != known.end()) return it->second;
  }
  WorkerLimits limits;
  limits.time_limit = std::chrono::seconds(30);
  const WorkerOutcome outcome = run_worker({compiler, "--version"}, limits);
  if (!outcome.succeeded()) {
    error = "cannot run the compiler '" + compiler + "': it " + outcome.describe();
    return {};
  }
  const std::string identity = outcome.stdout_text.substr(0, outcome.stdout_text.find('\n'));
  std::lock_guard<std::mutex> lock(mutex);
  known[compiler] = identity;
  return identity;
}

// Hash of Halide.h's contents: stands for "the Halide version" (and catches a reinstall).
// Re-read when the file's size or modification time changes.
std::string halide_header_hash(const fs::path &header, std::string &error) {
  struct stat st {};
  if (::stat(header.c_str(), &st) != 0) {
    error = "no Halide.h at " + header.string() + " (set halide_include_dir or $HLSCHED_HALIDE_INCLUDE_DIR)";
    return {};
  }
  const std::string stamp = header.string() + "|" + std::to_string(st.st_size) + "|" + std::to_string(st.st_mtim.tv_sec) +
                            "." + std::to_string(st.st_mtim.tv_nsec);
  static std::mutex mutex;
  static std::map<std::string, std::string> known;  // stamp -> hash
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(stamp); it != known.end()) return it->second;
  }
  std::string contents;
  if (!read_file(header, contents)) {
    error = "cannot read " + header.string();
    return {};
  }
  const std::string hash = hash_of(contents);
  std::lock_guard<std::mutex> lock(mutex);
  known[stamp] = hash;
  return hash;
}

// Names in the `#include "name"` (quote = '"') or `#include <name>` (quote = '<') lines of
// `source_text`. A line-based scan, not a preprocessor: good enough for a cache key (a
// commented-out include only costs a spurious miss) and for deciding whether to offer the PCH.
std::vector<std::string> included_names(const std::string &source_text, char quote) {
  const char close_quote = quote == '<' ? '>' : quote;
  std::vector<std::string> names;
  std::istringstream lines(source_text);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string::npos || line[i] != quote) continue;
    const std::size_t close = line.find(close_quote, i + 1);
    if (close != std::string::npos) names.push_back(line.substr(i + 1, close - i - 1));
  }
  return names;
}

// Whether the source includes Halide.h at all: the PCH (built once, ~130 MB) is only worth
// building and offering then.
bool includes_halide(const std::string &source_text) {
  for (char quote : {'"', '<'})
    for (const auto &name : included_names(source_text, quote))
      if (name == "Halide.h") return true;
  return false;
}

// Whether Halide.h may be included before everything else in `source_text` without changing its
// meaning: before its #include there are only comments, blank lines and #include <...> of system
// headers (Halide.h includes the standard library itself, and has an include guard). GCC uses a
// precompiled header only as the first thing a file includes; forcing Halide.h first (-include)
// lets a source that starts with `#include <vector>` use it too, which saves most of its build.
bool halide_may_come_first(const std::string &source_text) {
  std::istringstream lines(source_text);
  std::string line;
  bool in_comment = false;
  while (std::getline(lines, line)) {
    const std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    const std::string text = line.substr(start);
    if (in_comment || text.rfind("/*", 0) == 0) {
      in_comment = text.find("*/", in_comment ? 0 : 2) == std::string::npos;
      continue;
    }
    if (text.rfind("//", 0) == 0) continue;
    const std::vector<std::string> system = included_names(text, '<'), local = included_names(text, '"');
    if ((system.size() == 1 && system[0] == "Halide.h") || (local.size() == 1 && local[0] == "Halide.h")) return true;
    if (system.size() != 1) return false;  // code, a macro, or a local header: keep the source's order
  }
  return false;
}

// Adds the contents of the local headers the source includes (one level deep) to the key.
void add_local_headers(KeyHasher &key, const std::string &source_text, const fs::path &source_dir) {
  for (const auto &name : included_names(source_text, '"')) {
    std::string contents;
    if (read_file(source_dir / name, contents)) key.add(name).add(contents);
  }
}

// ---------------------------------------------------------------------------------------------
// Flags

// Flags shared by the PCH build and the generator build. GCC only accepts a PCH built with the
// same code-generation flags and macro definitions, so both builds take exactly these.
std::vector<std::string> common_compile_flags(const GeneratorBuildOptions &options) {
  // -O0: the generator's code runs once per analysis to build a pipeline (the search runs in the
  // worker's own code), so optimizing it only lengthens every edit's build (docs/PERFORMANCE.md).
  std::vector<std::string> flags = {"-std=c++17", "-fPIC", "-O0", "-g0", "-fdiagnostics-color=never",
                                    "-Winvalid-pch"};  // says so when a .gch is found but rejected
  flags.insert(flags.end(), options.extra_flags.begin(), options.extra_flags.end());
  return flags;
}

// ---------------------------------------------------------------------------------------------
// Precompiled Halide.h

bool is_clang(const std::string &compiler_id) { return compiler_id.find("clang") != std::string::npos; }

// Clang's precompiled Halide.h also carries Halide's templates instantiated once
// (-fpch-instantiate-templates) and the code of its inline functions, compiled once into an
// object file (-fpch-codegen): a generator build then compiles only the user's code, half the
// time of g++ with its .gch (docs/PERFORMANCE.md, "Edit latency, third round").
const std::vector<std::string> kClangPchFlags = {"-fpch-instantiate-templates", "-fpch-codegen"};

struct PchResult {
  fs::path directory;  // to put first on the include path; empty: build without a PCH
  fs::path file;
  fs::path code_object;  // Clang: the PCH's compiled inline functions, linked into each generator
  double build_seconds = 0;
};

// Runs one step of the PCH build into a temporary file and publishes it as `artifact`.
bool build_pch_artifact(std::vector<std::string> command, const fs::path &artifact, const GeneratorBuildOptions &options) {
  std::error_code ec;
  const fs::path temporary = cache::temporary_name(artifact);
  command.insert(command.end(), {"-o", temporary.string()});
  spdlog::debug("precompiling Halide.h: {}", join_command(command));
  WorkerLimits limits;
  limits.time_limit = options.compile_time_limit;
  limits.cancel = options.cancel;
  const WorkerOutcome outcome = run_worker(command, limits);
  if (!outcome.succeeded()) {
    fs::remove(temporary, ec);
    spdlog::warn("precompiling Halide.h failed (the compiler {}); compiling without it:\n{}", outcome.describe(),
                 outcome.stderr_text);
    return false;
  }
  std::string error;
  if (!cache::publish(temporary, artifact, error)) {
    spdlog::warn("{}; compiling without a precompiled Halide.h", error);
    return false;
  }
  return true;
}

// Finds or builds <cache>/pch/<key>/Halide.h.gch (GCC), or Halide.h.pch and Halide.h.pch.o
// (Clang). A failed PCH build is not fatal: the generator build then parses Halide.h itself, and
// reports any real problem with the flags.
PchResult ensure_precompiled_halide(const GeneratorBuildOptions &options, const fs::path &cache_dir,
                                    const fs::path &halide_dir, const std::string &compiler_id,
                                    const std::string &halide_hash) {
  const bool clang = is_clang(compiler_id);
  const std::vector<std::string> flags = common_compile_flags(options);
  const std::string key =
      KeyHasher().add(kCacheFormat).add("pch").add(options.compiler).add(compiler_id).add(flags).add(halide_hash).hex();
  PchResult result;
  const fs::path directory = cache_dir / "pch" / key;
  const fs::path gch = directory / (clang ? "Halide.h.pch" : "Halide.h.gch");
  const fs::path code_object = directory / "Halide.h.pch.o";
  const auto built = [&] { return cache::verify(gch) && (!clang || cache::verify(code_object)); };
  std::error_code ec;
  if (!built()) {
    fs::create_directories(directory, ec);
    if (ec) {
      spdlog::warn("cannot create {}: {}; compiling without a precompiled Halide.h", directory.string(), ec.message());
      return result;
    }
    const auto start = Clock::now();
    cache::ArtifactLock lock(gch, options.cancel);
    if (lock.cancelled()) return result;
    if (!built()) {  // someone else may have built it while we waited for the lock
      cache::discard(gch);  // missing, damaged or half-published: build it again
      cache::discard(code_object);
      std::vector<std::string> command = {options.compiler};
      command.insert(command.end(), flags.begin(), flags.end());
      if (clang) command.insert(command.end(), kClangPchFlags.begin(), kClangPchFlags.end());
      command.insert(command.end(), {"-I" + halide_dir.string(), "-x", "c++-header", (halide_dir / "Halide.h").string()});
      if (!build_pch_artifact(command, gch, options)) return result;
      if (clang) {
        command = {options.compiler};
        command.insert(command.end(), flags.begin(), flags.end());
        command.insert(command.end(), {"-c", gch.string()});
        if (!build_pch_artifact(command, code_object, options)) return result;
      }
    }
    result.build_seconds = seconds_since(start);
  }
  // The header itself next to its .gch: a second #include "Halide.h" (in a local header, say)
  // cannot use the precompiled one and must find the real file, which its include guard skips.
  const fs::path header = directory / "Halide.h";
  if (!fs::exists(header, ec)) {
    const fs::path temporary = cache::temporary_name(header);
    fs::create_symlink(halide_dir / "Halide.h", temporary, ec);
    if (!ec) fs::rename(temporary, header, ec);
    if (ec) fs::remove(temporary, ec);
  }
  result.directory = directory;
  result.file = gch;
  if (clang) result.code_object = code_object;
  return result;
}

// ---------------------------------------------------------------------------------------------

fs::path home_directory() {
  if (const char *home = std::getenv("HOME"); home && *home) return home;
  struct passwd entry {};
  struct passwd *found = nullptr;
  char buffer[4096];
  if (::getpwuid_r(::getuid(), &entry, buffer, sizeof buffer, &found) == 0 && found && found->pw_dir)
    return found->pw_dir;
  return fs::temp_directory_path();
}

bool all_digits(const std::string &text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Parses one line; false when it is not a diagnostic ("In file included from", caret lines,
// "required from here" context, ...).
bool parse_diagnostic_line(const std::string &line, CompilerDiagnostic &diagnostic) {
  static const char *const severities[] = {"fatal error", "error", "warning", "note"};
  std::size_t best = std::string::npos;
  std::string severity;
  for (const char *candidate : severities) {
    const std::size_t at = line.find(std::string(": ") + candidate + ": ");
    if (at < best) {
      best = at;
      severity = candidate;
    }
  }
  if (best == std::string::npos || best == 0 || std::isspace(static_cast<unsigned char>(line[0]))) return false;

  // The location is "file", "file:line" or "file:line:col"; peel numbers off the right end.
  std::string location = line.substr(0, best);
  std::vector<int> numbers;
  while (numbers.size() < 2) {
    const std::size_t colon = location.rfind(':');
    if (colon == std::string::npos || !all_digits(location.substr(colon + 1))) break;
    numbers.insert(numbers.begin(), std::stoi(location.substr(colon + 1)));
    location.resize(colon);
  }
  diagnostic = CompilerDiagnostic{};
  diagnostic.file = location;
  if (!numbers.empty()) diagnostic.line = numbers[0];
  if (numbers.size() > 1) diagnostic.column = numbers[1];
  diagnostic.severity = severity;
  diagnostic.message = line.substr(best + severity.size() + 4);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

fs::path default_cache_dir() {
  if (const char *dir = std::getenv("HLSCHED_CACHE_DIR"); dir && *dir) return dir;
  if (const char *dir = std::getenv("XDG_CACHE_HOME"); dir && *dir) return fs::path(dir) / "hlsched";
  return home_directory() / ".cache" / "hlsched";
}

fs::path default_halide_include_dir() {
  if (const char *dir = std::getenv("HLSCHED_HALIDE_INCLUDE_DIR"); dir && *dir) return dir;
  std::vector<fs::path> candidates;
#ifdef HLSCHED_HALIDE_INCLUDE_DIR  // configured by engine/CMakeLists.txt from Halide::Halide
  candidates.emplace_back(HLSCHED_HALIDE_INCLUDE_DIR);
#endif
  candidates.insert(candidates.end(), {"/usr/include/halide14", "/usr/local/include", "/usr/include"});
  std::error_code ec;
  for (const auto &dir : candidates)
    if (!dir.empty() && fs::exists(dir / "Halide.h", ec)) return dir;
  return candidates.front();  // build_generator() reports that Halide.h is missing
}

std::string default_generator_compiler() {
  if (const char *chosen = std::getenv("HLSCHED_GENERATOR_COMPILER"); chosen && *chosen) return chosen;
  const char *path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((fs::path(dir) / "clang++-14").c_str(), X_OK) == 0) return "clang++-14";
  return "g++";
}

std::vector<std::string> default_halide_link_flags() {
#ifdef HLSCHED_HALIDE_LIBRARY  // configured by engine/CMakeLists.txt from Halide::Halide
  if (std::error_code ec; fs::exists(HLSCHED_HALIDE_LIBRARY, ec)) return {HLSCHED_HALIDE_LIBRARY};
#endif
  return {"-lHalide14"};
}

std::vector<CompilerDiagnostic> parse_compiler_diagnostics(const std::string &output) {
  std::vector<CompilerDiagnostic> diagnostics;
  std::istringstream lines(output);
  std::string line;
  CompilerDiagnostic diagnostic;
  while (std::getline(lines, line))
    if (parse_diagnostic_line(line, diagnostic)) diagnostics.push_back(diagnostic);
  return diagnostics;
}

GeneratorBuild build_generator(const fs::path &source_arg, const GeneratorBuildOptions &options) {
  const auto start = Clock::now();
  GeneratorBuild result;
  const auto fail = [&](std::string why) {
    result.ok = false;
    result.error = std::move(why);
    result.seconds = seconds_since(start);
    return result;
  };

  // 1. Inputs of the key.
  std::error_code ec;
  const fs::path source = fs::absolute(source_arg, ec).lexically_normal();
  std::string source_text;
  if (ec || !fs::is_regular_file(source, ec) || !read_file(source, source_text))
    return fail("cannot read the generator source " + source_arg.string());
  const fs::path halide_dir = options.halide_include_dir.empty() ? default_halide_include_dir() : options.halide_include_dir;
  const std::vector<std::string> link_flags =
      options.halide_link_flags.empty() ? default_halide_link_flags() : options.halide_link_flags;
  const fs::path cache_dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  std::string error;
  const std::string compiler_id = compiler_identity(options.compiler, error);
  if (compiler_id.empty()) return fail(error);
  const std::string halide_hash = halide_header_hash(halide_dir / "Halide.h", error);
  if (halide_hash.empty()) return fail(error);

  // 2. The command, minus the PCH directory (which does not change the output, so is not part of
  //    the key) and with a placeholder output name.
  const std::vector<std::string> compile_flags = common_compile_flags(options);
  std::vector<std::string> rest = {"-I" + source.parent_path().string(), "-I" + halide_dir.string(), "-shared",
                                   source.string()};

  KeyHasher key;
  key.add(kCacheFormat).add(source.string()).add(source_text);
  add_local_headers(key, source_text, source.parent_path());
  key.add(options.compiler).add(compiler_id).add(compile_flags).add(rest).add(link_flags).add(halide_hash);
  const fs::path generators_dir = cache_dir / "generators";
  result.shared_object = generators_dir / (key.hex() + ".so");

  // 3. Cache hit: done. Only a file that matches its seal counts (cache_artifact.h).
  const auto hit = [&] {
    result.ok = true;
    result.cache_hit = true;
    result.seconds = seconds_since(start);
    return result;
  };
  if (!options.rebuild && cache::verify(result.shared_object)) return hit();
  fs::create_directories(generators_dir, ec);
  if (ec) return fail("cannot create the cache directory " + generators_dir.string() + ": " + ec.message());
  // One build of a key at a time, across processes; the others wait and then hit.
  cache::ArtifactLock lock(result.shared_object, options.cancel);
  if (lock.cancelled()) return fail("cancelled");
  if (!options.rebuild && cache::verify(result.shared_object)) return hit();
  cache::discard(result.shared_object);  // missing, damaged, half-published or to be replaced

  // 4. Compile to a temporary name, rename into place.
  std::vector<std::string> command = {options.compiler};
  command.insert(command.end(), compile_flags.begin(), compile_flags.end());
  fs::path pch_code_object;
  if (options.use_precompiled_header && includes_halide(source_text)) {
    const PchResult pch = ensure_precompiled_halide(options, cache_dir, halide_dir, compiler_id, halide_hash);
    result.pch_seconds = pch.build_seconds;
    result.precompiled_header = pch.file;
    if (!pch.code_object.empty()) {
      // Clang: only as the first include; its code object then comes with the generator.
      if (halide_may_come_first(source_text)) {
        command.insert(command.end(), {"-include-pch", pch.file.string()});
        pch_code_object = pch.code_object;
      } else {
        result.precompiled_header.clear();
      }
    } else if (!pch.directory.empty()) {
      // GCC: before everything else on the include path, so that #include "Halide.h" finds the
      // .gch; and included first where that changes nothing, so that GCC can use it at all.
      command.push_back("-I" + pch.directory.string());
      if (halide_may_come_first(source_text)) command.insert(command.end(), {"-include", (pch.directory / "Halide.h").string()});
    }
  }
  const fs::path temporary = cache::temporary_name(result.shared_object);
  command.insert(command.end(), rest.begin(), rest.end());
  if (!pch_code_object.empty()) command.push_back(pch_code_object.string());
  command.insert(command.end(), {"-o", temporary.string()});
  command.insert(command.end(), link_flags.begin(), link_flags.end());
  result.command = command;
  result.command_line = join_command(command);
  spdlog::debug("compiling generator: {}", result.command_line);

  WorkerLimits limits;
  limits.time_limit = options.compile_time_limit;
  limits.cancel = options.cancel;
  const WorkerOutcome outcome = run_worker(command, limits);
  result.compiler_output = outcome.stderr_text + outcome.stdout_text;
  result.diagnostics = parse_compiler_diagnostics(result.compiler_output);
  if (!outcome.succeeded()) {
    fs::remove(temporary, ec);
    return fail("compiling " + source.filename().string() + " failed: the compiler " + outcome.describe());
  }
  if (std::string why; !cache::publish(temporary, result.shared_object, why)) return fail(why);
  result.ok = true;
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace hlsched
