#include "hlsched/engine/compile_check.h"

#include <map>
#include <sstream>

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Finds kernel launches in the host code: after offloading, each GPU kernel is a call to the
// device runtime's run function (halide_cuda_run, halide_opencl_run, ...), whose arguments are
// (state, entry name, blocks x/y/z, threads x/y/z, shared bytes, ...). A thread extent is often
// a let of the host code (a min of a size and the tile), so the lets around the call are
// substituted before its largest value is bounded.
class LaunchFinder : public IRVisitor {
public:
  std::vector<KernelLaunch> launches;
  /// Values of the pipeline's arguments at their estimates: "in.extent.0", "out.min.1", scalars.
  std::map<std::string, Expr> estimates;

private:
  using IRVisitor::visit;
  std::map<std::string, std::vector<Expr>> lets_;  // name -> values, innermost last

  template <typename LetOrLetStmt>
  void visit_let(const LetOrLetStmt *op) {
    op->value.accept(this);
    lets_[op->name].push_back(op->value);
    op->body.accept(this);
    lets_[op->name].pop_back();
  }
  void visit(const Let *op) override { visit_let(op); }
  void visit(const LetStmt *op) override { visit_let(op); }

  // The value `extent` takes at the arguments' estimates, else its largest value over all
  // arguments, or -1 where neither is a constant (a size only the run decides: some bounds,
  // such as (min(h, 32) + y + 1) / 2 - y / 2, are tighter than interval arithmetic sees).
  int64_t largest(Expr extent) const {
    for (int round = 0; round < 32; round++) {
      std::map<std::string, Expr> known;
      for (const auto &[name, values] : lets_)  // (an argument's field stays a name: estimated below)
        if (!values.empty() && !estimates.count(name) && expr_uses_var(extent, name)) known.emplace(name, values.back());
      if (known.empty()) break;
      extent = simplify(substitute(known, extent));
    }
    if (const int64_t *value = as_const_int(simplify(substitute(estimates, extent)))) return *value;
    const Interval bound = bounds_of_expr_in_scope(extent, Scope<Interval>::empty_scope());
    if (!bound.has_upper_bound()) return -1;
    const int64_t *value = as_const_int(simplify(bound.max));
    return value ? *value : -1;
  }

  void visit(const Call *call) override {
    IRVisitor::visit(call);
    const std::string &n = call->name;
    if (n.rfind("halide_", 0) != 0 || n.size() <= 4 || n.compare(n.size() - 4, 4, "_run") != 0) return;
    KernelLaunch launch;
    if (call->args.size() > 7) {
      if (const StringImm *entry = call->args[1].as<StringImm>()) launch.kernel = entry->value;
      launch.block_threads = 1;
      for (size_t k = 5; k < 8; k++) {
        const int64_t extent = largest(call->args[k]);
        launch.block_threads = extent > 0 && launch.block_threads > 0 ? launch.block_threads * extent : -1;
      }
    }
    launches.push_back(launch);
  }
};

}  // namespace

CompiledPipeline compile_pipeline(const Pipeline &pipeline, const Target &target, const std::string &function_name) {
  Pipeline p = pipeline;  // a handle; compile methods are non-const
  Module module = p.compile_to_module(p.infer_arguments(), function_name, target);
  CompiledPipeline compiled;
  std::ostringstream text;
  LaunchFinder finder;
  for (const LoweredFunc &fn : module.functions())
    for (const LoweredArgument &arg : fn.args) {
      const ArgumentEstimates &e = arg.argument_estimates;
      if (!arg.is_buffer() && e.scalar_estimate.defined()) finder.estimates[arg.name] = e.scalar_estimate;
      for (size_t d = 0; arg.is_buffer() && d < e.buffer_estimates.size(); d++) {
        const Range &r = e.buffer_estimates[d];
        if (r.min.defined()) finder.estimates[arg.name + ".min." + std::to_string(d)] = r.min;
        if (r.extent.defined()) finder.estimates[arg.name + ".extent." + std::to_string(d)] = r.extent;
      }
    }
  for (const LoweredFunc &fn : module.functions()) {
    text << fn.body << "\n";
    fn.body.accept(&finder);
  }
  // The kernels' device code (PTX for CUDA) travels as a buffer of the module.
  for (const Buffer<> &buffer : module.buffers())
    if (buffer.name().find("gpu_source_kernels") != std::string::npos)
      text << "// device code " << buffer.name() << "\n"
           << std::string(reinterpret_cast<const char *>(buffer.data()), buffer.size_in_bytes()) << "\n";
  compiled.lowered_stmt = text.str();
  compiled.launches = std::move(finder.launches);
  return compiled;
}

std::vector<KernelLaunch> CompiledPipeline::unbounded_launches(int64_t max_threads) const {
  std::vector<KernelLaunch> out;
  for (const KernelLaunch &launch : launches)
    if (launch.block_threads < 1 || launch.block_threads > max_threads) out.push_back(launch);
  return out;
}

}  // namespace hlsched
