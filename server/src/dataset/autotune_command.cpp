#include "dataset/autotune_command.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "bench/bench_variant.h"
#include "bench/bench_command.h"
#include "dataset/local_gpu.h"
#include "hlsched/engine/worker_process.h"

namespace hlsched::dataset {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string &text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a command line with the output going to ours (people watch these steps); its exit code.
int run_visible(const std::vector<std::string> &argv) {
  std::string line;
  for (const auto &a : argv) line += (line.empty() ? "" : " ") + quoted(a);
  std::cerr << "autotune: $ " << line << std::endl;
  const int status = std::system(line.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Whether this build has `hlsched train` (the learned model's trainer).
bool trainer_present() {
  WorkerLimits limits;
  limits.time_limit = std::chrono::seconds(30);
  return run_worker({own_image_path().string(), "train", "--help"}, limits).succeeded();
}

int ingest_and_train(const AutotuneRequest &request, const std::string &results, const std::string &collection) {
  IngestRequest ingest_request;
  ingest_request.results_path = results;
  ingest_request.collection_path = collection;
  ingest_request.output_path = request.dataset;
  ingest_request.append = true;
  ingest_request.driver = request.driver;
  std::cerr << "autotune: step 4, ingest " << results << " into " << request.dataset << std::endl;
  if (const fs::path parent = fs::path(request.dataset).parent_path(); !parent.empty()) fs::create_directories(parent);
  if (const int status = ingest(ingest_request); status != 0) return status;
  if (request.weights_out.empty()) {
    std::cerr << "autotune: no --weights-out: stopping after the ingest" << std::endl;
    return 0;
  }
  if (!trainer_present()) {
    std::cerr << "autotune: this build has no `hlsched train`: stopping after the ingest" << std::endl;
    return 0;
  }
  std::cerr << "autotune: step 5, retrain on " << request.dataset << std::endl;
  // The real path: "/proc/self/exe" would name the shell that std::system starts.
  return run_visible({fs::canonical(own_image_path()).string(), "train", "--data", request.dataset, "--out",
                      request.weights_out});
}

}  // namespace

std::string runner_options(double time_budget_s) {
  std::ostringstream out;
  out << "--time-budget " << int(time_budget_s)
      << " --app-timeout 60 --warmup 1 --min-reps 5 --max-reps 200 --seconds-per-variant 0.05 --kernel-reps 1 "
         "--max-input-sets 4";
  return out.str();
}

bool local_gpu_present() { return local_cuda_device_count() > 0; }

int autotune(const AutotuneRequest &request) {
  if (!request.ingest_results.empty()) {
    const std::string collection = request.collection_path.empty()
                                       ? (fs::path(request.collect.out_dir) / "collection.json").string()
                                       : request.collection_path;
    return ingest_and_train(request, request.ingest_results, collection);
  }
  std::cerr << "autotune: steps 1-2, sample schedules and build the bundle" << std::endl;
  if (const int status = collect(request.collect); status != 0) return status;
  const fs::path bundle = request.collect.out_dir;
  const std::string collection = (bundle / "collection.json").string();
  if (request.force_no_gpu || !local_gpu_present()) {
    std::cout << "\nautotune: no GPU on this machine. Step 3 on a machine with an NVIDIA GPU and its driver (the "
                 "bundle needs nothing else; copy the folder " << bundle.string() << " there):\n"
              << "  bash " << (bundle / "run.sh").string() << " --output results.json " << runner_options(600) << "\n"
              << "then steps 4-5 here, with the results.json that run wrote:\n"
              << "  hlsched autotune --ingest results.json --collection " << collection << " --dataset "
              << request.dataset << (request.weights_out.empty() ? "" : " --weights-out " + request.weights_out)
              << "\n";
    return 0;
  }
  std::cerr << "autotune: step 3, run the bundle on this machine's GPU" << std::endl;
  const std::string results = (bundle / "results.json").string();
  std::vector<std::string> argv = {"bash", (bundle / "run.sh").string(), "--output", results};
  std::istringstream options(runner_options(request.run_budget_s));
  for (std::string word; options >> word;) argv.push_back(word);
  const int status = run_visible(argv);
  if (status != 0 && status != 1)  // 1: some variant failed or differed; the rest were measured
    std::cerr << "autotune: the runner exited with " << status << "; ingesting what it measured" << std::endl;
  if (!fs::exists(results)) {
    std::cerr << "hlsched: error: the runner wrote no " << results << "\n";
    return 1;
  }
  return ingest_and_train(request, results, collection);
}

CLI::App *AutotuneCommand::add_to(CLI::App &app) {
  CLI::App *cmd = app.add_subcommand("autotune", "Sample, benchmark on a GPU, ingest and retrain the learned cost model");
  CollectionOptions &c = request_.collect.collection;
  c.name = "autotune";
  c.random_pipelines = 100;
  c.samples = 4;
  request_.collect.out_dir = ".bundle-autotune";
  add_collect_options(*cmd, request_.collect, all_examples_);
  cmd->add_option("--dataset", request_.dataset, "The dataset the measurements are appended to");
  cmd->add_option("--weights-out", request_.weights_out, "Where the retrained weights go (none: no retraining)");
  cmd->add_option("--ingest", request_.ingest_results, "Results of a bundle that ran elsewhere: ingest and retrain only");
  cmd->add_option("--collection", request_.collection_path, "With --ingest: the bundle's collection.json");
  cmd->add_option("--driver", request_.driver, "NVIDIA driver version for the provenance");
  cmd->add_option("--run-budget", request_.run_budget_s, "Seconds the local run may take");
  cmd->add_flag("--no-gpu", request_.force_no_gpu, "Do not look for a GPU: build the bundle and say how to run it");
  return cmd;
}

int AutotuneCommand::run() const {
  AutotuneRequest request = request_;
  request.collect = finish_collect_request(request_.collect, all_examples_);
  return autotune(request);
}

}  // namespace hlsched::dataset
