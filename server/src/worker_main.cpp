#include "worker_main.h"

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/compile_check.h"
#include "hlsched/engine/cost_training.h"
#include "hlsched/engine/generator_instance.h"
#include "hlsched/engine/gpu_profile.h"
#include "hlsched/engine/loop_nest.h"
#include "hlsched/engine/pipeline_dag.h"
#include "hlsched/engine/search_benchmarks.h"
#include "result_json.h"
#include "schedule_json.h"
#include "util/file_text.h"

namespace hlsched::server {

using nlohmann::json;

namespace {

// A rebuilt schedule for the dataset fidelity check (server/src/dataset/fidelity.h): how it was
// rebuilt, its kernels' launches, and the loop nests of today's directives next to those of the
// directives that were measured (`ref["spec"]`), where they differ.
json rebuilt_to_json(const PipelineDag &dag, const RebuiltSchedule &r, const json &ref) {
  json kernels = json::array();
  for (const RebuiltSchedule::Launch &k : r.kernels) {
    json kernel = {{"func", k.func}, {"stage", k.stage}, {"blocks", k.blocks}, {"threads", k.threads_per_block}};
    if (k.partials) kernel["partials"] = true;
    if (!k.computed_with.empty()) kernel["computed_with"] = k.computed_with;
    kernels.push_back(std::move(kernel));
  }
  json out = {{"from", r.from}, {"kernels", kernels}};
  if (r.from.empty() || !ref.contains("spec") || !ref["spec"].is_object()) return out;
  // Measured before outputs had schedules for whole tiles: still the schedule measured where
  // today's general schedule is (compare_loop_nests). The kernel model prices that one, so the
  // features are those of what ran.
  LoopNestComparison compared;
  try {
    compared = compare_loop_nests(dag, schedule_spec_from_json(ref["spec"]), r.spec);
  } catch (const std::exception &e) {
    out["spec_error"] = e.what();
    return out;
  }
  out["loop_nest_differs"] = compared.differing;
  if (compared.whole_tiles_added) out["whole_tiles_added"] = true;
  return out;
}

// ---- Injected faults (tests and the fault soak only) -------------------------------------------
//
// $HLSCHED_WORKER_FAULT makes the worker fail on purpose, as a crash, the OOM killer or a full
// disk would: "kill-after-load", "kill-after-instantiate", "kill-after-search" (SIGKILL itself
// there), "garbage-result", "partial-result" (exit 0 with a result file that is not JSON), or
// "random" (one of those or none, chosen per process). Unset: no fault.
// See tests/server/test_worker_faults.cpp and scripts/bench/worker_fault_soak.sh.
enum class Fault { None, KillAfterLoad, KillAfterInstantiate, KillAfterSearch, GarbageResult, PartialResult };

Fault injected_fault() {
  static const Fault fault = [] {
    const char *value = std::getenv("HLSCHED_WORKER_FAULT");
    std::string name = value ? value : "";
    if (name == "random") {
      static const char *const names[] = {"", "kill-after-load", "kill-after-instantiate", "kill-after-search",
                                          "garbage-result", "partial-result"};
      name = names[std::random_device{}() % 6];
    }
    if (name == "kill-after-load") return Fault::KillAfterLoad;
    if (name == "kill-after-instantiate") return Fault::KillAfterInstantiate;
    if (name == "kill-after-search") return Fault::KillAfterSearch;
    if (name == "garbage-result") return Fault::GarbageResult;
    if (name == "partial-result") return Fault::PartialResult;
    return Fault::None;
  }();
  return fault;
}

void die_here_if(Fault point) {
  if (injected_fault() == point) ::kill(::getpid(), SIGKILL);
}

// Errors in what the user gave us (as opposed to bugs in hlsched).
struct UserError : std::runtime_error {
  UserError(std::string kind, const std::string &message) : std::runtime_error(message), kind(std::move(kind)) {}
  std::string kind;
};

// A schedule's saved decisions (`--decisions`), whole.
std::string read_text_file(const std::string &path) {
  std::optional<std::string> text = read_file_text(path);
  if (!text) throw UserError("schedule", "cannot read the decisions file " + path);
  return *text;
}

// False when the result could not be written completely (a full disk): the parent then finds no
// readable result and says so, rather than reading half of one.
bool write_result(const std::string &path, const json &result) {
  std::ofstream out(path);
  std::string text = result.dump(2) + "\n";
  if (injected_fault() == Fault::PartialResult) text.resize(text.size() / 2);
  if (injected_fault() == Fault::GarbageResult)
    for (std::size_t i = 0; i < text.size(); i++) text[i] = static_cast<char>((i * 2654435761u) >> 13);
  out << text;
  out.close();
  return bool(out);
}

// Address space kept back for reporting running out of it: when a generator exhausts the
// worker's memory limit, this is freed so that the error result can still be formatted and
// written (the generator's own allocations may still be held).
char *memory_reserve = nullptr;

void load_library(const std::string &path) {
  // RTLD_NOW surfaces missing symbols here, with a message, instead of mid-build.
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
    throw UserError("load", std::string("could not load the compiled generator: ") + dlerror());
}

void write_stmt(const std::string &path, const CompiledPipeline &compiled) {
  if (path.empty()) return;
  std::ofstream(path) << compiled.lowered_stmt;
}

// `result` with the launches over the hardware's threads per block at the estimated sizes, or of a
// size known only at run time, if any (CompiledPipeline::unbounded_launches): such a program
// compiles and may fail to launch.
json with_unbounded_launches(json result, const CompiledPipeline &compiled) {
  for (const KernelLaunch &launch : compiled.unbounded_launches())
    result["unbounded_launches"].push_back({{"kernel", launch.kernel}, {"block_threads", launch.block_threads}});
  return result;
}

json run_task(const WorkerRequest &request) {
  load_library(request.library);
  die_here_if(Fault::KillAfterLoad);
  std::string name;
  try {
    name = choose_generator(request.generator);
  } catch (const std::runtime_error &e) {
    throw UserError("generator", e.what());
  }
  const GpuProfile &gpu = find_gpu_profile(request.gpu_profile);
  const Halide::Target target(request.target.empty() ? gpu.halide_target : request.target);

  if (request.task == "lower") {
    // The generator's own schedule, as GenGen would build it.
    GeneratorInstance inst = instantiate_generator(name, target, request.params, /*auto_schedule=*/false);
    CompiledPipeline compiled = compile_pipeline(inst.pipeline, target, name);
    write_stmt(request.stmt_path, compiled);
    return with_unbounded_launches({{"generator", name}, {"target", target.to_string()}, {"gpu_kernels", compiled.gpu_kernels()}},
                                   compiled);
  }

  if (request.task == "apply") {
    // A schedule found earlier, applied in a fresh process: the lowered program is then exactly
    // what the same schedule pasted into the generator gives.
    std::ifstream in(request.schedule_path);
    if (!in) throw UserError("schedule", "cannot read schedule file " + request.schedule_path);
    json spec = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (spec.contains("schedule")) spec = spec["schedule"];
    // To the algorithm: the schedule replaces any the generator already has.
    GeneratorInstance inst = instantiate_generator(name, target, request.params, /*auto_schedule=*/true);
    apply_schedule(schedule_spec_from_json(spec), inst.algorithm, ApplyMode::Gpu);
    CompiledPipeline compiled = compile_pipeline(inst.algorithm, target, name);
    write_stmt(request.stmt_path, compiled);
    return with_unbounded_launches({{"generator", name}, {"target", target.to_string()}, {"gpu_kernels", compiled.gpu_kernels()}},
                                   compiled);
  }

  // Everything below plans the algorithm, whatever schedule the generator already has: a
  // pasted suggestion is then analyzed as the pipeline it was suggested for.
  GeneratorInstance inst = instantiate_generator(name, target, request.params, /*auto_schedule=*/true);
  die_here_if(Fault::KillAfterInstantiate);
  Halide::Pipeline &algorithm = inst.algorithm;
  PipelineDag dag;
  try {
    dag = build_pipeline_dag(algorithm);
  } catch (const MissingEstimatesError &e) {
    throw UserError("missing_estimates", e.what());
  }
  if (request.task == "dag") {
    json out = to_json(dag);
    out["generator"] = name;
    return out;
  }
  if (request.task == "sample") {
    AutoschedulerOptions options = request.search;
    options.gpu_profile = request.gpu_profile;
    json samples = json::array();
    // One walk at a time, to say which walk each sample is: walks that end without a complete
    // schedule are left out, and the plugin's sample=I names the walk, not the position here.
    for (int walk = request.sample_first; walk < request.sample_first + request.sample_count; walk++)
      for (const ScheduleResult &r : sample_schedules(algorithm, dag, options, 1, request.sample_seed, walk)) {
        json entry = to_json(r);
        entry.erase("search");
        entry["walk"] = walk;
        samples.push_back(entry);
      }
    return {{"generator", name}, {"seed", request.sample_seed}, {"samples", samples}};
  }
  if (request.task == "featurize") {
    // Training: the listed schedules' kernel features (schedule_path: a JSON array of
    // {"sample_seed", "sample_index"} or {"state": saved state text}, each with the "spec" that
    // was measured when known), and what each schedule became (the fidelity check compares it
    // with what was measured).
    std::ifstream in(request.schedule_path);
    const json refs = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!refs.is_array()) throw UserError("schedule", "cannot read the schedule list " + request.schedule_path);
    std::vector<ScheduleRef> schedules;
    for (const json &r : refs) {
      ScheduleRef ref;
      ref.sample_seed = r.value("sample_seed", uint64_t(0));
      ref.sample_index = r.value("sample_index", -1);
      ref.state_text = r.value("state", std::string());
      schedules.push_back(ref);
    }
    AutoschedulerOptions options = request.search;
    options.gpu_profile = request.gpu_profile;
    TrainingSet set;
    std::vector<RebuiltSchedule> rebuilt;
    set.pipelines.push_back({name, featurize_schedules(dag, options, schedules, &rebuilt)});
    json what = json::array();
    for (size_t i = 0; i < rebuilt.size(); i++) what.push_back(rebuilt_to_json(dag, rebuilt[i], refs[i]));
    return {{"generator", name}, {"feature_version", cost_feature_version()}, {"features", training_set_to_text(set)},
            {"rebuilt", what}};
  }
  if (request.task == "model-bench") {
    AutoschedulerOptions options = request.search;
    options.gpu_profile = request.gpu_profile;
    const CostModelThroughput t = measure_cost_model_throughput(dag, options, 3.0);
    return {{"generator", name}, {"funcs", dag.funcs.size()}, {"kernels", t.kernels},
            {"hand_per_second", t.hand_per_second}, {"learned_per_second", t.learned_per_second},
            {"kernel_model_per_second", t.model_build_per_second}};
  }
  if (request.task == "options-bench") {
    AutoschedulerOptions options = request.search;
    options.gpu_profile = request.gpu_profile;
    OptionThroughput t = measure_option_throughput(dag, options, 3.0);
    return {{"generator", name}, {"funcs", dag.funcs.size()}, {"children", t.children}, {"seconds", t.seconds},
            {"children_per_second", t.children_per_second}, {"states_costed_per_second", t.states_costed_per_second},
            {"hashes_per_second", t.hashes_per_second}};
  }
  if (request.task == "candidates") {
    // The search's best `sample_count` distinct schedules, best predicted first (--measure).
    AutoschedulerOptions options = request.search;
    options.gpu_profile = request.gpu_profile;
    json candidates = json::array();
    for (const ScheduleResult &r : schedule_candidates(inst.pipeline, dag, options, request.sample_count))
      candidates.push_back(to_json(r));
    return {{"generator", name}, {"candidates", candidates}};
  }
  if (request.task != "schedule") throw std::invalid_argument("unknown worker task '" + request.task + "'");

