// Pipelines past 32-bit sizes (tests/data/generators/large_image.cpp, large_volume.cpp: inputs of
// 2^31 elements). Halide 14's CUDA kernels index buffers with 32-bit integers and CUDA launches at
// most 65535 blocks along a grid's y and z; neither shows when a schedule compiles, so these check
// the schedules themselves: the beam search's, the simple one's, and random walks over every
// option the search has. Cost: under a second (two pipelines built in-process, nothing compiled).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>

#include "halide_test_support.h"
#include "hlsched/engine/autoscheduler.h"
#include "hlsched/engine/pipeline_dag.h"

using namespace hlsched;

namespace {

constexpr double kMaxInt32 = double(std::numeric_limits<int32_t>::max());

double elements(const std::vector<Span> &region) {
  double n = 1;
  for (const Span &s : region) n *= double(s.extent());
  return n;
}

// Blocks along each grid dimension of each kernel, from the directives: a gpu_tile's loops (x, y)
// then the loops fused into one gpu_blocks.
std::vector<std::vector<double>> grids(const PipelineDag &dag, const ScheduleSpec &spec) {
  std::vector<std::vector<double>> out;
  for (const FuncSchedule &fs : spec.funcs) {
    const FuncNode *f = dag.find(fs.func);
    if (fs.level != ComputeLevel::Root || !f) continue;
    for (const StageSchedule &stage : fs.stages) {
      std::map<std::string, double> extent;
      for (const LoopDim &l : f->stages[size_t(stage.stage)].loops) extent[l.var] = double(l.estimate.extent());
      std::vector<double> grid;
      for (const Directive &d : stage.directives) {
        if (d.kind == Directive::Kind::GpuTile)
          for (size_t k = 0; k < d.factors.size(); k++)
            grid.push_back(std::ceil(extent[d.vars[k]] / double(d.factors[k])));
        if (d.kind == Directive::Kind::Fuse) extent[d.vars[2]] = extent[d.vars[0]] * extent[d.vars[1]];
        if (d.kind == Directive::Kind::GpuBlocks) grid.push_back(extent[d.vars[0]]);
      }
      out.push_back(grid);
    }
  }
  return out;
}

void check_schedule(const PipelineDag &dag, const ScheduleResult &result, const std::string &what) {
  INFO(what << "\n" << result.schedule_code);
  for (const FuncSchedule &fs : result.schedule.funcs) {
    const FuncNode *f = dag.find(fs.func);
    if (!f) continue;  // a Func the schedule makes (a privatized histogram's per-block copy)
    // Stored in global memory, a Func of more points than an int32 counts is addressed out of
    // bounds by the kernels (large_volume's repeat_edge, 2050 x 1026 x 1026, was).
    if (fs.level == ComputeLevel::Root && !f->is_output) CHECK(elements(f->region) <= kMaxInt32 + 1);
  }
  for (const auto &grid : grids(dag, result.schedule))
    for (size_t d = 0; d < grid.size(); d++) CHECK(grid[d] <= (d == 0 ? kMaxInt32 : 65535.0));
  // Buffers of 2^31 elements need the large_buffers feature, and the schedule says so.
  CHECK(result.target.find("-large_buffers") != std::string::npos);
  CHECK(result.schedule_code.find("large_buffers") != std::string::npos);
}

}  // namespace

TEST_CASE("gpu limits: 2^31-element pipelines get schedules within 32-bit indices and CUDA grids",
          "[engine][gpu_limits]") {
  for (const std::string generator : {"large_image", "large_volume"}) {
    auto inst = instantiate_generator(generator, default_gpu_target(), {});
    const PipelineDag dag = build_pipeline_dag(inst.pipeline);
    AutoschedulerOptions options;
    options.time_budget_s = 1;
    check_schedule(dag, schedule_pipeline(inst.pipeline, dag, options), generator + ", beam");
    options.strategy = "simple";
    check_schedule(dag, schedule_pipeline(inst.pipeline, dag, options), generator + ", simple");
    // Random walks take any option the search offers, the odd tilings included.
    options.strategy = "beam";
    const auto samples = sample_schedules(inst.pipeline, dag, options, 40, /*seed=*/3);
    CHECK(samples.size() >= 30);
    for (size_t i = 0; i < samples.size(); i++) check_schedule(dag, samples[i], generator + ", sample " + std::to_string(i));
  }
}

TEST_CASE("gpu limits: small pipelines keep the plain target", "[engine][gpu_limits]") {
  auto inst = instantiate_generator("stencil_small", default_gpu_target(), {});
  const PipelineDag dag = build_pipeline_dag(inst.pipeline);
  AutoschedulerOptions options;
  options.time_budget_s = 1;
  const ScheduleResult result = schedule_pipeline(inst.pipeline, dag, options);
  CHECK(result.target == "host-cuda-cuda_capability_86");
  CHECK(result.schedule_code.find("large_buffers") == std::string::npos);
}
