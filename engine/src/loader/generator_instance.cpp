#include "hlsched/engine/generator_instance.h"

#include <stdexcept>

#include "hlsched/engine/pipeline_walk.h"

namespace hlsched {
namespace {

using Halide::Internal::Function;
using Halide::Internal::GeneratorBase;

// A generator's steps (generate(), then schedule()) are protected in Halide 14. Member pointers
// formed inside a derived class are the standard-conforming way to reach them without patching
// Halide.
struct GeneratorSteps : GeneratorBase {
  static void generate(GeneratorBase &generator) {
    auto method = &GeneratorSteps::call_generate;
    (generator.*method)();
  }
  static void schedule(GeneratorBase &generator) {
    auto method = &GeneratorSteps::call_schedule;
    (generator.*method)();
  }
  static bool generate_was_called(GeneratorBase &generator) {
    auto phase = &GeneratorSteps::phase;
    return generator.*phase >= GenerateCalled;
  }
  // Both steps at once: the only way for a generator with a build() method instead of
  // generate() (allowed by HALIDE_ALLOW_GENERATOR_BUILD_METHOD).
  static Halide::Pipeline build(GeneratorBase &generator) {
    auto method = &GeneratorSteps::build_pipeline;
    return (generator.*method)();
  }
};

// A copy of the pipeline's whole Function graph (Parameters stay shared): scheduling the
// original afterwards does not reach it, even where the schedule rewrites definitions.
Halide::Pipeline copy_of_functions(const Halide::Pipeline &pipeline) {
  std::vector<Function> outputs;
  for (const Halide::Func &out : pipeline.outputs()) outputs.push_back(out.function());
  const auto copies = Halide::Internal::deep_copy(outputs, pipeline_functions(pipeline)).first;
  std::vector<Halide::Func> funcs;
  for (const Function &f : copies) funcs.emplace_back(f);
  return Halide::Pipeline(funcs);
}

// Estimates are commonly set in schedule() (next to the schedule they serve), but they describe
// the algorithm's sizes: the copy taken before schedule() gets them from the scheduled Funcs.
void copy_estimates(const Halide::Pipeline &scheduled, const Halide::Pipeline &algorithm) {
  const auto scheduled_funcs = pipeline_functions(scheduled);
  for (auto &[name, f] : pipeline_functions(algorithm)) {
    auto same = scheduled_funcs.find(name);
    if (same != scheduled_funcs.end()) f.schedule().estimates() = same->second.schedule().estimates();
  }
}

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
  GeneratorBase &generator = *instance.generator;
  try {
    GeneratorSteps::generate(generator);
  } catch (const Halide::Error &) {
    if (GeneratorSteps::generate_was_called(generator)) throw;  // the user's generate() failed
    // A build() generator: the algorithm and its schedule come out of one call.
    instance.pipeline = instance.algorithm = GeneratorSteps::build(generator);
    return instance;
  }
  instance.algorithm = copy_of_functions(generator.get_pipeline());
  GeneratorSteps::schedule(generator);
  instance.pipeline = generator.get_pipeline();
  copy_estimates(instance.pipeline, instance.algorithm);
  return instance;
}

}  // namespace hlsched
