#include "bench/bundle_builder.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "bench/bundle_manifest.h"
#include "generator_analysis.h"
#include "hlsched/engine/generator_build.h"
#include "hlsched/engine/plugin_options.h"
#include "hlsched/engine/worker_process.h"

namespace hlsched::server::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char *kRunnerName = "hlsched-bench-runner";
constexpr std::uintmax_t kDeviceToolLimitBytes = std::uintmax_t(64) << 20;

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// Runs a tool to completion; returns its stdout, or throws with what it said.
std::string run_or_throw(const std::vector<std::string> &argv, std::chrono::seconds limit) {
  WorkerLimits limits;
  limits.time_limit = limit;
  const WorkerOutcome outcome = run_worker(argv, limits);
  if (!outcome.succeeded())
    throw std::runtime_error("`" + argv[0] + "` " + outcome.describe() + ":\n" + outcome.stderr_text + outcome.stdout_text);
  return outcome.stdout_text;
}

// Runs `tasks` on `jobs` threads and waits for all of them.
void run_parallel(int jobs, const std::vector<std::function<void()>> &tasks) {
  boost::asio::thread_pool pool(std::max(1, jobs));
  for (const auto &task : tasks) boost::asio::post(pool, task);
  pool.join();
}

// The commit the examples come from, for the results' provenance ("" outside a git checkout).
void add_provenance(json &manifest, const fs::path &any_source) {
  const std::string dir = fs::absolute(any_source).parent_path().string();
  WorkerLimits limits;
  limits.time_limit = std::chrono::seconds(20);
  const WorkerOutcome head = run_worker({"git", "-C", dir, "rev-parse", "HEAD"}, limits);
  const WorkerOutcome status = run_worker({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no"}, limits);
  manifest["hlsched_commit"] = head.succeeded() ? head.stdout_text.substr(0, head.stdout_text.find('\n')) : "";
  manifest["hlsched_tree_dirty"] = status.succeeded() && !status.stdout_text.empty();
}

json predict(const BenchVariant &variant, const BundleOptions &options, const std::string &task) {
  AnalysisRequest request;
  request.source = variant.source;
  request.task = task;
  request.generator = variant.generator;
  request.params = variant.params;
  request.gpu_profile = options.gpu_profile;
  if (!options.strategy.empty()) request.search.strategy = options.strategy;
  apply_plugin_options(variant, request);
  request.cache_dir = options.cache_dir;
  request.time_limit = std::chrono::seconds(300);
  const bool sample = request.task == "schedule" && request.search.strategy == "sample";
  if (sample) request.task = "sample";  // one walk: sample_first, count 1
  const AnalysisOutcome outcome = analyze_generator(request);
  if (!outcome.ok()) throw std::runtime_error(outcome.message);
  if (!sample) return outcome.result;
  const json &samples = outcome.result["samples"];
  if (samples.empty())
    throw std::runtime_error("random walk " + std::to_string(request.sample_first) + " of seed " +
                             std::to_string(request.sample_seed) + " found no complete schedule");
  json result = samples[0];
  result["generator"] = outcome.result.value("generator", "");
  result["search"] = {{"strategy", "sample"}};
  return result;
}

std::vector<std::string> link_command(const fs::path &output, const std::vector<fs::path> &objects,
                                      const std::vector<fs::path> &archives, const BundleOptions &options) {
  std::vector<std::string> argv = {options.toolchain.compiler, "-o", output.string()};
  for (const auto &o : objects) argv.push_back(o.string());
  argv.push_back("-Wl,--start-group");
  argv.push_back(options.runner_library.string());
  for (const auto &a : archives) argv.push_back(a.string());
  argv.push_back("-Wl,--end-group");
  // Nothing but libc from the GPU machine: its C++ library may be older or newer than ours.
  argv.insert(argv.end(), {"-static-libstdc++", "-static-libgcc", "-s", "-ldl", "-lpthread", "-lm"});
  return argv;
}

}  // namespace

// "gpu=a100,strategy=simple" -> the same options for `hlsched schedule` (or, for strategy=sample,
// `hlsched sample` of the same walk), read by the plugin's own parser.
void apply_plugin_options(const BenchVariant &variant, AnalysisRequest &request) {
  auto it = variant.scheduler.environment.find("HLSCHED_OPTIONS");
  if (it == variant.scheduler.environment.end()) return;
  PluginOptions plugin;
  plugin.engine = request.search;
  plugin.engine.gpu_profile = request.gpu_profile;
  plugin.decisions_path = request.decisions_path;
  read_plugin_options(it->second, plugin);
  request.search = plugin.engine;
  request.gpu_profile = plugin.engine.gpu_profile;
  request.decisions_path = plugin.decisions_path;
  request.sample_seed = plugin.engine.seed;
  if (plugin.sample_index >= 0) request.sample_first = plugin.sample_index;
}

std::string run_script_text() {
  return R"SCRIPT(#!/usr/bin/env bash
# Runs the hlsched benchmark bundle that lies beside this script (built by `hlsched bench`):
# unpacks it into a fresh folder under /tmp and measures every variant on GPU 0.
#   bash run.sh [runner options]        e.g. --app blur --time-budget 120 (see --help)
# Results go to --output PATH, by default $OUT/results.json when $OUT is set, else ./results.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/hlsched-bench.XXXXXX)
if command -v xz > /dev/null; then
  tar -C "$work" -xJf "$here/bench.tar.xz"
else  # images without xz-utils: Python's lzma
  python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$here/bench.tar.xz" "$work"
fi
args=("$@")
[[ " $* " == *" --output "* ]] || args=(--output "${OUT:-.}/results.json" "${args[@]}")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>/dev/null || true
exec "$work/hlsched-bench-runner" "${args[@]}"
)SCRIPT";
}

