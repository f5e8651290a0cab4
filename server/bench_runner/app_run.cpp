#include "app_run.h"

#include <HalideRuntime.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "argument_set.h"
#include "argument_spec.h"
#include "backend.h"
#include "filter_registry.h"
#include "kernel_names.h"

namespace hlsched::bench {
namespace {

using nlohmann::json;
using Buffer = Halide::Runtime::Buffer<void>;

// Halide reports errors through a handler (the default one prints them); we keep the text so
// that a failed variant's record says what went wrong.
std::string g_halide_errors;
void capture_halide_error(void *, const char *message) {
  g_halide_errors += message;
  std::cerr << "halide: " << message;
}

const RegisteredFilter &filter_for(const std::string &function) {
  const RegisteredFilter *f = find_filter(function);
  if (!f) throw std::runtime_error("variant " + function + " is not linked into this runner");
  return *f;
}

json summary_json(const TimingSummary &s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean},
          {"p10", s.p10},       {"p90", s.p90}, {"count", s.count}};
}

json comparison_json(const OutputComparison &c) {
  return {{"ok", c.ok},
          {"rule", c.rule},
          {"elements", c.elements},
          {"mismatches", c.mismatches},
          {"first_mismatch", c.first_mismatch},
          {"max_abs_diff", c.max_abs_diff},
          {"relative_l2_error", c.relative_l2_error}};
}

// Runs the pipeline once on `args`; throws with Halide's message when it fails.
void call_checked(Backend &backend, const RegisteredFilter &filter, std::vector<void *> &args, double *ms = nullptr) {
  g_halide_errors.clear();
  int status = 0;
  const double elapsed = backend.timed_call([&] { return filter.argv_call(args.data()); }, status);
  if (status != 0)
    throw std::runtime_error("the pipeline returned error " + std::to_string(status) +
                             (g_halide_errors.empty() ? std::string() : ": " + g_halide_errors));
  if (ms) *ms = elapsed;
}

// The app's reference outputs live in files so that every child process of the app compares
// against the same ones: <dir>/<app>.reference (the variant's name) and <dir>/<app>.<output>.bin.
class ReferenceStore {
public:
  ReferenceStore(std::string dir, std::string app) : dir_(std::move(dir)), app_(std::move(app)) {}

  /// The variant whose outputs are the reference; empty when there is none yet.
  std::string owner() const {
    std::ifstream in(dir_ + "/" + app_ + ".reference");
    std::string name;
    std::getline(in, name);
    return name;
  }

  void save(const std::string &owner, std::map<std::string, Buffer> &outputs) const {
    for (auto &[name, buffer] : outputs) {
      std::ofstream out(path(name), std::ios::binary);
      out.write(static_cast<const char *>(buffer.data()), std::streamsize(buffer.raw_buffer()->size_in_bytes()));
      if (!out) throw std::runtime_error("cannot write the reference output " + path(name));
    }
    std::ofstream(dir_ + "/" + app_ + ".reference") << owner << "\n";
  }

  /// A host buffer shaped like `like`, holding the reference output `name`.
  Buffer load(const std::string &name, const Buffer &like) const {
    Buffer copy = like.copy();
    std::ifstream in(path(name), std::ios::binary);
    in.read(static_cast<char *>(copy.data()), std::streamsize(copy.raw_buffer()->size_in_bytes()));
    if (!in) throw std::runtime_error("cannot read the reference output " + path(name));
    return copy;
  }

private:
  std::string path(const std::string &output) const { return dir_ + "/" + app_ + "." + output + ".bin"; }
  std::string dir_, app_;
};

