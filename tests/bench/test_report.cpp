// `hlsched report` from a small, hand-made results file (tests/bench/data/results_small.json):
// floors, fractions of the floor, speedups, geometric means, predictions, stages, problems.
#include <catch2/catch.hpp>

#include <fstream>

#include "bench/bundle_builder.h"
#include "bench/markdown_report.h"
#include "bench/report_model.h"
#include "bench/svg_chart.h"

using namespace hlsched::server::bench;

namespace {

nlohmann::json small_results() {
  std::ifstream in(HLSCHED_BENCH_TEST_DATA "/results_small.json");
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("the report model computes physical floors from the measured copy bandwidth") {
  const ReportModel model = build_report_model(small_results());
  CHECK(model.device == "NVIDIA H200");
  CHECK(model.labels == std::vector<std::string>{"manual", "li2018", "hlsched"});
  REQUIRE(model.apps.size() == 3);
  const AppRow &blur = model.apps[0];
  CHECK(blur.app == "blur");
  REQUIRE(blur.floor_ms);
  CHECK(*blur.floor_ms == Approx(0.002));  // 8 MB over 4000 GB/s
  CHECK(*blur.floor_fraction("hlsched") == Approx(0.25));
  CHECK(*speedup(blur, "hlsched", "li2018") == Approx(2.5));
  // A failed or mismatching variant takes part in no comparison.
  CHECK_FALSE(speedup(model.apps[1], "hlsched", "li2018"));
  CHECK_FALSE(speedup(model.apps[2], "hlsched", "manual"));
  CHECK(*geometric_mean({2.0, 8.0}) == Approx(4.0));
}

TEST_CASE("the markdown report shows runtimes, fractions of the floor, speedups and geomeans") {
  const std::string md = markdown_report(build_report_model(small_results()));
  CHECK_THAT(md, Catch::Contains("## Benchmark: NVIDIA H200"));
  CHECK_THAT(md, Catch::Contains("commit 0123456789ab"));
  CHECK_THAT(md, Catch::Contains("device-to-device copy 4000 GB/s"));
  CHECK_THAT(md, Catch::Contains("| app | floor (ms) | manual (ms) | li2018 (ms) | hlsched (ms) | hlsched vs manual | hlsched vs li2018 |"));
  CHECK_THAT(md, Catch::Contains("| blur | 0.0020 | 0.0100 (20%) | 0.0200 (10%) | **0.0080 (25%)** | 1.25× | 2.50× |"));
  CHECK_THAT(md, Catch::Contains("| unsharp | 0.0200 | 0.0500 (40%) | failed | **0.0400 (50%)** | 1.25× |  |"));
  CHECK_THAT(md, Catch::Contains("| hist | 0.0050 | **0.1000 (5.0%)** | did not compile | 0.0500 ≠ |  |  |"));
  CHECK_THAT(md, Catch::Contains("**1.25×** (2 apps) | **2.50×** (1 app) |"));
}

TEST_CASE("the markdown report compares predictions with measurements per pipeline and per stage") {
  const std::string md = markdown_report(build_report_model(small_results()));
  CHECK_THAT(md, Catch::Contains("| blur | hlsched | 0.0040 | 0.0080 | 2.00× |"));
  CHECK_THAT(md, Catch::Contains("| unsharp | hlsched | 0.0200 | 0.0400 | 2.00× |"));
  CHECK_THAT(md, Catch::Contains("| **geomean** | | | | 2.00× |"));
  CHECK_THAT(md, Catch::Contains("| output | 0 | root kernel | 0.0040 | 0.0070 | 1 |"));
  CHECK_THAT(md, Catch::Contains("| blur_x | 0 | not predicted | | 0.0005 | 1 |"));
  CHECK_THAT(md, Catch::Contains("hist / hlsched: output differs from the reference: output: 12 of 11796480 elements differ"));
  CHECK_THAT(md, Catch::Contains("unsharp / li2018: failed: the pipeline returned error -1"));
  MarkdownOptions no_stages;
  no_stages.stages = false;
  CHECK_THAT(markdown_report(build_report_model(small_results()), no_stages),
             !Catch::Contains("Predicted vs measured (per stage)"));
}

TEST_CASE("the chart has one bar per measured variant, on a log scale of the floor") {
  const std::string svg = svg_chart(build_report_model(small_results()));
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK_THAT(svg, Catch::EndsWith("</svg>\n"));
  size_t bars = 0;  // each bar carries a tooltip
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) bars++;
  CHECK(bars == 7);  // 9 variants, minus one failed and one not compiled
  CHECK_THAT(svg, Catch::Contains("blur / hlsched: 0.008 ms"));
  CHECK_THAT(svg, Catch::Contains("(output differs)"));
  CHECK_THAT(svg, Catch::Contains("li2018: failed"));
  CHECK_THAT(svg, Catch::Contains(">1×<"));
}

TEST_CASE("anything but a runner's results file is refused") {
  CHECK_THROWS_AS(build_report_model(nlohmann::json{{"format", "something else"}}), std::invalid_argument);
}

TEST_CASE("a variant's plugin options reach its prediction as the plugin reads them") {
  using hlsched::server::bench::apply_plugin_options;
  hlsched::server::bench::BenchVariant variant;
  variant.scheduler.environment["HLSCHED_OPTIONS"] = "no_freeze,no-sampling,work_budget=4,beam_size=7,decisions=/tmp/a_b";
  hlsched::server::AnalysisRequest request;
  apply_plugin_options(variant, request);
  CHECK_FALSE(request.search.freeze);
  CHECK_FALSE(request.search.sampling);
  CHECK(request.search.polish);
  CHECK(request.search.work_budget == 4);
  CHECK(request.search.beam_size == 7);
  CHECK(request.decisions_path == "/tmp/a_b");  // values keep their underscores

  // A random walk: the walk the plugin applies is the one `hlsched sample` predicts.
  variant.scheduler.environment["HLSCHED_OPTIONS"] = "gpu=a100,strategy=sample,seed=5,sample=2";
  hlsched::server::AnalysisRequest walk;
  apply_plugin_options(variant, walk);
  CHECK(walk.gpu_profile == "a100");
  CHECK(walk.search.strategy == "sample");
  CHECK(walk.sample_seed == 5);
  CHECK(walk.sample_first == 2);

  // What the plugin would refuse is refused here too, not predicted as something else.
  variant.scheduler.environment["HLSCHED_OPTIONS"] = "beam_width=4";
  hlsched::server::AnalysisRequest refused;
  CHECK_THROWS_AS(apply_plugin_options(variant, refused), std::invalid_argument);
}