std::vector<std::string> dependency_problems(const fs::path &executable) {
  WorkerLimits limits;
  limits.time_limit = std::chrono::seconds(30);
  const WorkerOutcome ldd = run_worker({"ldd", executable.string()}, limits);
  if (!ldd.succeeded()) return {"`ldd " + executable.string() + "` " + ldd.describe()};
  std::vector<std::string> problems;
  std::istringstream lines(ldd.stdout_text);
  std::string line;
  while (std::getline(lines, line))
    if (line.find("Halide") != std::string::npos || line.find("LLVM") != std::string::npos ||
        line.find("not found") != std::string::npos || line.find("libstdc++") != std::string::npos)
      problems.push_back("depends on" + line);
  return problems;
}

BundleSummary build_bundle(const BundleOptions &options) {
  const auto start = Clock::now();
  BundleSummary summary;
  if (options.variants.empty()) {
    summary.error = "no variants to build";
    return summary;
  }
  const fs::path work = options.work_dir.empty() ? fs::path(options.output_dir.string() + ".work") : options.work_dir;
  const fs::path variants_dir = work / "variants", staging = work / "staging";
  fs::remove_all(staging);
  fs::create_directories(variants_dir);
  fs::create_directories(staging / "lib");
  fs::create_directories(options.output_dir);

  // 1. Each generator source once.
  std::map<fs::path, GeneratorBuild> generator_builds;
  for (const auto &v : options.variants) generator_builds[v.source];
  {
    std::vector<std::function<void()>> tasks;
    GeneratorBuildOptions build_options;
    build_options.cache_dir = options.cache_dir;
    for (auto &[source, build] : generator_builds)
      tasks.push_back([&, source = source] { build = build_generator(source, build_options); });
    options.progress("building " + std::to_string(tasks.size()) + " generators");
    run_parallel(options.jobs, tasks);
  }

  // 2. Variants, the runtime and predictions, in parallel.
  std::vector<AotResult> compiled(options.variants.size());
  std::vector<json> predictions(options.variants.size());
  std::map<std::string, json> app_results;  // app -> a schedule or dag result (for Func names)
  std::mutex mutex;
  AotResult runtime;
  std::vector<std::function<void()>> tasks;
  tasks.push_back([&] { runtime = compile_runtime(options.toolchain, variants_dir); });
  std::set<std::string> apps_with_analysis;
  for (size_t i = 0; i < options.variants.size(); i++) {
    const BenchVariant &v = options.variants[i];
    const GeneratorBuild &build = generator_builds[v.source];
    tasks.push_back([&, i] {
      if (!build.ok) {
        compiled[i].error = "the generator does not build: " + build.error + "\n" + build.compiler_output;
        return;
      }
      compiled[i] = compile_variant(options.variants[i], build.shared_object, options.toolchain, variants_dir);
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, " (%.1f s)", compiled[i].seconds);
      options.progress(options.variants[i].function_name() + (compiled[i].ok ? ": compiled" : ": FAILED") + seconds);
    });
    // Func names for every app (to attribute kernels), predictions where asked for.
    if (v.predict || apps_with_analysis.insert(v.app).second) {
      const bool predict_this = v.predict;
      tasks.push_back([&, i, predict_this] {
        const BenchVariant &variant = options.variants[i];
        try {
          json result = predict(variant, options, predict_this ? "schedule" : "dag");
          if (predict_this) {
            predictions[i] = prediction_from_schedule_result(result);
            options.on_prediction(i, result);
          }
          std::lock_guard<std::mutex> lock(mutex);
          if (!app_results.count(variant.app) || predict_this) app_results[variant.app] = std::move(result);
        } catch (const std::exception &e) {
          if (predict_this) predictions[i] = {{"error", e.what()}};
          std::lock_guard<std::mutex> lock(mutex);
          summary.warnings.push_back(variant.function_name() + ": hlsched could not analyze it: " + e.what());
        }
      });
    }
  }
  options.progress("compiling " + std::to_string(options.variants.size()) + " variants for " + options.toolchain.target);
  run_parallel(options.jobs, tasks);
  if (!runtime.ok) {
    summary.error = "the Halide runtime does not compile: " + runtime.error;
    return summary;
  }

  // 3. The manifest.
  json manifest{{"format", "hlsched-bench-bundle-v1"},
                {"created", now_utc()},
                {"target", options.toolchain.target},
                {"cupti", !options.cupti_library.empty()},
                {"apps", json::object()},
                {"variants", json::array()}};
  add_provenance(manifest, options.variants.front().source);
  std::vector<fs::path> objects, archives;
  for (size_t i = 0; i < options.variants.size(); i++) {
    const BenchVariant &v = options.variants[i];
    json entry = variant_manifest_entry(v, compiled[i]);
    if (v.predict) entry["prediction"] = predictions[i];
    manifest["variants"].push_back(entry);
    json &app = manifest["apps"][v.app];
    app["source"] = v.source.string();
    app["funcs"] = app_results.count(v.app) ? func_names_from_result(app_results[v.app]) : std::vector<std::string>{};
    if (auto ranges = options.input_ranges.find(v.app); ranges != options.input_ranges.end())
      for (const auto &[input, range] : ranges->second) app["input_ranges"][input] = {range.first, range.second};
    if (compiled[i].ok) {
      summary.compiled++;
      objects.push_back(compiled[i].link_inputs[0]);
      archives.push_back(compiled[i].link_inputs[1]);
    } else {
      summary.failed++;
      summary.warnings.push_back(v.function_name() + " did not compile: " + compiled[i].error);
    }
  }
  if (summary.compiled == 0) {
    summary.error = "no variant compiled";
    return summary;
  }
  archives.push_back(runtime.link_inputs[0]);
  std::ofstream(staging / "manifest.json") << manifest.dump(1) << "\n";
  std::ofstream(work / "manifest.json") << manifest.dump(1) << "\n";

  // 4. The runner, checked.
  options.progress("linking and checking the runner");
  summary.runner = staging / kRunnerName;
  try {
    run_or_throw(link_command(summary.runner, objects, archives, options), std::chrono::seconds(600));
    for (const auto &problem : dependency_problems(summary.runner))
      throw std::runtime_error("the runner is not self-contained: it " + problem);
    const std::string listing = run_or_throw({summary.runner.string(), "--dry-run"}, std::chrono::seconds(60));
    std::ofstream(work / "variants.txt") << listing;
  } catch (const std::exception &e) {
    summary.error = e.what();
    return summary;
  }
  if (!options.cupti_library.empty()) fs::copy_file(options.cupti_library, staging / "lib" / "libcupti.so");
  else summary.warnings.push_back("no CUPTI: the results will have no per-kernel times");

  // 5. Archive and launcher.
  options.progress("compressing");
  summary.archive = options.output_dir / "bench.tar.xz";
  summary.run_script = options.output_dir / "run.sh";
  try {
    run_or_throw({"tar", "-C", staging.string(), "-cJf", summary.archive.string(), "."}, std::chrono::seconds(600));
  } catch (const std::exception &e) {
    summary.error = e.what();
    return summary;
  }
  std::ofstream(summary.run_script) << run_script_text();
  fs::permissions(summary.run_script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  summary.archive_bytes = fs::file_size(summary.archive);
  if (summary.archive_bytes > kDeviceToolLimitBytes / 2)
    summary.warnings.push_back("the archive is " + std::to_string(summary.archive_bytes >> 20) +
                               " MiB; the device tool carries at most 64 MiB with the working tree");
  summary.ok = true;
  summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

}  // namespace hlsched::server::bench
