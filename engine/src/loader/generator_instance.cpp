#include "hlsched/engine/generator_instance.h"

#include <stdexcept>

namespace hlsched {
namespace {

// GeneratorBase::build_pipeline() is protected in Halide 14. A member pointer formed inside a
// derived class is the standard-conforming way to reach it without patching Halide.
struct BuildPipelineAccess : Halide::Internal::GeneratorBase {
  static Halide::Pipeline build(Halide::Internal::GeneratorBase &generator) {
    auto method = &BuildPipelineAccess::build_pipeline;
    return (generator.*method)();
  }
};

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::vector<std::string> registered_generators() {
  return Halide::Internal::GeneratorRegistry::enumerate();
}

std::string choose_generator(const std::string &requested) {
  const auto names = registered_generators();
  if (!requested.empty()) {
    for (const auto &n : names)
      if (n == requested) return n;
    throw std::runtime_error("no generator named '" + requested + "' (registered: " +
                             (names.empty() ? "none" : join(names)) + ")");
  }
  if (names.size() == 1) return names.front();
  if (names.empty()) throw std::runtime_error("the source registers no generator (HALIDE_REGISTER_GENERATOR)");
  throw std::runtime_error("the source registers several generators; pick one with --generator NAME (" +
                           join(names) + ")");
}

GeneratorInstance instantiate_generator(const std::string &name, const Halide::Target &target,
                                        const GeneratorParams &params, bool auto_schedule) {
  GeneratorInstance instance;
  instance.name = name;
  Halide::GeneratorContext context(target, auto_schedule);
  instance.generator = Halide::Internal::GeneratorRegistry::create(name, context);
  if (!instance.generator) throw std::runtime_error("could not create generator '" + name + "'");
  Halide::Internal::GeneratorParamsMap values;
  for (const auto &[key, value] : params) values[key] = Halide::Internal::StringOrLoopLevel(value);
  instance.generator->set_generator_param_values(values);
  instance.pipeline = BuildPipelineAccess::build(*instance.generator);
  return instance;
}

}  // namespace hlsched
