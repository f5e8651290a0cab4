// The `hlsched bench` and `hlsched report` subcommands: their options and what they run.
//
//   hlsched bench [--app blur]... [--scheduler manual,li2018,hlsched] [--variants extra.json]
//                 [--input-range camera_pipe.input=0:1023] [--out .bundle] [--jobs 2] ...
//   hlsched report results.json [--chart results.svg] [--no-stages]
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace hlsched::server::bench {

struct BundleOptions;

/// This build's tools for bundles: GenGen, the runner's library, CUPTI (unless `cupti` is false).
void use_this_builds_tools(BundleOptions &options, bool cupti = true);
/// This build's plugin, and the examples of the source tree it was built from.
std::filesystem::path this_builds_plugin();
std::filesystem::path this_source_trees_examples();

class BenchCommand {
public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

private:
  std::vector<std::string> apps_;
  std::vector<std::string> schedulers_ = {"manual", "li2018", "hlsched"};
  std::string variants_file_;
  std::vector<std::string> input_ranges_;
  std::string target_ = "x86-64-linux-sse41-avx-avx2-fma-cuda-cuda_capability_86";
  std::string output_dir_ = ".bundle";
  std::string work_dir_;
  int jobs_ = 2;
  std::string gpu_ = "h200";
  std::string strategy_;
  std::string machine_params_ = "132,50000000,40";
  std::string hlsched_plugin_, li2018_plugin_, examples_dir_, cache_dir_;
  bool no_cupti_ = false;
};

class ReportCommand {
public:
  CLI::App *add_to(CLI::App &app);
  int run() const;

private:
  std::string results_path_;
  std::string chart_path_;
  std::string ours_ = "hlsched";
  bool no_stages_ = false;
};

}  // namespace hlsched::server::bench
