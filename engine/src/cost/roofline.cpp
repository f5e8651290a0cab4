#include "cost/roofline.h"

#include <algorithm>

namespace hlsched {

namespace {

struct Work {
  double ops = 0;       ///< arithmetic per point
  double math_ops = 0;  ///< transcendental per point
  // Bytes read per point from each materialized producer or input.
  std::map<std::string, double> bytes_from;
};

bool is_inlined(const ScheduleSpec &schedule, const std::string &func) {
  const FuncSchedule *fs = schedule.find(func);
  return fs && fs->level == ComputeLevel::Inline;
}

int type_bytes(const std::string &op_key) {
  // "load.u16" -> 2
  auto dot = op_key.find('.');
  std::string t = op_key.substr(dot + 1);
  if (t == "bool") return 1;
  int bits = std::atoi(t.c_str() + 1);
  return std::max(1, bits / 8);
}

// Work per point of a stage, with inlined producers expanded at their call sites.
Work work_per_point(const PipelineDag &dag, const StageNode &stage, const ScheduleSpec &schedule, int depth = 0) {
  Work w;
  const ArithmeticOps own = stage.arithmetic_ops();
  w.ops = double(own.basic);
  w.math_ops = double(own.math);
  for (const ProducerAccess &a : stage.accesses) {
    const FuncNode *producer = dag.find(a.producer);
    if (producer && is_inlined(schedule, a.producer) && depth < 32 && !producer->stages.empty()) {
      Work inner = work_per_point(dag, producer->stages[0], schedule, depth + 1);
      w.ops += inner.ops * double(a.calls_per_point);
      w.math_ops += inner.math_ops * double(a.calls_per_point);
      for (const auto &[name, bytes] : inner.bytes_from) w.bytes_from[name] += bytes * double(a.calls_per_point);
      continue;
    }
    int bytes = 4;
    if (producer) bytes = int(producer->bytes_per_point());
    for (const InputNode &in : dag.inputs)
      if (in.name == a.producer) bytes = in.type.bytes();
    w.bytes_from[a.producer] += double(bytes) * double(a.calls_per_point);
  }
  return w;
}

double region_bytes(const PipelineDag &dag, const std::string &name) {
  double points = 1;
  int bytes = 4;
  if (const FuncNode *f = dag.find(name)) {
    for (const Span &s : f->region) points *= double(std::max<int64_t>(1, s.extent()));
    bytes = int(f->bytes_per_point());
  } else {
    for (const InputNode &in : dag.inputs)
      if (in.name == name) {
        for (const Span &s : in.estimate) points *= double(std::max<int64_t>(1, s.extent()));
        bytes = in.type.bytes();
      }
  }
  return points * bytes;
}

}  // namespace

std::vector<StageCost> roofline_costs(const PipelineDag &dag, const ScheduleSpec &schedule, const GpuProfile &gpu) {
  std::vector<StageCost> costs;
  for (const FuncSchedule &fs : schedule.funcs) {
    const FuncNode *func = dag.find(fs.func);
    if (!func || fs.level == ComputeLevel::Inline) continue;
    for (const StageNode &stage : func->stages) {
      StageCost c;
      c.func = func->name;
      c.stage = stage.index;
      c.placement = "root kernel";
      c.points = stage.points;
      Work w = work_per_point(dag, stage, schedule);
      const double points = double(stage.points);
      c.operations = points * (w.ops + w.math_ops);
      // Each producer is read from DRAM at most once per stage (caches catch the reuse of
      // stencils), and at most as often as the stage's calls ask.
      double bytes = points * double(func->bytes_per_point());
      for (const auto &[name, per_point] : w.bytes_from)
        bytes += std::min(points * per_point, region_bytes(dag, name));
      c.bytes_moved = bytes;
      const double memory_s = bytes / gpu.dram_bandwidth_bytes_per_s;
      const double compute_s = points * w.ops / gpu.fp32_ops_per_s + points * w.math_ops / gpu.special_function_ops_per_s;
      const double launch_s = gpu.kernel_launch_seconds;
      c.terms_ms = {{"global_memory", memory_s * 1e3}, {"compute", compute_s * 1e3}, {"launch", launch_s * 1e3}};
      c.predicted_ms = (std::max(memory_s, compute_s) + launch_s) * 1e3;
      c.bound = launch_s > std::max(memory_s, compute_s) ? "launch" : memory_s >= compute_s ? "memory" : "compute";
      costs.push_back(c);
    }
  }
  return costs;
}

}  // namespace hlsched
