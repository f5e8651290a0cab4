// A schedule already in the generator (our suggestion pasted into schedule(), or the examples'
// hand-written GPU schedules) must not change what the engine sees: the server analyzes the
// edited file again, and a user who applied our suggestion must see the costs we promised.
//
// apply_schedule() stands in for pasting: tests/e2e/test_examples_schedule.cpp checks that the
// pasted code lowers to the same program as the applied schedule.
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
  o.time_budget_s = 1e6;
  return o;
}

}  // namespace

TEST_CASE("pasted schedules: the hand-written GPU schedules leave the DAG as the algorithm defines it",
          "[examples][pasted]") {
  for (const char *app : kExamples) {
    INFO(app);
    auto plain = instance(app, "none");
    auto manual = instance(app, "manual");
    const auto plain_funcs = describe(hlsched::build_pipeline_dag(plain.pipeline));
    const auto manual_funcs = describe(hlsched::build_pipeline_dag(manual.pipeline));
    size_t compared = 0;
    for (const auto &[name, text] : manual_funcs) {
      auto same = plain_funcs.find(name);
      // rfactor() changes the algorithm, not only the schedule: it adds an intermediate Func and
      // rewrites the reduction to read it, so the engine plans (and costs) that new pipeline.
      // Wrappers (in(), clone_in()) are substituted at lowering only and do not show here.
      if (same == plain_funcs.end() || text.find("_intm") != std::string::npos) continue;
      CHECK(text == same->second);
      compared++;
    }
    CHECK(compared + 2 >= plain_funcs.size());
  }
}

TEST_CASE("pasted schedules: a pasted suggestion is predicted as when it was suggested", "[examples][pasted]") {
  for (const char *app : kExamples) {
    INFO(app);
    // One instance: the search leaves the pipeline as it is, and the applied schedule names its
    // Funcs (unnamed ones differ between instances).
    auto gen = instance(app, "none");
    const hlsched::PipelineDag dag = hlsched::build_pipeline_dag(gen.pipeline);
    const hlsched::ScheduleResult suggested = hlsched::schedule_pipeline(gen.pipeline, dag, search_options());
    REQUIRE(suggested.search.fallback == "");

    hlsched::apply_schedule(suggested.schedule, gen.pipeline);
    const hlsched::PipelineDag pasted_dag = hlsched::build_pipeline_dag(gen.pipeline);
    if (suggested.schedule_code.find(".rfactor(") != std::string::npos) {
      // Cannot be equal (hist): rfactor() rewrites the algorithm when the schedule runs. The
      // pasted pipeline has the privatized copy as a Func of its own and the reduction reads
      // it, so the engine analyzes (and searches) that other pipeline; the Funcs that the
      // rfactor leaves alone are seen as before.
      const auto before = describe(dag), after = describe(pasted_dag);
      CHECK(after.size() == before.size() + 1);
      size_t unchanged = 0;
      for (const auto &[name, text] : before) unchanged += after.count(name) && after.at(name) == text;
      CHECK(unchanged + 1 == before.size());
      continue;
    }
    CHECK(describe(pasted_dag) == describe(dag));
    const hlsched::ScheduleResult again = hlsched::schedule_pipeline(gen.pipeline, pasted_dag, search_options());
    CHECK(again.predicted_runtime_ms == Approx(suggested.predicted_runtime_ms).epsilon(0.01));
    CHECK(again.schedule_code == suggested.schedule_code);
  }
}
