// Applying a ScheduleSpec through Halide's scheduling API.
#include <algorithm>
#include <stdexcept>

#include "hlsched/engine/pipeline_walk.h"
#include "hlsched/engine/schedule_spec.h"

namespace hlsched {

using namespace Halide;

namespace {

class StageApplier {
public:
  StageApplier(Func func, const StageSchedule &stage, std::map<std::string, Func> &funcs, ApplyMode mode)
      : func_(func), stage_index_(stage.stage), stage_(stage.stage == 0 ? Stage(func) : func.update(stage.stage - 1)),
        rvars_(stage.rvars), funcs_(funcs), mode_(mode) {}

  void apply(const Directive &d) {
    using K = Directive::Kind;
    const bool gpu = mode_ == ApplyMode::Gpu;
    switch (d.kind) {
      case K::ComputeRoot: func_.compute_root(); break;
      case K::ComputeAt: compute_at(funcs_.at(d.at_func), d.vars.at(0)); break;
      case K::ComputeWith: stage_.compute_with(funcs_.at(d.at_func), var(d.vars.at(0))); break;
      case K::StoreIn:
        if (gpu) func_.store_in(d.memory);
        break;
      case K::Split: stage_.split(var(d.vars[0]), var(d.vars[1]), var(d.vars[2]), Expr(int(d.factors[0])), d.tail); break;
      case K::Fuse: stage_.fuse(var(d.vars[0]), var(d.vars[1]), var(d.vars[2])); break;
      case K::Reorder: stage_.reorder(vars(d.vars)); break;
      case K::GpuTile: gpu_tile(d, gpu); break;
      case K::GpuBlocks:
        if (gpu) gpu_loops(d.vars, /*blocks=*/true);
        else for (const auto &v : d.vars) stage_.parallel(var(v));
        break;
      case K::GpuThreads:
        if (gpu) gpu_loops(d.vars, /*blocks=*/false);
        break;
      case K::GpuSingleThread:
        if (gpu) stage_.gpu_single_thread();
        break;
      case K::Unroll: stage_.unroll(var(d.vars[0])); break;
      case K::BoundExtent: func_.bound_extent(Var(d.vars.at(0)), Expr(int(d.factors.at(0)))); break;
      case K::AlignBounds: func_.align_bounds(Var(d.vars.at(0)), Expr(int(d.factors.at(0)))); break;
      case K::AlignStorage: func_.align_storage(Var(d.vars.at(0)), Expr(int(d.factors.at(0)))); break;
      case K::Specialize: func_.specialize(condition(d)); break;
      case K::SpecializeStage: stage_ = func_.specialize(condition(d)); break;
      case K::EndSpecialization: stage_ = stage_index_ == 0 ? Stage(func_) : func_.update(stage_index_ - 1); break;
      case K::Vectorize: stage_.vectorize(var(d.vars[0])); break;
      case K::Atomic: stage_.atomic(); break;  // the CPU twin's parallel loops race the same way
      case K::RFactor: {
        // The intermediate is scheduled by name like any other Func; the stage is fetched again,
        // as the emitted code does after the rfactor statement.
        Func intermediate = stage_.rfactor(RVar(d.vars.at(0)), Var(d.vars.at(1)));
        funcs_.insert_or_assign(d.at_func, intermediate);
        stage_ = stage_index_ == 0 ? Stage(func_) : func_.update(stage_index_ - 1);
        break;
      }
    }
  }

private:
  // A Specialize directive's condition on the output's buffer.
  Expr condition(const Directive &d) {
    Expr all;
    for (size_t i = 0; i + 2 < d.factors.size(); i += 3) {
      const Halide::Internal::Dimension dim = func_.output_buffer().dim(int(d.factors[i + 1]));
      const int value = int(d.factors[i + 2]);
      Expr term;
      switch (SpecializeTerm(d.factors[i])) {
        case SpecializeTerm::Aligned: term = dim.min() % value == 0; break;
        case SpecializeTerm::Extent: term = dim.extent() == value; break;
        case SpecializeTerm::ExtentMultiple: term = dim.extent() % value == 0; break;
      }
      all = all.defined() ? (all && term) : term;
    }
    return all;
  }

