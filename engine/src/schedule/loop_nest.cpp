#include "hlsched/engine/loop_nest.h"

#include <algorithm>
#include <sstream>

namespace hlsched {

namespace {

using Kind = Directive::Kind;

struct Loop {
  std::string var;
  std::string how = "serial";
};

// A stage's dimension list, edited as Halide 14 edits it (Stage::split, fuse, reorder, gpu_tile).
class StageLoops {
public:
  explicit StageLoops(const StageNode *stage) {
    if (stage)
      for (const LoopDim &l : stage->loops) loops_.push_back({l.var});
  }

  void apply(const Directive &d) {
    switch (d.kind) {
      case Kind::Split:
        split(d.vars.at(0), d.vars.at(1), d.vars.at(2), d.factors.at(0), int(d.tail));
        break;
      case Kind::Fuse: {
        auto inner = find(d.vars.at(0)), outer = find(d.vars.at(1));
        if (inner == loops_.end() || outer == loops_.end()) return note("fuse of an unknown loop " + d.vars[0] + "," + d.vars[1]);
        inner->var = d.vars.at(2);
        loops_.erase(find(d.vars.at(1)));
        structure_.push_back("fuse(" + d.vars[0] + "," + d.vars[1] + ")->" + d.vars[2]);
        break;
      }
      case Kind::Reorder:
        reorder(d.vars);
        break;
      case Kind::GpuTile: {
        const size_t n = d.vars.size() / 3;
        std::vector<std::string> order;
        for (size_t i = 0; i < n; i++) split(d.vars[i], d.vars[n + i], d.vars[2 * n + i], d.factors.at(i), int(d.tail));
        for (size_t i = 0; i < n; i++) order.push_back(d.vars[2 * n + i]);
        for (size_t i = 0; i < n; i++) order.push_back(d.vars[n + i]);
        reorder(order);
        for (size_t i = 0; i < n; i++) mark(d.vars[n + i], "block"), mark(d.vars[2 * n + i], "thread");
        break;
      }
      case Kind::GpuBlocks:
        for (const std::string &v : d.vars) mark(v, "block");
        break;
      case Kind::GpuThreads:
        for (const std::string &v : d.vars) mark(v, "thread");
        break;
      case Kind::Unroll:
        mark(d.vars.at(0), "unrolled");
        break;
      case Kind::Vectorize:
        mark(d.vars.at(0), "vectorized");
        break;
      default:
        break;  // the caller prints the others as they are
    }
  }

  std::string text() const {
    std::ostringstream out;
    out << "loops";
    for (const Loop &l : loops_) out << ' ' << l.var << ':' << l.how;
    std::vector<std::string> structure = structure_;
    std::sort(structure.begin(), structure.end());  // the same splits in another order: same loops
    for (const std::string &s : structure) out << "; " << s;
    return out.str();
  }

private:
  std::vector<Loop>::iterator find(const std::string &var) {
    return std::find_if(loops_.begin(), loops_.end(), [&](const Loop &l) { return l.var == var; });
  }
  void note(const std::string &what) { structure_.push_back("!" + what); }

  void split(const std::string &old, const std::string &outer, const std::string &inner, int64_t factor, int tail) {
    auto at = find(old);
    if (at == loops_.end()) return note("split of an unknown loop " + old);
    const std::string how = at->how;
    at->var = inner;
    loops_.insert(at + 1, Loop{outer, how});
    structure_.push_back("split(" + old + ")->" + outer + "," + inner + "/" + std::to_string(factor) + " tail " +
                         std::to_string(tail));
  }

  // The named loops keep the positions they hold among all loops, in the order given.
  void reorder(const std::vector<std::string> &order) {
    std::vector<size_t> positions;
    std::vector<Loop> named;
    for (const std::string &v : order) {
      auto at = find(v);
      if (at == loops_.end()) return note("reorder of an unknown loop " + v);
      positions.push_back(size_t(at - loops_.begin()));
      named.push_back(*at);
    }
    std::sort(positions.begin(), positions.end());
    for (size_t i = 0; i < positions.size(); i++) loops_[positions[i]] = named[i];
  }

  void mark(const std::string &var, const std::string &how) {
    auto at = find(var);
    if (at == loops_.end()) return note(how + " on an unknown loop " + var);
    at->how = how;
  }

