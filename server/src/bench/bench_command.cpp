#include "bench/bench_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "bench/bundle_builder.h"
#include "bench/markdown_report.h"
#include "bench/report_model.h"
#include "bench/svg_chart.h"
#include "dataset/compressed_lines.h"
#include "hlsched/engine/autoscheduler.h"

// Where the build put our tools (set by server/CMakeLists.txt).
#ifndef HLSCHED_SOURCE_DIR
#define HLSCHED_SOURCE_DIR "."
#endif
#ifndef HLSCHED_CUPTI_LIBRARY
#define HLSCHED_CUPTI_LIBRARY ""
#endif

namespace hlsched::server::bench {
namespace {

namespace fs = std::filesystem;

// "camera_pipe.input=0:1023" -> (app, input, lo, hi).
void add_input_range(const std::string &text, BundleOptions &options) {
  const auto dot = text.find('.'), eq = text.find('='), colon = text.rfind(':');
  if (dot == std::string::npos || eq == std::string::npos || colon == std::string::npos || !(dot < eq && eq < colon))
    throw std::invalid_argument("--input-range wants APP.INPUT=LO:HI, not '" + text + "'");
  try {
    options.input_ranges[text.substr(0, dot)][text.substr(dot + 1, eq - dot - 1)] = {
        std::stod(text.substr(eq + 1, colon - eq - 1)), std::stod(text.substr(colon + 1))};
  } catch (const std::logic_error &) {
    throw std::invalid_argument("--input-range: bad numbers in '" + text + "'");
  }
}

std::string mebibytes(std::uintmax_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1 << 20));
  return text;
}

}  // namespace

void use_this_builds_tools(BundleOptions &options, bool cupti) {
  options.toolchain.gengen = HLSCHED_GENGEN;
  options.runner_library = HLSCHED_BENCH_RUNNER_LIBRARY;
  options.cupti_library = cupti ? HLSCHED_CUPTI_LIBRARY : "";
}

fs::path this_builds_plugin() { return HLSCHED_PLUGIN; }
fs::path this_source_trees_examples() { return fs::path(HLSCHED_SOURCE_DIR) / "examples"; }

CLI::App *BenchCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("bench", "Build a self-contained benchmark bundle for the GPU machine");
  cmd->add_option("--app", apps_, "Example app to include (repeatable; default: every examples/<app>)");
  cmd->add_option("--scheduler", schedulers_, "Standard variants per app: manual, li2018, hlsched")->delimiter(',');
  cmd->add_option("--variants", variants_file_, "JSON file of extra variants (see server/src/bench/bench_variant.h)");
  cmd->add_option("--input-range", input_ranges_, "Generated values of one input: APP.INPUT=LO:HI (repeatable)");
  cmd->add_option("--target", target_, "Halide target of every variant");
  cmd->add_option("--out", output_dir_, "Bundle folder: bench.tar.xz and run.sh");
  cmd->add_option("--work-dir", work_dir_, "Intermediate files (default: <out>.work)");
  cmd->add_option("--jobs", jobs_, "Parallel compilations")->check(CLI::PositiveNumber);
  cmd->add_option("--gpu", gpu_, "GPU profile for hlsched (plugin and predictions)");
  cmd->add_option("--strategy", strategy_, "hlsched search strategy (default: the engine's)");
  cmd->add_option("--machine-params", machine_params_, "GenGen machine_params for the plugins");
  cmd->add_option("--plugin", hlsched_plugin_, "libautoschedule_hlsched.so (default: this build's)");
  cmd->add_option("--li2018-plugin", li2018_plugin_, "libautoschedule_li2018.so (default: Halide's)");
  cmd->add_option("--examples-dir", examples_dir_, "Where the example apps are (default: this source tree's)");
  cmd->add_option("--cache-dir", cache_dir_, "Generator build cache (default $HLSCHED_CACHE_DIR or ~/.cache/hlsched)");
  cmd->add_flag("--no-cupti", no_cupti_, "Do not carry CUPTI (no per-kernel times)");
  return cmd;
}

