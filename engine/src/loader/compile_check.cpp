#include "hlsched/engine/compile_check.h"

#include <sstream>

namespace hlsched {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Counts kernel launches in the host code: after offloading, each GPU kernel is a call to the
// device runtime's run function (halide_cuda_run, halide_opencl_run, ...).
class KernelCounter : public IRVisitor {
public:
  int kernels = 0;

private:
  using IRVisitor::visit;
  void visit(const Call *call) override {
    IRVisitor::visit(call);
    const std::string &n = call->name;
    if (n.rfind("halide_", 0) == 0 && n.size() > 4 && n.compare(n.size() - 4, 4, "_run") == 0) kernels++;
  }
};

}  // namespace

CompiledPipeline compile_pipeline(const Pipeline &pipeline, const Target &target, const std::string &function_name) {
  Pipeline p = pipeline;  // a handle; compile methods are non-const
  Module module = p.compile_to_module(p.infer_arguments(), function_name, target);
  CompiledPipeline compiled;
  std::ostringstream text;
  KernelCounter counter;
  for (const LoweredFunc &fn : module.functions()) {
    text << fn.body << "\n";
    fn.body.accept(&counter);
  }
  // The kernels' device code (PTX for CUDA) travels as a buffer of the module.
  for (const Buffer<> &buffer : module.buffers())
    if (buffer.name().find("gpu_source_kernels") != std::string::npos)
      text << "// device code " << buffer.name() << "\n"
           << std::string(reinterpret_cast<const char *>(buffer.data()), buffer.size_in_bytes()) << "\n";
  compiled.lowered_stmt = text.str();
  compiled.gpu_kernels = counter.kernels;
  return compiled;
}

}  // namespace hlsched
