#include "schedule/simple_scheduler.h"

#include <algorithm>
#include <map>
#include <set>

#include "schedule/gpu_limits.h"
#include "util/int_math.h"

namespace hlsched {

namespace {

// A gpu_tile over the two innermost loops with extent > 1 (or one), the rest fused into one
// more block dimension. Thread tile: 32 wide along the innermost loop for coalescing, up to 256
// threads in all, shrunk to fit small extents.
std::vector<Directive> tile_for_gpu(const std::vector<LoopDim> &loops, const std::vector<std::string> &parallel,
                                    const GpuProfile &gpu) {
  std::vector<const LoopDim *> dims;
  for (const LoopDim &l : loops)
    if (std::count(parallel.begin(), parallel.end(), l.var)) dims.push_back(&l);
  std::vector<Directive> out;
  if (dims.empty()) return out;

  std::vector<const LoopDim *> tiled, rest;
  for (const LoopDim *d : dims) (tiled.size() < 2 && d->estimate.extent() > 1 ? tiled : rest).push_back(d);
  if (tiled.empty()) tiled.push_back(dims.front()), rest.erase(rest.begin());

  const int64_t max_threads = std::min<int64_t>(256, gpu.max_threads_per_block);
  Directive tile{Directive::Kind::GpuTile};
  int64_t threads = 1;
  std::vector<std::string> outer, inner;
  for (size_t i = 0; i < tiled.size(); i++) {
    const LoopDim &d = *tiled[i];
    int64_t want = i == 0 ? 32 : max_threads / threads;
    if (tiled.size() == 1) want = max_threads;
    int64_t size = std::max<int64_t>(1, std::min(want, ceil_pow2(d.estimate.extent())));
    threads *= size;
    tile.vars.push_back(d.var);
    outer.push_back(d.var + "o");
    inner.push_back(d.var + "i");
    tile.factors.push_back(size);
  }
  tile.vars.insert(tile.vars.end(), outer.begin(), outer.end());
  tile.vars.insert(tile.vars.end(), inner.begin(), inner.end());
  tile.tail = Halide::TailStrategy::GuardWithIf;  // correct for any extent, cheap on GPUs
  out.push_back(tile);

  // Remaining parallel loops become one more block dimension (Halide allows three), as many as
  // the grid's limit along it takes; any others run whole inside each thread.
  std::vector<std::string> extra, in_thread;
  int64_t grid_z = 1;
  for (const LoopDim *d : rest) {
    const int64_t extent = d->estimate.extent();
    if (extent <= 1) continue;
    if (grid_z * extent <= kMaxGridBlocksYZ) {
      extra.push_back(d->var);
      grid_z *= extent;
    } else {
      in_thread.push_back(d->var);
    }
  }
  if (!in_thread.empty()) {  // every loop listed, innermost first: reorder() swaps listed positions
    std::vector<std::string> order = in_thread;
    order.insert(order.end(), inner.begin(), inner.end());
    order.insert(order.end(), outer.begin(), outer.end());
    order.insert(order.end(), extra.begin(), extra.end());
    out.push_back(Directive{Directive::Kind::Reorder, order});
  }
  if (!extra.empty()) {
    std::string fused = extra.front();
    for (size_t i = 1; i < extra.size(); i++) {
      std::string name = fused + "_" + extra[i];
      out.push_back(Directive{Directive::Kind::Fuse, {fused, extra[i], name}});
      fused = name;
    }
    out.push_back(Directive{Directive::Kind::GpuBlocks, {fused}});
  }
  return out;
}

StageSchedule schedule_stage(const FuncNode &func, const StageNode &stage, const GpuProfile &gpu) {
  StageSchedule s;
  s.stage = stage.index;
  for (const LoopDim &l : stage.loops)
    if (l.is_rvar) s.rvars.push_back(l.var);
  if (stage.index == 0) s.directives.push_back(Directive{Directive::Kind::ComputeRoot});

  // Pure stages: every loop is parallel. Updates: only the pure vars Halide proves race-free.
  std::vector<std::string> parallel;
  for (const LoopDim &l : stage.loops)
    if (!l.is_rvar && (stage.index == 0 || l.is_pure)) parallel.push_back(l.var);
  auto tiles = tile_for_gpu(stage.loops, parallel, gpu);
  if (tiles.empty()) {
    // Nothing parallel (a scan or histogram over an RDom): one GPU thread keeps the data on
    // the device instead of copying it to the host and back.
    s.directives.push_back(Directive{Directive::Kind::GpuSingleThread});
  }
  s.directives.insert(s.directives.end(), tiles.begin(), tiles.end());
  (void)func;
  return s;
}

}  // namespace

bool should_inline(const PipelineDag &dag, const FuncNode &func) {
  if (func.is_output || func.has_extern_definition || func.stages.size() != 1 || func.consumers.empty())
    return false;
  bool pointwise_everywhere = true;
  for (const FuncNode &consumer : dag.funcs)
    for (const StageNode &stage : consumer.stages)
      for (const ProducerAccess &a : stage.accesses)
        if (a.producer == func.name && !(a.is_pointwise && a.calls_per_point == 1)) pointwise_everywhere = false;
  if (pointwise_everywhere) return true;
  // Boundary conditions and other cheap gathers are worth recomputing at each use.
  return func.is_boundary_condition || func.stages[0].arithmetic_ops().total() <= 4;
}

namespace {

// Inlining copies a Func's expression into every call site of its consumers, so cheap stencils
// inlined into one another grow exponentially (ten 2-tap stages put 1024 loads of the first into
// one kernel, and Halide's lowering then takes minutes). These bound the loads a Func expands to
// once its inlined producers are substituted, and the loads it adds to any one consumer.
constexpr int64_t kMaxInlinedLoads = 64;
constexpr int64_t kMaxLoadsAddedToConsumer = 256;

// Loads of producers (Funcs or inputs) in one point of `func`, with the inlined producers among
// them (`inlined_loads`: name -> their own expanded loads) substituted.
int64_t expanded_loads(const FuncNode &func, const std::map<std::string, int64_t> &inlined_loads) {
  int64_t loads = 0;
  for (const StageNode &stage : func.stages)
    for (const ProducerAccess &a : stage.accesses) {
      auto it = inlined_loads.find(a.producer);
      loads += a.calls_per_point * (it != inlined_loads.end() ? it->second : 1);
    }
  return loads;
}

int64_t most_calls_by_one_consumer(const PipelineDag &dag, const FuncNode &func) {
  int64_t most = 0;
  for (const FuncNode &consumer : dag.funcs)
    for (const StageNode &stage : consumer.stages)
      for (const ProducerAccess &a : stage.accesses)
        if (a.producer == func.name) most = std::max(most, a.calls_per_point);
  return most;
}

// The Funcs to inline: should_inline's choice, within the bounds above (producers first, so each
// Func's expansion counts the inlining already decided upstream).
std::set<std::string> funcs_to_inline(const PipelineDag &dag) {
  std::map<std::string, int64_t> inlined_loads;
  for (const FuncNode &func : dag.funcs) {
    // Stored at root, a Func of more than 2^31 points would be indexed out of bounds by 32-bit
    // device indices: inlined whatever it costs, when it can be.
    const bool must_inline = too_large_to_store_on_device(func) && !func.has_extern_definition &&
                             func.stages.size() == 1 && !func.consumers.empty();
    if (!must_inline && !should_inline(dag, func)) continue;
    const int64_t loads = expanded_loads(func, inlined_loads);
    if (must_inline ||
        (loads <= kMaxInlinedLoads && loads * most_calls_by_one_consumer(dag, func) <= kMaxLoadsAddedToConsumer))
      inlined_loads[func.name] = loads;
  }
  std::set<std::string> names;
  for (const auto &[name, loads] : inlined_loads) names.insert(name);
  return names;
}

}  // namespace

ScheduleSpec simple_gpu_schedule(const PipelineDag &dag, const GpuProfile &gpu) {
  ScheduleSpec spec;
  const std::set<std::string> inlined = funcs_to_inline(dag);
  // Consumers first, so the code reads from the outputs back to the inputs.
  for (auto it = dag.funcs.rbegin(); it != dag.funcs.rend(); ++it) {
    const FuncNode &func = *it;
    FuncSchedule fs;
    fs.func = func.name;
    if (inlined.count(func.name)) {
      fs.level = ComputeLevel::Inline;
    } else {
      fs.level = ComputeLevel::Root;
      for (const StageNode &stage : func.stages) fs.stages.push_back(schedule_stage(func, stage, gpu));
    }
    spec.funcs.push_back(std::move(fs));
  }
  return spec;
}

}  // namespace hlsched