int BenchCommand::run() const {
  const fs::path examples = examples_dir_.empty() ? fs::path(HLSCHED_SOURCE_DIR) / "examples" : fs::path(examples_dir_);
  StandardSchedulers schedulers;
  schedulers.hlsched_plugin = hlsched_plugin_.empty() ? fs::path(HLSCHED_PLUGIN) : fs::path(hlsched_plugin_);
  schedulers.li2018_plugin = li2018_plugin_.empty() ? fs::path(HLSCHED_LI2018_PLUGIN) : fs::path(li2018_plugin_);
  schedulers.machine_params = machine_params_;
  const std::string strategy = strategy_.empty() ? AutoschedulerOptions{}.strategy : strategy_;
  schedulers.hlsched_options = "gpu=" + gpu_ + ",strategy=" + strategy;

  BundleOptions options;
  const std::vector<std::string> apps = apps_.empty() ? example_apps(examples) : apps_;
  for (const auto &app : apps) {
    const fs::path source = examples / app / (app + "_generator.cpp");
    if (!fs::exists(source)) throw std::invalid_argument("no example app '" + app + "' (" + source.string() + ")");
    for (auto &v : standard_variants(app, source, schedulers_, schedulers)) options.variants.push_back(std::move(v));
  }
  if (!variants_file_.empty())
    for (auto &v : load_variants_file(variants_file_, examples, machine_params_)) options.variants.push_back(std::move(v));
  for (const auto &r : input_ranges_) add_input_range(r, options);
  options.toolchain.gengen = HLSCHED_GENGEN;
  options.toolchain.target = target_;
  options.output_dir = output_dir_;
  options.work_dir = work_dir_;
  options.jobs = jobs_;
  options.runner_library = HLSCHED_BENCH_RUNNER_LIBRARY;
  if (!no_cupti_) options.cupti_library = HLSCHED_CUPTI_LIBRARY;
  options.cache_dir = cache_dir_;
  options.gpu_profile = gpu_;
  options.strategy = strategy;
  auto progress_mutex = std::make_shared<std::mutex>();
  options.progress = [progress_mutex](const std::string &line) {
    std::lock_guard<std::mutex> lock(*progress_mutex);
    std::cerr << "bench: " << line << "\n";
  };

  const BundleSummary summary = build_bundle(options);
  for (const auto &w : summary.warnings) std::cerr << "hlsched: warning: " << w << "\n";
  if (!summary.ok) {
    std::cerr << "hlsched: error: " << summary.error << "\n";
    return 1;
  }
  std::cout << "bundle: " << summary.archive.string() << " (" << mebibytes(summary.archive_bytes) << "), "
            << summary.compiled << " variants compiled, " << summary.failed << " failed, in " << int(summary.seconds)
            << " s\nrun it on the GPU machine: bash " << summary.run_script.string() << "\n";
  return 0;
}

CLI::App *ReportCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("report", "Markdown tables and a bar chart from a benchmark's results.json");
  cmd->add_option("results", results_path_, "results.json written by the bundle's runner (or .json.xz)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--chart", chart_path_, "Where the SVG chart goes (default: the results' name with .svg)");
  cmd->add_option("--ours", ours_, "Variant label that the speedup columns compare with the others");
  cmd->add_flag("--no-stages", no_stages_, "Leave out the per-stage tables");
  return cmd;
}

int ReportCommand::run() const {
  // Results kept in the repository are xz-compressed (docs/perf/*.results.json.xz).
  const std::string text = dataset::read_text(results_path_);
  nlohmann::json results;
  try {
    results = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(results_path_ + " is not JSON: " + e.what());
  }
  const ReportModel model = build_report_model(results);
  MarkdownOptions markdown;
  markdown.ours = ours_;
  markdown.stages = !no_stages_;
  std::cout << markdown_report(model, markdown);
  const fs::path chart = chart_path_.empty() ? fs::path(results_path_).replace_extension(".svg") : fs::path(chart_path_);
  std::ofstream out(chart);
  out << svg_chart(model);
  if (!out) throw std::runtime_error("cannot write " + chart.string());
  std::cerr << "chart: " << chart.string() << "\n";
  return 0;
}

}  // namespace hlsched::server::bench