  VarOrRVar var(const std::string &name) const {
    if (std::count(rvars_.begin(), rvars_.end(), name)) return VarOrRVar(RVar(name));
    return VarOrRVar(Var(name));
  }
  void compute_at(const Func &consumer, const std::string &loop) {
    // The loop belongs to the consumer's stage; whether it is an RVar is by name there too.
    if (loop.find('$') != std::string::npos) func_.compute_at(consumer, RVar(loop));
    else func_.compute_at(consumer, Var(loop));
  }

  // Halide takes one to three loops per gpu_blocks/gpu_threads call.
  void gpu_loops(const std::vector<std::string> &names, bool blocks) {
    auto v = [&](size_t i) { return var(names.at(i)); };
    if (names.size() == 1) blocks ? stage_.gpu_blocks(v(0)) : stage_.gpu_threads(v(0));
    else if (names.size() == 2) blocks ? stage_.gpu_blocks(v(0), v(1)) : stage_.gpu_threads(v(0), v(1));
    else blocks ? stage_.gpu_blocks(v(0), v(1), v(2)) : stage_.gpu_threads(v(0), v(1), v(2));
  }

  std::vector<VarOrRVar> vars(const std::vector<std::string> &names) const {
    std::vector<VarOrRVar> out;
    for (const auto &n : names) out.push_back(var(n));
    return out;
  }

  // vars = [v..., outer..., inner...] for n dims; factors = sizes.
  void gpu_tile(const Directive &d, bool gpu) {
    const size_t n = d.factors.size();
    auto v = [&](size_t i) { return var(d.vars.at(i)); };
    auto size = [&](size_t i) { return Expr(int(d.factors[i])); };
    if (gpu) {
      if (n == 1) stage_.gpu_tile(v(0), v(1), v(2), size(0), d.tail);
      else if (n == 2) stage_.gpu_tile(v(0), v(1), v(2), v(3), v(4), v(5), size(0), size(1), d.tail);
      else stage_.gpu_tile(v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8), size(0), size(1), size(2), d.tail);
      return;
    }
    // The same splits and loop order as gpu_tile, with the tile loops run in parallel.
    for (size_t i = 0; i < n; i++) stage_.split(v(i), v(n + i), v(2 * n + i), size(i), d.tail);
    std::vector<VarOrRVar> order;
    for (size_t i = 0; i < n; i++) order.push_back(v(2 * n + i));
    for (size_t i = 0; i < n; i++) order.push_back(v(n + i));
    stage_.reorder(order);
    stage_.parallel(v(2 * n - 1));
  }

  Func func_;
  int stage_index_;
  Stage stage_;
  std::vector<std::string> rvars_;
  std::map<std::string, Func> &funcs_;
  ApplyMode mode_;
};

}  // namespace

const FuncSchedule *ScheduleSpec::find(const std::string &func) const {
  for (const auto &f : funcs)
    if (f.func == func) return &f;
  return nullptr;
}

void apply_schedule(const ScheduleSpec &schedule, const Pipeline &pipeline, ApplyMode mode) {
  std::map<std::string, Func> funcs;
  for (auto &[name, function] : pipeline_functions(pipeline)) funcs.emplace(name, Func(function));
  for (const FuncSchedule &fs : schedule.funcs) {
    auto it = funcs.find(fs.func);
    if (it == funcs.end()) throw std::runtime_error("schedule names Func '" + fs.func + "', which the pipeline lacks");
    for (const StageSchedule &stage : fs.stages) {
      StageApplier applier(it->second, stage, funcs, mode);
      for (const Directive &d : stage.directives) applier.apply(d);
    }
  }
}

}  // namespace hlsched
