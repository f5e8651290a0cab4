#include "hlsched/engine/pipeline_walk.h"

namespace hlsched {
namespace {

// Collects every Parameter a definition refers to: buffer inputs through Call nodes, scalars
// through Variable nodes (estimates of RDom bounds included).
class ParameterCollector : public Halide::Internal::IRGraphVisitor {
public:
  std::map<std::string, Halide::Internal::Parameter> found;

private:
  using IRGraphVisitor::visit;

  void visit(const Halide::Internal::Call *call) override {
    IRGraphVisitor::visit(call);
    if (call->param.defined()) found.emplace(call->param.name(), call->param);
    if (call->image.defined()) return;  // an embedded constant Buffer, not an input
  }
  void visit(const Halide::Internal::Variable *var) override {
    if (var->param.defined() && !var->param.is_buffer()) found.emplace(var->param.name(), var->param);
    // Buffer parameters seen through their .min/.extent variables are inputs too.
    if (var->param.defined() && var->param.is_buffer()) found.emplace(var->param.name(), var->param);
  }
};

}  // namespace

std::map<std::string, Halide::Internal::Function> pipeline_functions(const Halide::Pipeline &pipeline) {
  std::map<std::string, Halide::Internal::Function> env;
  for (const Halide::Func &out : pipeline.outputs()) {
    env.emplace(out.name(), out.function());
    for (auto &[name, f] : Halide::Internal::find_transitive_calls(out.function())) env.emplace(name, f);
  }
  return env;
}

std::vector<Halide::Internal::Parameter> pipeline_input_parameters(const Halide::Pipeline &pipeline) {
  ParameterCollector collector;
  std::set<std::string> output_buffer_names;
  for (auto &[name, f] : pipeline_functions(pipeline)) {
    f.accept(&collector);
    for (const auto &buffer : f.output_buffers()) output_buffer_names.insert(buffer.name());
  }
  std::vector<Halide::Internal::Parameter> inputs;
  for (auto &[name, param] : collector.found)
    if (!output_buffer_names.count(name)) inputs.push_back(param);
  return inputs;
}

Halide::Target default_gpu_target() {
  return Halide::Target("host-cuda-cuda_capability_86");
}

Halide::Target safe_host_target() {
  using T = Halide::Target;
  return Halide::get_host_target()
      .without_feature(T::AVX512)
      .without_feature(T::AVX512_KNL)
      .without_feature(T::AVX512_Skylake)
      .without_feature(T::AVX512_Cannonlake)
      .without_feature(T::AVX512_SapphireRapids);
}

}  // namespace hlsched