// Per-kernel times over several traced calls: for each kernel name (in launch order), its
// launches per call and the median over calls of its total time in the call.
json trace_kernels(Backend &backend, KernelTrace &trace, const RegisteredFilter &filter,
                   std::vector<std::vector<void *>> &argvs, int repetitions, const std::vector<std::string> &funcs) {
  struct PerKernel {
    KernelRecord first;
    std::vector<double> ms_per_call;
    int launches = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, PerKernel> kernels;
  std::vector<double> busy_per_call;
  for (int r = 0; r < repetitions; r++) {
    trace.start();
    call_checked(backend, filter, argvs[size_t(r) % argvs.size()]);
    backend.synchronize();
    const std::vector<KernelRecord> records = trace.stop();
    std::map<std::string, double> this_call;
    double busy = 0;
    for (const KernelRecord &k : records) {
      const double ms = double(k.end_ns - k.start_ns) * 1e-6;
      if (!kernels.count(k.name)) {
        order.push_back(k.name);
        kernels[k.name].first = k;
      }
      kernels[k.name].launches++;
      this_call[k.name] += ms;
      busy += ms;
    }
    for (const auto &name : order) kernels[name].ms_per_call.push_back(this_call[name]);  // 0 if absent
    busy_per_call.push_back(busy);
  }
  json list = json::array();
  for (const auto &name : order) {
    const PerKernel &k = kernels[name];
    const KernelOwner owner = kernel_owner(name, funcs);
    list.push_back({{"name", name},
                    {"func", owner.func},
                    {"stage", owner.stage},
                    {"launches_per_call", double(k.launches) / repetitions},
                    {"ms", summarize(k.ms_per_call).median},
                    {"grid", {k.first.grid[0], k.first.grid[1], k.first.grid[2]}},
                    {"block", {k.first.block[0], k.first.block[1], k.first.block[2]}},
                    {"registers_per_thread", k.first.registers_per_thread},
                    {"shared_memory_bytes", k.first.shared_memory_bytes},
                    {"local_memory_bytes_per_thread", k.first.local_memory_bytes_per_thread},
                    {"shared_memory_executed_bytes", k.first.shared_memory_executed_bytes}});
  }
  return {{"calls", repetitions}, {"kernels", list}, {"busy_ms", summarize(busy_per_call).median}};
}

json measure_variant(Backend &backend, const AppEntry &app, const std::string &function,
                     std::vector<std::unique_ptr<ArgumentSet>> &sets, const AppRunOptions &options,
                     ReferenceStore &references) {
  const RegisteredFilter &filter = filter_for(function);
  std::vector<std::vector<void *>> argvs;
  for (auto &set : sets) argvs.push_back(set->argv(*filter.metadata));
  json record;

  // 1. Warm-up.
  for (int i = 0; i < options.repetitions.warmup; i++) call_checked(backend, filter, argvs[size_t(i) % argvs.size()]);
  backend.synchronize();

  // 2. Output check on set 0.
  auto &outputs = sets[0]->outputs();
  for (auto &[name, buffer] : outputs) backend.poison_output(buffer);
  call_checked(backend, filter, argvs[0]);
  for (auto &[name, buffer] : outputs) backend.fetch_output(buffer);
  const std::string owner = references.owner();
  if (owner.empty()) {
    references.save(function, outputs);
    record["check"] = {{"reference", function}, {"ok", true}};
  } else {
    json per_output = json::object();
    bool ok = true;
    for (auto &[name, buffer] : outputs) {
      const OutputComparison c = compare_outputs(buffer, references.load(name, buffer), options.tolerance);
      ok = ok && c.ok;
      per_output[name] = comparison_json(c);
    }
    record["check"] = {{"reference", owner}, {"ok", ok}, {"outputs", per_output}};
  }

  // 3. Timed calls.
  std::vector<double> samples;
  double total_ms = 0;
  while (options.repetitions.want_more(int(samples.size()), total_ms * 1e-3)) {
    double ms = 0;
    call_checked(backend, filter, argvs[samples.size() % argvs.size()], &ms);
    samples.push_back(ms);
    total_ms += ms;
  }
  record["runtime_ms"] = summary_json(summarize(samples));
  record["samples_ms"] = samples;

  // 4. Per-kernel times.
  std::string why_not;
  KernelTrace *trace = options.kernel_repetitions > 0 ? backend.kernel_trace(why_not) : nullptr;
  if (trace) record["kernel_trace"] = trace_kernels(backend, *trace, filter, argvs, options.kernel_repetitions, app.funcs);
  else record["kernel_trace"] = {{"error", options.kernel_repetitions > 0 ? why_not : "disabled"}};
  return record;
}

void append_record(const std::string &path, const json &record) {
  std::ofstream out(path, std::ios::app);
  out << record.dump() << "\n";
  if (!out) throw std::runtime_error("cannot append to " + path);
}

}  // namespace

