// A schedule already in the generator (our suggestion pasted into schedule(), or the examples'
// hand-written GPU schedules) must not change what the engine sees: the server analyzes the
// edited file again, and a user who applied our suggestion must see the costs we promised.
// The engine plans GeneratorInstance::algorithm, the pipeline as generate() left it.
//
// The hand-written schedules run in the generator's schedule() (hist's adds an rfactor()
// intermediate and an in() wrapper). A suggestion is applied to the generator's own Funcs after
// schedule() here, which is what pasting it at the end of schedule() does to them:
// tests/e2e/test_examples_schedule.cpp checks that the pasted code lowers to the same program
// as the applied schedule, and tests/e2e/test_cli_schedule.cpp re-analyzes real pastes.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <sstream>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/generator_instance.h"
#include "hlsched/engine/pipeline_walk.h"

namespace {

const char *const kExamples[] = {"bgu",           "bilateral_grid", "blur",      "camera_pipe", "conv_layer",
                                 "depthwise_separable_conv",         "harris",    "hist",        "iir_blur",
                                 "interpolate",   "lens_blur",      "local_laplacian", "mat_mul", "max_filter",
                                 "nl_means",      "stencil_chain",  "unsharp"};

hlsched::GeneratorInstance instance(const std::string &app, const std::string &schedule) {
  return hlsched::instantiate_generator(app, hlsched::default_gpu_target(), {{"schedule", schedule}}, false);
}

// Everything the search and the cost model read from a Func, as text (a difference shows itself).
std::string describe(const hlsched::FuncNode &f) {
  std::ostringstream out;
  {
    out << f.name << (f.is_output ? " output" : "") << " region";
    for (const hlsched::Span &s : f.region) out << " [" << s.min << "," << s.max << "]";
    out << "\n";
    for (const hlsched::StageNode &s : f.stages) {
      out << "  " << s.name << " points " << s.points << " atomic_safe " << s.atomic_safe << " loops";
      for (const hlsched::LoopDim &l : s.loops)
        out << " " << l.var << (l.is_rvar ? "(r" : "(") << (l.is_pure ? "p)" : ")") << "=" << l.estimate.extent();
      out << "\n";
      for (const hlsched::ProducerAccess &a : s.accesses) {
        out << "    reads " << a.producer << " calls " << a.calls_per_point << " affine " << a.is_affine
            << " pointwise " << a.is_pointwise << " window";
        for (int64_t n : a.points_per_consumer_point) out << " " << n;
        for (size_t d = 0; d < a.region_min.size(); d++) out << " [" << a.region_min[d].text << ", " << a.region_max[d].text << "]";
        out << "\n";
      }
    }
  }
  return out.str();
}

// Func names get a "$n" suffix when the name is taken (by an earlier instance of the generator),
// lambdas a fresh number: compare without them.
std::string without_instance_suffixes(const std::string &text) {
  static const std::regex suffix("\\$[0-9]*|(lambda)_[0-9]+");
  return std::regex_replace(text, suffix, "$1");
}

// Per Func name (without instance suffixes): its description.
std::map<std::string, std::string> describe(const hlsched::PipelineDag &dag) {
  std::map<std::string, std::string> funcs;
  for (const hlsched::FuncNode &f : dag.funcs) funcs[without_instance_suffixes(f.name)] += without_instance_suffixes(describe(f));
  return funcs;
}

// Deterministic and quick: a small beam with no deadline (a time budget would make the two
// searches stop at different points on a loaded machine).
hlsched::AutoschedulerOptions search_options() {
  hlsched::AutoschedulerOptions o;
  o.beam_size = 4;
  o.passes = 1;
  o.memo = false;
  o.work_budget = 1e6;
  o.time_budget_s = 1e6;
  return o;
}

}  // namespace

// Names of the pipeline's Funcs that rfactor() or in() made (the generator's schedule added them).
std::vector<std::string> funcs_made_by_scheduling(const Halide::Pipeline &pipeline) {
  std::vector<std::string> names;
  for (const auto &[name, f] : hlsched::pipeline_functions(pipeline)) {
    if (name.find("_intm") != std::string::npos) names.push_back(name);
    for (const auto &[callee, wrapper] : f.wrappers()) names.push_back(Halide::Internal::Function(wrapper).name());
  }
  return names;
}

TEST_CASE("pasted schedules: the hand-written GPU schedules leave the DAG as the algorithm defines it",
          "[examples][pasted]") {
  size_t rewritten = 0;
  for (const char *app : kExamples) {
    INFO(app);
    auto plain = instance(app, "none");
    auto manual = instance(app, "manual");
    CHECK(describe(hlsched::build_pipeline_dag(manual.algorithm)) == describe(hlsched::build_pipeline_dag(plain.algorithm)));
    rewritten += !funcs_made_by_scheduling(manual.pipeline).empty();
    if (std::string(app) == "hist") {
      // The schedule as run: its rfactor() intermediate and lut's wrapper are there, not in
      // what the engine plans.
      const auto made = funcs_made_by_scheduling(manual.pipeline);
      CHECK(made.size() == 2);
      CHECK(funcs_made_by_scheduling(manual.algorithm).empty());
    }
  }
  CHECK(rewritten >= 2);
}

TEST_CASE("pasted schedules: a pasted suggestion is predicted as when it was suggested", "[examples][pasted]") {
  bool saw_rfactor = false;
  for (const char *app : kExamples) {
    INFO(app);
    // One instance: its Funcs' names are those the suggestion names (unnamed ones differ between
    // instances).
    auto gen = instance(app, "none");
    const hlsched::PipelineDag dag = hlsched::build_pipeline_dag(gen.algorithm);
    const hlsched::ScheduleResult suggested = hlsched::schedule_pipeline(gen.algorithm, dag, search_options());
    REQUIRE(suggested.search.fallback == "");
    saw_rfactor = saw_rfactor || suggested.schedule_code.find(".rfactor(") != std::string::npos;

    hlsched::apply_schedule(suggested.schedule, gen.pipeline);
    const hlsched::PipelineDag pasted_dag = hlsched::build_pipeline_dag(gen.algorithm);
    CHECK(describe(pasted_dag) == describe(dag));
    const hlsched::ScheduleResult again = hlsched::schedule_pipeline(gen.algorithm, pasted_dag, search_options());
    CHECK(again.predicted_runtime_ms == Approx(suggested.predicted_runtime_ms).epsilon(0.01));
    CHECK(again.schedule_code == suggested.schedule_code);
  }
  CHECK(saw_rfactor);  // hist's privatized histogram
}
