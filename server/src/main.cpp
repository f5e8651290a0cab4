// The hlsched command line: one executable for people, editors (serve) and our own worker
// processes (worker). Each subcommand is a thin layer over generator_analysis / the engine.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "bench/bench_command.h"
#include "dataset/autotune_command.h"
#include "dataset/dataset_command.h"
#include "dataset/measure.h"
#include "generator_analysis.h"
#include "hlsched/engine/gpu_profile.h"
#include "logging.h"
#include "lsp/serve_command.h"
#include "random_pipeline.h"
#include "result_json.h"
#include "rpc_command.h"
#include "search_options_cli.h"
#include "text_report.h"
#include "train_command.h"
#include "worker_main.h"

namespace {

using hlsched::server::AnalysisOutcome;
using hlsched::server::AnalysisRequest;
using nlohmann::json;

// Exit codes: 0 success, 1 the user's generator failed (compile error, crash, hang, Halide
// error, missing estimates), 2 bad command line, 4 an internal error of hlsched.
constexpr int kExitUserCodeFailed = 1;
constexpr int kExitInternal = 4;

// Options shared by every subcommand that analyzes a generator source.
struct SourceOptions {
  std::string source;
  std::string generator;
  std::vector<std::string> params;
  std::string gpu = hlsched::default_gpu_profile_name();
  double timeout_s = 60;
  std::string cache_dir;
  std::vector<std::string> compile_flags;
  bool json = false;

  void add_to(CLI::App *cmd, bool with_json = true) {
    cmd->add_option("file", source, "Halide generator source (.cpp)")->required();
    cmd->add_option("--generator", generator, "Generator to use when the source registers several");
    cmd->add_option("--param", params, "GeneratorParam as key=value (repeatable)");
    cmd->add_option("--gpu", gpu, "GPU profile (h200, a100, rtx4090, v100)");
    cmd->add_option("--timeout", timeout_s, "Seconds the generator may take to build its pipeline")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--cache-dir", cache_dir, "Build cache folder (default $HLSCHED_CACHE_DIR or ~/.cache/hlsched)");
    cmd->add_option("--compile-flag", compile_flags, "Extra compiler flag for the generator (repeatable)");
    if (with_json) cmd->add_flag("--json", json, "Print one JSON object instead of text");
  }