  std::vector<Loop> loops_;
  std::vector<std::string> structure_;
};

std::string level_name(ComputeLevel level) {
  switch (level) {
    case ComputeLevel::Inline: return "inline";
    case ComputeLevel::Root: return "root";
    case ComputeLevel::Block: return "block";
    case ComputeLevel::Thread: return "thread";
  }
  return "?";
}

// Directives that do not edit the loop list, printed as they are.
std::string directive_text(const Directive &d) {
  std::ostringstream out;
  out << "directive " << int(d.kind) << '(';
  for (const std::string &v : d.vars) out << v << ',';
  for (int64_t f : d.factors) out << f << ',';
  out << "tail " << int(d.tail) << ",at " << d.at_func << ",memory " << int(d.memory) << ')';
  return out.str();
}

bool edits_loops(Kind kind) {
  switch (kind) {
    case Kind::Split: case Kind::Fuse: case Kind::Reorder: case Kind::GpuTile: case Kind::GpuBlocks:
    case Kind::GpuThreads: case Kind::Unroll: case Kind::Vectorize:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string> loop_nest_lines(const PipelineDag &dag, const ScheduleSpec &spec) {
  std::vector<const FuncSchedule *> funcs;
  for (const FuncSchedule &f : spec.funcs) funcs.push_back(&f);
  std::sort(funcs.begin(), funcs.end(), [](auto *a, auto *b) { return a->func < b->func; });
  std::vector<std::string> lines;
  for (const FuncSchedule *f : funcs) {
    lines.push_back(f->func + ": " + level_name(f->level));
    const FuncNode *node = nullptr;
    for (const FuncNode &n : dag.funcs)
      if (n.name == f->func) node = &n;
    for (const StageSchedule &s : f->stages) {
      const StageNode *stage = node && s.stage < int(node->stages.size()) ? &node->stages[size_t(s.stage)] : nullptr;
      StageLoops loops(stage);
      std::string others;
      bool after_rfactor = false;  // rfactor starts a new stage whose loops this does not follow
      bool specialized = false;    // a specialization's own loops: printed, not followed
      for (const Directive &d : s.directives) {
        if (d.kind == Kind::RFactor) after_rfactor = true;
        if (d.kind == Kind::SpecializeStage) specialized = true;
        if (edits_loops(d.kind) && !after_rfactor && !specialized) loops.apply(d);
        else others += "; " + directive_text(d);
        if (d.kind == Kind::EndSpecialization) specialized = false;
      }
      lines.push_back(f->func + ".s" + std::to_string(s.stage) + ": " + loops.text() + others);
    }
  }
  return lines;
}

ScheduleSpec without_whole_tile_schedules(ScheduleSpec spec) {
  for (FuncSchedule &f : spec.funcs)
    for (StageSchedule &s : f.stages) {
      std::vector<Directive> general;
      bool specialized = false;
      for (const Directive &d : s.directives) {
        if (d.kind == Kind::SpecializeStage) specialized = true;
        if (!specialized) general.push_back(d);
        if (d.kind == Kind::EndSpecialization) specialized = false;
      }
      s.directives = std::move(general);
    }
  return spec;
}

namespace {

std::vector<std::string> differing_lines(const std::vector<std::string> &measured,
                                         const std::vector<std::string> &today) {
  std::vector<std::string> differ;
  for (const std::string &line : measured)
    if (std::find(today.begin(), today.end(), line) == today.end()) differ.push_back("measured: " + line);
  for (const std::string &line : today)
    if (std::find(measured.begin(), measured.end(), line) == measured.end()) differ.push_back("rebuilt:  " + line);
  return differ;
}

}  // namespace

LoopNestComparison compare_loop_nests(const PipelineDag &dag, const ScheduleSpec &measured,
                                      const ScheduleSpec &rebuilt) {
  const std::vector<std::string> before = loop_nest_lines(dag, measured);
  LoopNestComparison c;
  c.differing = differing_lines(before, loop_nest_lines(dag, rebuilt));
  // Only a rebuilt schedule with whole-tile schedules, against a measured one without (whose
  // lines would name its own), can match once they are taken out.
  if (!c.differing.empty() &&
      differing_lines(before, loop_nest_lines(dag, without_whole_tile_schedules(rebuilt))).empty()) {
    c.differing.clear();
    c.whole_tiles_added = true;
  }
  return c;
}

}  // namespace hlsched
