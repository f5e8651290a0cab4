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

// One stage's loops as Halide sets them when the stage is defined: reduction variables
// innermost (in the RDom's order), then the pure variables in argument order, then the
// outermost placeholder; no splits, fusions or GPU/parallel loop types.
void reset_stage_schedule(const Function &f, Halide::Internal::Definition &stage, bool is_init) {
  using namespace Halide::Internal;
  StageSchedule &s = stage.schedule();
  s.splits().clear();
  s.prefetches().clear();
  s.fused_pairs().clear();
  s.fuse_level() = Halide::FuseLoopLevel();
  s.allow_race_conditions() = false;
  s.atomic() = false;
  s.override_atomic_associativity_test() = false;
  s.touched() = false;
  std::vector<Dim> dims;
  if (!is_init) {
    for (const ReductionVariable &rv : s.rvars()) {
      const bool pure = can_parallelize_rvar(rv.var, f.name(), stage);
      dims.push_back({rv.var, ForType::Serial, Halide::DeviceAPI::None, pure ? DimType::PureRVar : DimType::ImpureRVar});
    }
  }
  for (std::size_t i = 0; i < stage.args().size(); i++) {
    const auto *var = stage.args()[i].as<Halide::Internal::Variable>();
    const bool pure_arg = is_init || (var && !var->param.defined() && !var->reduction_domain.defined() &&
                                      i < f.args().size() && var->name == f.args()[i]);
    if (pure_arg) dims.push_back({f.args()[i], ForType::Serial, Halide::DeviceAPI::None, DimType::PureVar});
  }
  dims.push_back({Halide::Var::outermost().name(), ForType::Serial, Halide::DeviceAPI::None, DimType::PureVar});
  s.dims() = std::move(dims);
  stage.specializations().clear();
}

// A Function as generate() defined it, without the schedule generate() may also have written
// (many generators schedule at the end of generate()): estimates and bounds stay (they describe
// sizes and results), every directive goes. Rewrites of the algorithm (rfactor) cannot be undone.
void reset_schedule(Function &f) {
  using namespace Halide::Internal;
  FuncSchedule &s = f.schedule();
  s.compute_level() = Halide::LoopLevel::inlined();
  s.store_level() = Halide::LoopLevel::inlined();
  s.memoized() = false;
  s.memoize_eviction_key() = Halide::Expr();
  s.async() = false;
  s.memory_type() = Halide::MemoryType::Auto;
  s.wrappers().clear();
  std::vector<StorageDim> storage;
  for (const std::string &arg : f.args()) storage.push_back(StorageDim{arg, {}, {}, {}, true});
  s.storage_dims() = std::move(storage);
  reset_stage_schedule(f, f.definition(), /*is_init=*/true);
  for (std::size_t i = 0; i < f.updates().size(); i++) reset_stage_schedule(f, f.update(int(i)), /*is_init=*/false);
}

// A copy of the pipeline's whole Function graph (Parameters stay shared), unscheduled: scheduling
// the original afterwards does not reach it, even where the schedule rewrites definitions.
Halide::Pipeline copy_of_functions(const Halide::Pipeline &pipeline) {
  std::vector<Function> outputs;
  for (const Halide::Func &out : pipeline.outputs()) outputs.push_back(out.function());
  const auto copies = Halide::Internal::deep_copy(outputs, pipeline_functions(pipeline)).first;
  std::vector<Halide::Func> funcs;
  for (const Function &f : copies) funcs.emplace_back(f);
  Halide::Pipeline copy(funcs);
  for (auto &[name, f] : pipeline_functions(copy)) reset_schedule(f);
  return copy;
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
