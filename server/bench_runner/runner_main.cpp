// hlsched-bench-runner: measures the AOT-compiled pipeline variants linked into it (see
// orchestrator.h for the process structure and the results format, app_run.h for how one variant
// is measured). Built by `hlsched bench` into a bundle; runs on a machine with the NVIDIA driver
// and nothing else of ours.
//
//   hlsched-bench-runner --output results.json          measure everything
//   hlsched-bench-runner --dry-run                      list variants, check their metadata
//   hlsched-bench-runner --app blur --app unsharp ...   only these apps
//   hlsched-bench-runner --reverse-variants ...          each app's variants last to first
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app_run.h"
#include "backend.h"
#include "cuda_driver.h"
#include "filter_registry.h"
#include "manifest.h"
#include "orchestrator.h"

namespace {

namespace fs = std::filesystem;
using namespace hlsched::bench;

std::vector<std::string> split_commas(const std::string &text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

int dry_run(const Manifest &manifest, std::vector<std::string> apps) {
  if (apps.empty())
    for (const auto &a : manifest.apps) apps.push_back(a.name);
  std::cout << "target " << manifest.target << "; " << registered_filters().size() << " pipelines linked in\n";
  const std::vector<std::string> problems = check_variants(manifest, apps, true);
  for (const auto &v : manifest.variants)
    if (!v.compiled) std::cout << "  " << v.function << ": not compiled (the builder's error is in the manifest)\n";
  for (const auto &p : problems) std::cerr << "problem: " << p << "\n";
  std::cout << (problems.empty() ? "all variants OK\n" : "variants have problems\n");
  return problems.empty() ? 0 : 1;
}

int measure_device(const Manifest &manifest, const std::string &library_dir, const std::string &output) {
  std::unique_ptr<Backend> backend = manifest.uses_cuda() ? make_cuda_backend(library_dir) : make_host_backend();
  const CopyBandwidth bw = backend->measure_copy_bandwidth();
  nlohmann::json result{{"device", backend->device_info()},
                        {"copy_bandwidth", {{"bytes_moved", bw.bytes_moved}, {"milliseconds", bw.milliseconds}, {"gb_per_s", bw.gb_per_s}}}};
  std::string why_not;
  result["device"]["kernel_trace"] = backend->kernel_trace(why_not) ? "cupti" : why_not;
  std::ofstream(output) << result.dump(1) << "\n";
  std::cerr << "device: " << result["device"].value("name", "?") << ", copy bandwidth " << bw.gb_per_s << " GB/s\n";
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const fs::path self = fs::canonical("/proc/self/exe");
  CLI::App cli{"Measures the Halide pipeline variants linked into this executable (a bundle of `hlsched bench`)"};
  std::string manifest_path = (self.parent_path() / "manifest.json").string();
  RunOptions options;
  bool dry = false;
  double rotate_below_mb = 100, rotate_target_mb = 200;
  cli.add_option("--manifest", manifest_path, "The bundle's manifest (default: next to this executable)");
  cli.add_option("--output", options.output_path, "Where the results JSON goes");
  cli.add_flag("--dry-run", dry, "List the variants and check their metadata; touch no GPU");
  cli.add_option("--app", options.apps, "Only this app (repeatable)");
  cli.add_flag("--reverse-variants", options.reverse_variants,
               "Measure each app's variants last to first (run an A/B both ways: the order alone moves small pipelines)");
  cli.add_option("--time-budget", options.time_budget_s, "Seconds for the whole run; apps not started in time are skipped");
  cli.add_option("--app-timeout", options.app_timeout_s, "Seconds one app's measuring process may take");
  cli.add_option("--warmup", options.app.repetitions.warmup, "Untimed calls before measuring");
  cli.add_option("--min-reps", options.app.repetitions.min_repetitions, "Timed calls at least");
  cli.add_option("--max-reps", options.app.repetitions.max_repetitions, "Timed calls at most");
  cli.add_option("--seconds-per-variant", options.app.repetitions.target_seconds,
                 "Timed calls continue (past --min-reps) until this much measured time");
  cli.add_option("--kernel-reps", options.app.kernel_repetitions, "Calls traced with CUPTI per variant (0: none)");
  cli.add_option("--cache-config", options.app.cache_config,
                 "The CUDA context's preferred L1/shared-memory split: none (the driver's own carve-out per kernel), "
                 "shared, l1 or equal (an experiment's knob; CUPTI records each kernel's carve-out)")
      ->check([](const std::string &name) {
        try {
          cache_config_from_name(name);
          return std::string();
        } catch (const std::invalid_argument &e) {
          return std::string(e.what());
        }
      });
  cli.add_option("--rotate-below-mb", rotate_below_mb, "Rotate input sets when one set's inputs+outputs are smaller");
  cli.add_option("--rotate-target-mb", rotate_target_mb, "... with enough sets to cover this many MiB");
  cli.add_option("--max-input-sets", options.app.max_input_sets, "At most this many input sets");
  cli.add_option("--rtol", options.app.tolerance.relative, "Float outputs: tolerance relative to each reference value");
  cli.add_option("--atol-of-max", options.app.tolerance.absolute_of_max, "Float outputs: absolute tolerance, as a fraction of max |reference|");
  cli.add_option("--scratch-dir", options.scratch_dir, "For reference outputs and per-app records (default: a new /tmp dir)");
  // Internal: the orchestrator's child processes.
  std::string child_task, child_output, child_functions;
  cli.add_option("--child-task", child_task)->group("");
  cli.add_option("--child-output", child_output)->group("");
  cli.add_option("--functions", child_functions)->group("");
  cli.add_option("--records", options.app.records_path)->group("");
  cli.add_option("--reference-dir", options.app.reference_dir)->group("");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  options.app.rotate_below_bytes = int64_t(rotate_below_mb * (1 << 20));
  options.app.rotate_target_bytes = int64_t(rotate_target_mb * (1 << 20));
  options.app.library_dir = (self.parent_path() / "lib").string();

  try {
    const Manifest manifest = load_manifest(manifest_path);
    if (dry) return dry_run(manifest, options.apps);
    if (child_task == "device") return measure_device(manifest, options.app.library_dir, child_output);
    if (child_task == "app") {
      if (options.apps.size() != 1) throw std::invalid_argument("--child-task app needs exactly one --app");
      return run_app_variants(manifest, options.apps.front(), split_commas(child_functions), options.app);
    }
    if (!child_task.empty()) throw std::invalid_argument("unknown --child-task " + child_task);
    return run_benchmark(manifest, self.string(), options);
  } catch (const std::exception &e) {
    std::cerr << "hlsched-bench-runner: " << e.what() << "\n";
    return 3;
  }
}
