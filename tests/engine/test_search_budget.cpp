// The search's budget is counted in work, not on the clock: a search cut short by its work budget
// stops at the same point, and so picks the same schedule, whatever else the machine is doing and
// whatever a memo file held; the wall-clock limit still stops a search that runs too long.
// (Cost: eight small searches, a few seconds.)
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <regex>
#include <thread>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/worker_process.h"
#include "scratch_files.h"

using namespace hlsched;
using namespace hlsched::testing;
namespace fs = std::filesystem;

namespace {

// Halide names Funcs uniquely per process: "blur_x$2" in a second instance is "blur_x".
std::string without_instance_suffixes(const std::string &text) {
  return std::regex_replace(text, std::regex("\\$[0-9]+"), "");
}

// Keeps every core busy while it lives: the load under which a wall-clock budget stopped early.
class BusyCores {
public:
  BusyCores() {
    const unsigned n = std::max(2u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; i++)
      threads_.emplace_back([this] {
        volatile double x = 1;
        while (!stop_) x = x * 1.0000001 + 1e-9;
      });
  }
  ~BusyCores() {
    stop_ = true;
    for (std::thread &t : threads_) t.join();
  }

private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// A budget a tenth of what the whole search does: it stops mid-way, in its fine passes.
AutoschedulerOptions cut_short(const std::string &model) {
  AutoschedulerOptions options;
  options.model = model;
  options.work_budget = 0.02;
  options.time_budget_s = 600;  // the work budget, never the clock, must stop it
  return options;
}

}  // namespace

TEST_CASE("a search cut short by its work budget picks the same schedule under load", "[search][budget]") {
  auto inst = instantiate_generator("pyramid_small", default_gpu_target(), {{"levels", "3"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  const std::string model = GENERATE(std::string("hand"), std::string("both"));
  INFO("model " << model);

  AutoschedulerOptions whole = cut_short(model);
  whole.work_budget = 600;
  const ScheduleResult finished = schedule_pipeline(inst.pipeline, dag, whole);
  CHECK_FALSE(finished.search.budget_exhausted);
  REQUIRE(finished.search.work > 10 * cut_short(model).work_budget);  // the budget below does cut it short

  const ScheduleResult quiet = schedule_pipeline(inst.pipeline, dag, cut_short(model));
  CHECK(quiet.search.budget_exhausted);
  CHECK_FALSE(quiet.search.time_limit_reached);
  CHECK(quiet.search.states_evaluated < finished.search.states_evaluated);
  // It stops at the first check past the budget: a step's states at most beyond it.
  CHECK(quiet.search.work < 2 * cut_short(model).work_budget);

  ScheduleResult loaded;
  {
    BusyCores busy;
    loaded = schedule_pipeline(inst.pipeline, dag, cut_short(model));
  }
  CHECK(without_instance_suffixes(loaded.schedule_code) == without_instance_suffixes(quiet.schedule_code));
  CHECK(loaded.search.states_evaluated == quiet.search.states_evaluated);
  CHECK(loaded.search.work == Approx(quiet.search.work).epsilon(1e-12));
}

TEST_CASE("a memo file does not change how far a search goes", "[search][budget][memo]") {
  auto inst = instantiate_generator("pyramid_small", default_gpu_target(), {{"levels", "3"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  ScratchDir scratch(current_executable().parent_path() / "search-budget-test");

  // A whole search fills the memo file with costs the short search will find there.
  AutoschedulerOptions filler = cut_short("hand");
  filler.work_budget = 600;
  filler.memo_path = (scratch.dir / "search.memo").string();
  schedule_pipeline(inst.pipeline, dag, filler);
  REQUIRE(fs::exists(filler.memo_path));
  fs::remove(filler.memo_path + ".warm");  // the memo alone: no warm start from the last schedule

  const ScheduleResult cold = schedule_pipeline(inst.pipeline, dag, cut_short("hand"));
  AutoschedulerOptions with_file = cut_short("hand");
  with_file.memo_path = filler.memo_path;
  const ScheduleResult warm = schedule_pipeline(inst.pipeline, dag, with_file);
  CHECK(warm.search.memo_entries_loaded > 0);
  CHECK(warm.search.kernels_costed < cold.search.kernels_costed);  // the file saved work...
  CHECK(warm.search.states_evaluated == cold.search.states_evaluated);  // ...but not how far it went
  CHECK(warm.search.work == Approx(cold.search.work).epsilon(1e-12));
  CHECK(without_instance_suffixes(warm.schedule_code) == without_instance_suffixes(cold.schedule_code));
}

TEST_CASE("the time limit still stops a search and says so", "[search][budget]") {
  auto inst = instantiate_generator("pyramid_small", default_gpu_target(), {{"levels", "3"}});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.model = "hand";
  options.work_budget = 600;
  options.time_budget_s = 1e-6;
  const ScheduleResult hurried = schedule_pipeline(inst.pipeline, dag, options);
  CHECK(hurried.search.budget_exhausted);
  CHECK(hurried.search.time_limit_reached);
  CHECK(hurried.search.fallback.empty());  // the coarse pass's schedule, completed greedily
  CHECK_FALSE(hurried.schedule_code.empty());
}
