#include "hlsched/engine/compile_check.h"

#include <sstream>

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Finds kernel launches in the host code: after offloading, each GPU kernel is a call to the
// device runtime's run function (halide_cuda_run, halide_opencl_run, ...), whose arguments are
// (state, entry name, blocks x/y/z, threads x/y/z, shared bytes, ...).
class LaunchFinder : public IRVisitor {
public:
  std::vector<KernelLaunch> launches;

private:
  using IRVisitor::visit;
  void visit(const Call *call) override {
    IRVisitor::visit(call);
    const std::string &n = call->name;
    if (n.rfind("halide_", 0) != 0 || n.size() <= 4 || n.compare(n.size() - 4, 4, "_run") != 0) return;
    KernelLaunch launch;
    if (call->args.size() > 7) {
      if (const StringImm *entry = call->args[1].as<StringImm>()) launch.kernel = entry->value;
      launch.block_threads = 1;
      for (size_t k = 5; k < 8; k++) {
        const Expr extent = simplify(call->args[k]);
        const IntImm *constant = extent.as<IntImm>();
        launch.block_threads = constant && launch.block_threads > 0 ? launch.block_threads * constant->value : -1;
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
  compiled.gpu_kernels = int(finder.launches.size());
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