int run_app_variants(const Manifest &manifest, const std::string &app_name, const std::vector<std::string> &functions,
                     const AppRunOptions &options) {
  halide_set_error_handler(capture_halide_error);
  const AppEntry &app = manifest.app(app_name);
  std::unique_ptr<Backend> backend =
      manifest.uses_cuda() ? make_cuda_backend(options.library_dir, options.cache_config) : make_host_backend();

  // Every variant of the app takes the same arguments (check_variants verified it when the
  // bundle was built), so the first one's specs shape the shared buffers.
  const std::vector<ArgumentSpec> specs = argument_specs(*filter_for(functions.front()).metadata);
  const int64_t working_set = working_set_bytes(specs);
  const int set_count =
      input_set_count(working_set, options.rotate_below_bytes, options.rotate_target_bytes, options.max_input_sets);
  std::vector<std::unique_ptr<ArgumentSet>> sets;
  for (int i = 0; i < set_count; i++) sets.push_back(std::make_unique<ArgumentSet>(specs, app, i, *backend));
  backend->synchronize();

  ReferenceStore references(options.reference_dir, app_name);
  json arguments = json::array();
  for (const auto &s : specs) arguments.push_back(describe(s));
  for (const std::string &function : functions) {
    json record{{"function", function},
                {"app", app_name},
                {"input_sets", set_count},
                {"working_set_bytes", working_set},
                {"input_bytes", input_bytes(specs)},
                {"output_bytes", output_bytes(specs)},
                {"arguments", arguments}};
    for (const auto &v : manifest.variants)
      if (v.function == function) record["label"] = v.label;
    // A marker first: if this process dies while measuring, the orchestrator knows which
    // variant killed it.
    append_record(options.records_path, {{"function", function}, {"status", "started"}});
    try {
      record.update(measure_variant(*backend, app, function, sets, options, references));
      record["status"] = "ok";
      append_record(options.records_path, record);
      std::cerr << "  " << function << ": " << record["runtime_ms"]["median"].get<double>() << " ms"
                << (record["check"]["ok"].get<bool>() ? "" : " (OUTPUT DIFFERS)") << "\n";
    } catch (const std::exception &e) {
      record["status"] = "failed";
      record["error"] = e.what();
      append_record(options.records_path, record);
      std::cerr << "  " << function << ": FAILED: " << e.what() << "\n";
      return 1;  // the context may be unusable; the orchestrator continues in a fresh process
    }
  }
  sets.clear();
  return 0;
}

std::vector<std::string> check_variants(const Manifest &manifest, const std::vector<std::string> &apps, bool verbose) {
  std::vector<std::string> problems;
  for (const std::string &app : apps) {
    std::vector<ArgumentSpec> first;
    std::string first_name;
    for (const VariantEntry &v : manifest.compiled_variants(app)) {
      const RegisteredFilter *filter = find_filter(v.function);
      if (!filter) {
        problems.push_back(v.function + ": not linked into this runner");
        continue;
      }
      const bool gpu = std::string(filter->metadata->target).find("cuda") != std::string::npos;
      if (gpu != manifest.uses_cuda())
        problems.push_back(v.function + ": compiled for " + filter->metadata->target + ", the manifest says " + manifest.target);
      try {
        std::vector<ArgumentSpec> specs = argument_specs(*filter->metadata);
        if (first_name.empty()) {
          first = specs;
          first_name = v.function;
          if (verbose) {
            std::cout << app << ":\n";
            for (const auto &s : specs) std::cout << "    " << describe(s) << "\n";
          }
        } else {
          for (const auto &d : argument_differences(first, specs)) problems.push_back(v.function + " vs " + first_name + ": " + d);
        }
        if (verbose) std::cout << "  " << v.function << "  (" << v.label << ", " << filter->metadata->target << ")\n";
      } catch (const std::exception &e) {
        problems.push_back(e.what());
      }
    }
  }
  return problems;
}

}  // namespace hlsched::bench
