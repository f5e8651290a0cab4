// HLSCHED_OPTIONS as the plugin and `hlsched bench` read it (hlsched/engine/plugin_options.h).
#include <catch2/catch.hpp>

#include "hlsched/engine/plugin_options.h"

using hlsched::parse_plugin_options;
using hlsched::PluginOptions;

TEST_CASE("plugin options: keys are the CLI's names, underscores read as dashes, values as written") {
  const PluginOptions o = parse_plugin_options(
      "gpu=a100,beam_size=7,passes=3,no_freeze,no-sampling,work_budget=0.5,time-budget=12,seed=9,"
      "memo_file=/tmp/m_1,model=hand,weights=/w/a_b.weights,decisions=/tmp/d_e");
  CHECK(o.engine.gpu_profile == "a100");
  CHECK(o.engine.beam_size == 7);
  CHECK(o.engine.passes == 3);
  CHECK_FALSE(o.engine.freeze);
  CHECK_FALSE(o.engine.sampling);
  CHECK(o.engine.polish);
  CHECK(o.engine.memo);
  CHECK(o.engine.work_budget == 0.5);
  CHECK(o.engine.time_budget_s == 12);
  CHECK(o.engine.seed == 9);
  CHECK(o.engine.memo_path == "/tmp/m_1");
  CHECK(o.engine.model == "hand");
  CHECK(o.engine.weights == "/w/a_b.weights");
  CHECK(o.decisions_path == "/tmp/d_e");
  CHECK(o.sample_index == -1);
}

TEST_CASE("plugin options: nothing named keeps the engine's defaults; reading over options keeps theirs") {
  const PluginOptions empty = parse_plugin_options("");
  const hlsched::AutoschedulerOptions defaults;
  CHECK(empty.engine.gpu_profile == defaults.gpu_profile);
  CHECK(empty.engine.beam_size == defaults.beam_size);
  CHECK(empty.engine.work_budget == defaults.work_budget);
  CHECK(empty.engine.model == defaults.model);

  PluginOptions over;
  over.engine.strategy = "simple";
  over.engine.gpu_profile = "v100";
  hlsched::read_plugin_options("no_polish", over);
  CHECK(over.engine.strategy == "simple");
  CHECK(over.engine.gpu_profile == "v100");
  CHECK_FALSE(over.engine.polish);
}

TEST_CASE("plugin options: a random walk needs strategy=sample, a runner-up strategy=beam") {
  const PluginOptions walk = parse_plugin_options("strategy=sample,seed=3");
  CHECK(walk.sample_index == 0);  // the seed's first walk unless named
  CHECK(parse_plugin_options("strategy=sample,seed=3,sample=2").sample_index == 2);
  CHECK(parse_plugin_options("candidate=4").engine.candidate == 4);
  CHECK_THROWS_WITH(parse_plugin_options("sample=1"), Catch::Contains("needs strategy=sample"));
  CHECK_THROWS_WITH(parse_plugin_options("strategy=sample,candidate=1"), Catch::Contains("needs strategy=beam"));
}

TEST_CASE("plugin options: malformed values and unknown keys are refused, naming the option") {
  CHECK_THROWS_WITH(parse_plugin_options("strategy=sample,sample=two"), Catch::Contains("sample wants a non-negative integer"));
  CHECK_THROWS_WITH(parse_plugin_options("beam_size=-3"), Catch::Contains("beam-size wants a non-negative integer"));
  CHECK_THROWS_WITH(parse_plugin_options("work_budget=lots"), Catch::Contains("work-budget wants a number"));
  CHECK_THROWS_WITH(parse_plugin_options("work_budget=4x"), Catch::Contains("work-budget wants a number"));
  CHECK_THROWS_WITH(parse_plugin_options("candidate=5000"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_plugin_options("beam=4"), Catch::Contains("unknown option 'beam'"));
  CHECK_THROWS_AS(parse_plugin_options("seed=99999999999999999999"), std::invalid_argument);
}
