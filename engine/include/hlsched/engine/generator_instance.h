// Instantiating a registered Halide generator and building its Pipeline.
//
// Generators register themselves by static initialization (HALIDE_REGISTER_GENERATOR) when their
// code is linked in or dlopen()ed. This file turns a registered name + parameters into a built
// Halide::Pipeline, the way GenGen would, but in-process and without emitting anything.
//
// Threading: Halide's generator registry is process-global; use from one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Halide.h"

namespace hlsched {

/// GeneratorParam values by name, as given on a command line (`key=value`).
using GeneratorParams = std::map<std::string, std::string>;

/// A generator instance and the Pipeline it built. The generator owns the Input/Output
/// parameters the Pipeline refers to, so it must outlive every use of the Pipeline.
struct GeneratorInstance {
  std::unique_ptr<Halide::Internal::GeneratorBase> generator;
  Halide::Pipeline pipeline;
  std::string name;
};

/// Names of all generators registered in this process, sorted.
std::vector<std::string> registered_generators();

/// Picks the generator to use: `requested` if non-empty (error if unknown), else the only
/// registered one (error listing the choices if there are several, or none).
std::string choose_generator(const std::string &requested);

/// Instantiates `name` for `target` with `params` and builds its Pipeline. `auto_schedule` is
/// passed to the generator's context: generators use it to skip their own schedule.
/// Throws std::runtime_error (unknown generator) or Halide::Error (bad params, user errors).
GeneratorInstance instantiate_generator(const std::string &name, const Halide::Target &target,
                                        const GeneratorParams &params, bool auto_schedule = true);

}  // namespace hlsched
