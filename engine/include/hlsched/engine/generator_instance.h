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

/// A generator instance and the Pipelines it built. The generator owns the Input/Output
/// parameters the Pipelines refer to, so it must outlive every use of them.
struct GeneratorInstance {
  std::unique_ptr<Halide::Internal::GeneratorBase> generator;
  /// What GenGen would compile: the algorithm with whatever schedule() did to it.
  Halide::Pipeline pipeline;
  /// What the autoscheduler plans and applies its schedules to: the algorithm as generate()
  /// left it, copied before schedule() ran, with the estimates schedule() set. A schedule already
  /// in schedule() (a pasted suggestion, a hand-written one) is not part of it, not even the
  /// Funcs it adds: rfactor() rewrites the reduction in place and adds an intermediate, in()
  /// adds a wrapper. Where the generator schedules in generate() itself, that schedule stays.
  Halide::Pipeline algorithm;
  std::string name;
};

/// Names of all generators registered in this process, sorted.
std::vector<std::string> registered_generators();

/// Picks the generator to use: `requested` if non-empty (error if unknown), else the only
/// registered one (error listing the choices if there are several, or none).
std::string choose_generator(const std::string &requested);

/// Instantiates `name` for `target` with `params` and builds its Pipelines. `auto_schedule` is
/// passed to the generator's context: generators use it to skip their own schedule.
/// Throws std::runtime_error (unknown generator) or Halide::Error (bad params, user errors).
GeneratorInstance instantiate_generator(const std::string &name, const Halide::Target &target,
                                        const GeneratorParams &params, bool auto_schedule = true);

}  // namespace hlsched