  AutoschedulerOptions options = request.search;
  options.gpu_profile = request.gpu_profile;
  ScheduleResult result = request.decisions_path.empty()
                              ? schedule_pipeline(algorithm, dag, options)
                              : schedule_from_decisions(algorithm, dag, options, read_text_file(request.decisions_path));
  die_here_if(Fault::KillAfterSearch);
  json out = to_json(result);
  out["generator"] = name;
  if (request.verify) {
    apply_schedule(result.schedule, algorithm, ApplyMode::Gpu);
    // Compiled as the schedule says it must be: with large_buffers when its buffers need it.
    Halide::Target verify_target = target;
    if (Halide::Target(result.target).has_feature(Halide::Target::LargeBuffers))
      verify_target = verify_target.with_feature(Halide::Target::LargeBuffers);
    CompiledPipeline compiled = compile_pipeline(algorithm, verify_target, name);
    out["verified"] = with_unbounded_launches(
        {{"compiled", true}, {"gpu_kernels", compiled.gpu_kernels()}, {"target", verify_target.to_string()}}, compiled);
  }
  return out;
}

json error_json(const std::string &kind, const std::string &message) {
  return {{"error", {{"kind", kind}, {"message", message}}}};
}

}  // namespace

int run_worker_task(const WorkerRequest &request) {
  memory_reserve = new char[8 << 20];
  try {
    return write_result(request.result_path, run_task(request)) ? kWorkerOk : kWorkerInternalError;
  } catch (const std::bad_alloc &) {
    delete[] memory_reserve;
    memory_reserve = nullptr;
    // The worker's memory limit (RLIMIT_AS) tripped: the generator or the search needed more.
    write_result(request.result_path, error_json("out_of_memory", "the generator or the search ran out of memory (std::bad_alloc)"));
  } catch (const UserError &e) {
    write_result(request.result_path, error_json(e.kind, e.what()));
  } catch (const Halide::CompileError &e) {
    write_result(request.result_path, error_json("halide_error", e.what()));
  } catch (const Halide::RuntimeError &e) {
    write_result(request.result_path, error_json("halide_error", e.what()));
  } catch (const Halide::InternalError &e) {
    write_result(request.result_path, error_json("halide_internal_error", e.what()));
    return kWorkerInternalError;
  } catch (const std::exception &e) {
    write_result(request.result_path, error_json("internal", e.what()));
    return kWorkerInternalError;
  }
  return kWorkerUserError;
}

}  // namespace hlsched::server