  AnalysisRequest request(const std::string &task) const {
    AnalysisRequest r;
    r.source = source;
    r.task = task;
    r.generator = generator;
    for (const auto &p : params) r.params.insert(hlsched::server::parse_param(p));
    hlsched::find_gpu_profile(gpu);  // unknown names are a usage error, reported here
    r.gpu_profile = gpu;
    r.time_limit = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    r.cache_dir = cache_dir;
    r.extra_compile_flags = compile_flags;
    return r;
  }
};

int report_failure(const AnalysisOutcome &outcome, bool as_json) {
  if (as_json) {
    json error{{"kind", outcome.error_kind}, {"message", outcome.message}};
    if (!outcome.diagnostics.empty()) {
      error["diagnostics"] = json::array();
      for (const auto &d : outcome.diagnostics) error["diagnostics"].push_back(hlsched::server::to_json(d));
    }
    std::cout << json{{"error", error}}.dump(2) << "\n";
  }
  std::cerr << "hlsched: error: " << outcome.message << "\n";
  return outcome.status == AnalysisOutcome::Status::InternalError ? kExitInternal : kExitUserCodeFailed;
}

void add_timing(json &result, const AnalysisOutcome &outcome) {
  result["build"] = {{"seconds", outcome.build_seconds}, {"cache_hit", outcome.build_cache_hit}};
  result["worker_seconds"] = outcome.worker_seconds;
}

int run_schedule(const SourceOptions &options, const hlsched::AutoschedulerOptions &search, bool verify,
                 const std::string &stmt_out, const std::string &decisions) {
  AnalysisRequest request = options.request("schedule");
  request.search = search;
  request.verify = verify;
  if (!decisions.empty()) request.decisions_path = std::filesystem::absolute(decisions).string();
  AnalysisOutcome outcome = hlsched::server::analyze_generator(request);
  if (!outcome.ok()) return report_failure(outcome, options.json);
  add_timing(outcome.result, outcome);
  if (!stmt_out.empty()) {
    // Lower in a fresh process, as a pasted schedule would be (Halide's name counters are
    // per process, and the search creates names).
    const std::string spec_path = stmt_out + ".schedule.json";
    std::ofstream(spec_path) << outcome.result["schedule"].dump();
    AnalysisRequest apply = options.request("apply");
    apply.schedule_path = spec_path;
    apply.stmt_path = stmt_out;
    AnalysisOutcome applied = hlsched::server::analyze_generator(apply);
    std::remove(spec_path.c_str());
    if (!applied.ok()) return report_failure(applied, options.json);
    outcome.result["verified"] = {{"compiled", true}, {"gpu_kernels", applied.result["gpu_kernels"]}};
    if (applied.result.contains("unbounded_launches"))
      outcome.result["verified"]["unbounded_launches"] = applied.result["unbounded_launches"];
  }
  if (options.json) std::cout << outcome.result.dump(2) << "\n";
  else std::cout << hlsched::server::schedule_report(outcome.result);
  return 0;
}

int run_dag(const SourceOptions &options) {
  AnalysisOutcome outcome = hlsched::server::analyze_generator(options.request("dag"));
  if (!outcome.ok()) return report_failure(outcome, options.json);
  if (options.json) std::cout << outcome.result.dump(2) << "\n";
  else std::cout << hlsched::server::dag_report(outcome.result);
  return 0;
}

int run_lower(const SourceOptions &options, const std::string &target, const std::string &stmt_out) {
  AnalysisRequest request = options.request("lower");
  request.target = target;
  request.stmt_path = stmt_out;
  AnalysisOutcome outcome = hlsched::server::analyze_generator(request);
  if (!outcome.ok()) return report_failure(outcome, options.json);
  if (options.json) std::cout << outcome.result.dump(2) << "\n";
  else
    std::cout << "Generator '" << outcome.result.value("generator", "?") << "' with its own schedule compiles for "
              << outcome.result.value("target", "?") << ": " << outcome.result.value("gpu_kernels", 0)
              << " GPU kernels.\n"
              << hlsched::server::unbounded_launches_report(outcome.result);
  return 0;
}

int run_random_pipeline(const hlsched::server::RandomPipelineOptions &options, const std::string &output) {
  const std::string source = hlsched::server::random_pipeline_source(options);
  if (output.empty()) {
    std::cout << source;
    return 0;
  }
  std::ofstream file(output, std::ios::binary);
  file << source;
  if (!file.flush()) throw std::invalid_argument("cannot write " + output);
  return 0;
}

int run_sample(const SourceOptions &options, int count, uint64_t seed) {
  AnalysisRequest request = options.request("sample");
  request.sample_count = count;
  request.sample_seed = seed;
  AnalysisOutcome outcome = hlsched::server::analyze_generator(request);
  if (!outcome.ok()) return report_failure(outcome, options.json);
  if (options.json) {
    std::cout << outcome.result.dump(2) << "\n";
    return 0;
  }
  int i = 0;
  for (const json &s : outcome.result["samples"])
    std::cout << "// ---- sample " << i++ << ": predicted " << s.value("predicted_runtime_ms", 0.0) << " ms ----\n"
              << s.value("schedule_code", "") << "\n";
  return 0;
}

int run_model_bench(const SourceOptions &options, const std::string &weights) {
  hlsched::server::AnalysisRequest request = options.request("model-bench");
  // Empty: an untrained network (the same cost per evaluation as trained weights of one network).
  if (!weights.empty()) request.search.weights = std::filesystem::absolute(weights).string();
  AnalysisOutcome outcome = hlsched::server::analyze_generator(request);
  if (!outcome.ok()) return report_failure(outcome, false);
  const json &r = outcome.result;
  std::cout << r.value("generator", "?") << " (" << r.value("funcs", 0) << " Funcs, " << r.value("kernels", 0)
            << " kernels of 16 random schedules), evaluations per second on one core: hand model "
            << int64_t(r.value("hand_per_second", 0.0)) << ", learned model (features + network) "
            << int64_t(r.value("learned_per_second", 0.0)) << "; building a kernel model "
            << int64_t(r.value("kernel_model_per_second", 0.0)) << "\n";
  return 0;
}

int run_options_bench(const SourceOptions &options) {
  AnalysisOutcome outcome = hlsched::server::analyze_generator(options.request("options-bench"));
  if (!outcome.ok()) return report_failure(outcome, false);
  const json &r = outcome.result;
  std::cout << r.value("generator", "?") << " (" << r.value("funcs", 0) << " Funcs): "
            << int64_t(r.value("children_per_second", 0.0)) << " children/s, "
            << int64_t(r.value("states_costed_per_second", 0.0)) << " states costed/s (no memo), "
            << int64_t(r.value("hashes_per_second", 0.0)) << " state hashes/s over " << r.value("children", 0)
            << " children in " << r.value("seconds", 0.0) << " s\n";
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"hlsched: GPU schedules for Halide generators"};
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level, "trace, debug, info, warn (default), error, off; or $HLSCHED_LOG");

  SourceOptions schedule_options;
  hlsched::AutoschedulerOptions search_options;
  std::string stmt_out, decisions;
  bool verify = false;
  CLI::App *schedule = app.add_subcommand("schedule", "Find a GPU schedule for a generator and predict its runtime");
  schedule_options.add_to(schedule);
  hlsched::server::add_search_options(schedule, search_options);
  schedule->add_flag("--verify", verify, "Also compile the scheduled pipeline for the target");
  schedule->add_option("--stmt-out", stmt_out, "Write the lowered program of the scheduled pipeline here");
  schedule->add_option("--decisions", decisions,
                       "Rebuild and cost a saved schedule (the decisions of --json or --measure-out) with no search")
      ->check(CLI::ExistingFile);
  // --measure (docs/COST_MODEL.md, "Measuring the best candidates"): the search's best K on a GPU.
  hlsched::dataset::MeasureRequest measure;
  schedule->add_option("--measure", measure.count,
                       "Benchmark the search's K best candidates on a GPU and print the fastest measured one")
      ->check(CLI::Range(1, 64));
  schedule->add_option("--measure-out", measure.out_dir, "--measure: the candidates' benchmark bundle folder");
  schedule->add_option("--measure-results", measure.results_path,
                       "--measure: the runner's results of that bundle (run elsewhere): pick the fastest")
      ->check(CLI::ExistingFile);
  schedule->add_option("--measure-dataset", measure.dataset, "--measure: the dataset the measurements are appended to");
  schedule->add_option("--measure-budget", measure.run_budget_s, "--measure: seconds the benchmark run may take")
      ->check(CLI::PositiveNumber);
  schedule->add_option("--measure-driver", measure.driver, "--measure: NVIDIA driver version for the records");
  schedule->add_flag("--measure-no-gpu", measure.force_no_gpu,
                     "--measure: do not look for a GPU: build the bundle and say how to run it");

  SourceOptions dag_options;
  CLI::App *dag = app.add_subcommand("dag", "Print the pipeline DAG the scheduler works from");
  dag_options.add_to(dag);

  SourceOptions lower_options;
  std::string lower_target, lower_stmt;
  SourceOptions sample_options;
  int sample_count = 10;
  uint64_t sample_seed = 0;
  CLI::App *sample = app.add_subcommand("sample", "Draw random schedules by random walks over the search's options");
  sample_options.add_to(sample);
  sample->add_option("--count", sample_count, "How many schedules")->check(CLI::PositiveNumber);
  sample->add_option("--seed", sample_seed, "Seed: the same seed draws the same schedules");

  SourceOptions options_bench_options;
  CLI::App *options_bench = app.add_subcommand("options-bench", "Measure the schedule space's throughput (children, costs, hashes per second)");
  options_bench_options.add_to(options_bench, /*with_json=*/false);

  SourceOptions model_bench_options;
  CLI::App *model_bench = app.add_subcommand("model-bench", "Measure the cost models' evaluations per second on one core");
  model_bench_options.add_to(model_bench, /*with_json=*/false);
  std::string model_bench_weights;
  model_bench->add_option("--weights", model_bench_weights,
                          "Learned model weights to time (an ensemble costs one network per member)");

  hlsched::server::TrainCommand train_command;
  train_command.add_to(app);
  CLI::App *train = app.get_subcommand("train");

  CLI::App *lower = app.add_subcommand("lower", "Compile a generator with its own schedule for a target (checks a pasted schedule)");
  lower_options.add_to(lower);
  lower->add_option("--target", lower_target, "Halide target (default: the GPU profile's)");
  lower->add_option("--stmt-out", lower_stmt, "Write the lowered program here");

  hlsched::server::RandomPipelineOptions random_options;
  std::string random_output;
  CLI::App *random = app.add_subcommand("random-pipeline", "Write a random Halide generator (training and stress tests)");
  random->add_option("--seed", random_options.seed, "Random seed: the same seed writes the same file")->required();
  random->add_option("--stages", random_options.stages, "Number of stages")
      ->check(CLI::Range(1, hlsched::server::kMaxRandomPipelineStages));
  random->add_option("--writer-version", random_options.writer_version,
                     "Which writer (1: the datasets of 2026-12-01/02; default: the newest)")
      ->check(CLI::Range(1, hlsched::server::kRandomPipelineWriterVersion));
  random->add_option("--output,-o", random_output, "Write the source here (default: stdout)");

  hlsched::server::bench::BenchCommand bench_command;
  CLI::App *bench = bench_command.add_to(app);
  hlsched::server::bench::ReportCommand report_command;
  CLI::App *report = report_command.add_to(app);
  hlsched::server::RpcCommand rpc_command;
  CLI::App *rpc = rpc_command.add_to(app);

  hlsched::dataset::DatasetCommand dataset_command;
  CLI::App *dataset = dataset_command.add_to(app);
  hlsched::server::DatasetCheckCommand dataset_check_command;
  CLI::App *dataset_check = dataset_check_command.add_to(*dataset);
  hlsched::dataset::AutotuneCommand autotune_command;
  CLI::App *autotune = autotune_command.add_to(app);

  hlsched::server::lsp::ServeOptions serve_options;
  CLI::App *serve = app.add_subcommand("serve", "Run the language server: LSP over stdio, or over TCP with --listen");
  serve_options.add_to(serve);

  hlsched::server::WorkerRequest worker_request;
  std::vector<std::string> worker_params;
  CLI::App *worker = app.add_subcommand("worker", "(internal) analyze a compiled generator in this process");
  worker->group("");  // hidden from --help
  worker->add_option("--task", worker_request.task)->required();
  worker->add_option("--library", worker_request.library)->required();
  worker->add_option("--result", worker_request.result_path)->required();
  worker->add_option("--generator", worker_request.generator);
  worker->add_option("--param", worker_params);
  worker->add_option("--gpu", worker_request.gpu_profile);
  hlsched::server::add_search_options(worker, worker_request.search);
  worker->add_option("--target", worker_request.target);
  worker->add_option("--stmt-out", worker_request.stmt_path);
  worker->add_flag("--verify", worker_request.verify);
  worker->add_option("--schedule", worker_request.schedule_path);
  worker->add_option("--decisions", worker_request.decisions_path);
  worker->add_option("--count", worker_request.sample_count);
  worker->add_option("--sample-seed", worker_request.sample_seed);
  worker->add_option("--sample-first", worker_request.sample_first);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help is a "parse error" with status 0; every real one is a usage error (2).
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    hlsched::server::setup_logging(log_level);
    if (*schedule && (schedule->count("--measure") || schedule->count("--measure-results"))) {
      if (schedule_options.json || verify || !stmt_out.empty() || !decisions.empty())
        throw std::invalid_argument("--measure cannot be combined with --json, --verify, --stmt-out or --decisions");
      measure.analysis = schedule_options.request("schedule");
      measure.analysis.search = search_options;
      return hlsched::dataset::measure_schedule(measure);
    }
    if (*schedule) return run_schedule(schedule_options, search_options, verify, stmt_out, decisions);
    if (*dag) return run_dag(dag_options);
    if (*serve) return hlsched::server::lsp::run_serve(serve_options);
    if (*lower) return run_lower(lower_options, lower_target, lower_stmt);
    if (*sample) return run_sample(sample_options, sample_count, sample_seed);
    if (*options_bench) return run_options_bench(options_bench_options);
    if (*model_bench) return run_model_bench(model_bench_options, model_bench_weights);
    if (*train) return train_command.run();
    if (*random) return run_random_pipeline(random_options, random_output);
    if (*bench) return bench_command.run();
    if (*report) return report_command.run();
    if (*rpc) return rpc_command.run();
    if (*dataset_check) return dataset_check_command.run();
    if (*dataset) return dataset_command.run();
    if (*autotune) return autotune_command.run();
    if (*worker) {
      for (const auto &p : worker_params) worker_request.params.insert(hlsched::server::parse_param(p));
      return hlsched::server::run_worker_task(worker_request);
    }
  } catch (const std::invalid_argument &e) {
    std::cerr << "hlsched: " << e.what() << "\n";
    return 2;
  } catch (const std::exception &e) {
    std::cerr << "hlsched: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return 0;
}
