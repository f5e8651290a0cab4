#include "search/warm_start.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "search/content_hash.h"
#include "util/replace_file.h"

namespace hlsched {

namespace {

using Hasher = ContentHash<0x6a09e667f3bcc908ULL>;

// Whitespace-separated tokens: Halide names contain no spaces. One Func per line.
// The last line is "checksum <XXH3-64 of the lines before, hex>".
constexpr char kMagic[] = "hlsched-warm-start-v6";

}  // namespace

std::vector<uint64_t> func_local_hashes(const PipelineDag &dag) {
  std::vector<uint64_t> hashes;
  for (const FuncNode &f : dag.funcs) {
    Hasher h;
    h.add(f.name);
    for (const Span &s : f.region) h.add(uint64_t(s.min)), h.add(uint64_t(s.extent()));
    for (const Halide::Type &t : f.types) h.add(uint64_t(t.bits()) * 16 + uint64_t(t.code()));
    for (const StageNode &stage : f.stages) h.add(stage.definition);
    h.add(uint64_t(f.is_output));
    hashes.push_back(h.h);
  }
  return hashes;
}

WarmStart WarmStart::from_state(const PipelineDag &dag, const ScheduleState &state, uint64_t options_key) {
  WarmStart warm;
  warm.options_key_ = options_key;
  const std::vector<uint64_t> local = func_local_hashes(dag);
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    if (!state.decided[f]) continue;
    Entry entry{local[f], state.decisions[f], "", ""};
    if (entry.decision.kernel_root >= 0) entry.kernel_root = dag.funcs[entry.decision.kernel_root].name;
    if (entry.decision.computed_with >= 0) entry.computed_with = dag.funcs[entry.decision.computed_with].name;
    warm.entries_[dag.funcs[f].name] = std::move(entry);
  }
  return warm;
}

namespace {

// A decision tiles loops by name: one made for other loops (an older engine read a scheduled
// Func's split loops, x.xi, for the same definition) does not fit this DAG's stages.
bool tiles_existing_loops(const FuncNode &func, const FuncDecision &decision) {
  if (decision.tilings.size() > func.stages.size()) return false;
  for (size_t s = 0; s < decision.tilings.size(); s++)
    for (const std::string &var : decision.tilings[s].vars) {
      const std::vector<LoopDim> &loops = func.stages[s].loops;
      if (std::none_of(loops.begin(), loops.end(), [&](const LoopDim &l) { return l.var == var; })) return false;
    }
  return true;
}

}  // namespace

WarmStart::Match WarmStart::match(const PipelineDag &dag, uint64_t options_key) const {
  Match m{ScheduleState(dag), 0};
  if (options_key != options_key_) return m;
  const std::vector<uint64_t> local = func_local_hashes(dag);
  for (size_t f = 0; f < dag.funcs.size(); f++) {
    auto it = entries_.find(dag.funcs[f].name);
    if (it == entries_.end() || it->second.local_hash != local[f]) continue;
    if (!tiles_existing_loops(dag.funcs[f], it->second.decision)) continue;
    FuncDecision decision = it->second.decision;
    if (!it->second.kernel_root.empty()) {
      decision.kernel_root = dag.index_of(it->second.kernel_root);
      if (decision.kernel_root < 0) continue;  // its kernel is gone
    }
    if (!it->second.computed_with.empty()) {
      decision.computed_with = dag.index_of(it->second.computed_with);
      if (decision.computed_with < 0) continue;  // its sibling is gone
    }
    m.state.decide(int(f), std::move(decision));
    m.matched++;
  }
  return m;
}

namespace {

constexpr char kChecksumLabel[] = "checksum ";

std::string checksum_line(const std::string &body) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(body.data(), body.size())));
  return std::string(kChecksumLabel) + hex + "\n";
}

// The file's body when its last line is the checksum of everything before it; false for a
// truncated, partly overwritten or foreign file.
bool checked_body(const std::string &path, std::string &body) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  const std::string contents((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t line_size = sizeof kChecksumLabel - 1 + 16 + 1;
  if (contents.size() < line_size) return false;
  body = contents.substr(0, contents.size() - line_size);
  return contents.compare(body.size(), line_size, checksum_line(body)) == 0;
}

}  // namespace

bool WarmStart::load(const std::string &path) {
  std::string body;
  if (!checked_body(path, body)) {
    entries_.clear();
    return false;
  }
  std::istringstream in(body);
  return read(in);
}

bool WarmStart::from_text(const std::string &text) {
  std::istringstream in(text);
  return read(in);
}

bool WarmStart::read(std::istream &in) {
  entries_.clear();
  std::string magic;
  size_t count = 0;
  // v1 (datasets of 2026-12-01 keep it) has the same tokens; v2 only added the file's checksum;
  // v3 adds each tiling's reduction unroll and own-tiling flag after its loops; v4 each tiling's
  // slab after those, and the decision's per-slab flag after its tilings; v5 the name of the
  // sibling it is computed with ("-": none) after that; v6 each tiling's partial results regroup
  // (StageTiling::partials_regroup) after its slab.
  if (!(in >> magic)) return false;
  const bool v6 = magic == kMagic;
  const bool v5 = v6 || magic == "hlsched-warm-start-v5";
  const bool v4 = v5 || magic == "hlsched-warm-start-v4";
  const bool v3 = v4 || magic == "hlsched-warm-start-v3";
  if ((!v3 && magic != "hlsched-warm-start-v1" && magic != "hlsched-warm-start-v2") || !(in >> options_key_ >> count))
    return false;
  std::map<std::string, Entry> entries;
  for (size_t i = 0; i < count; i++) {
    std::string name;
    int level = 0;
    size_t tilings = 0;
    Entry e;
    if (!(in >> name >> e.local_hash >> level >> e.kernel_root >> tilings) || level < 0 || level > 3) return false;
    if (e.kernel_root == "-") e.kernel_root.clear();
    e.decision.level = ComputeLevel(level);
    for (size_t t = 0; t < tilings; t++) {
      StageTiling tiling;
      size_t vars = 0;
      int atomic = 0;  // 0: no, 1: atomic, 2: atomic and privatized, 3: partial results
      if (!(in >> tiling.single_thread >> atomic >> vars) || atomic < 0 || atomic > 3) return false;
      tiling.atomic = atomic == 1 || atomic == 2;
      tiling.privatized = atomic == 2;
      tiling.partials = atomic == 3;
      for (size_t v = 0; v < vars; v++) {
        std::string var;
        int64_t extent = 0, threads = 0, serial = 0;
        bool in_thread = false;
        if (!(in >> var >> extent >> threads >> serial >> in_thread)) return false;
        tiling.vars.push_back(var);
        tiling.extents.push_back(extent);
        tiling.threads.push_back(threads);
        tiling.serial.push_back(serial);
        tiling.in_thread.push_back(in_thread);
      }
      if (v3 && (!(in >> tiling.reduction_unroll >> tiling.own_tiling) || tiling.reduction_unroll < 1)) return false;
      if (v4 && (!(in >> tiling.slab) || tiling.slab < 0)) return false;
      if (v6 && (!(in >> tiling.partials_regroup) || tiling.partials_regroup < 0)) return false;
      e.decision.tilings.push_back(std::move(tiling));
    }
    if (v4 && !(in >> e.decision.per_slab)) return false;
    if (v5 && !(in >> e.computed_with)) return false;
    if (e.computed_with == "-") e.computed_with.clear();
    entries[name] = std::move(e);
  }
  entries_ = std::move(entries);
  return true;
}

bool WarmStart::save(const std::string &path) const {
  const std::string body = to_text();
  return replace_file(path, std::ios::binary, [&](std::ostream &file) { file << body << checksum_line(body); });
}

std::string WarmStart::to_text() const {
  std::ostringstream out;
  write(out);
  return out.str();
}

void WarmStart::write(std::ostream &out) const {
  out << kMagic << "\n" << options_key_ << " " << entries_.size() << "\n";
  for (const auto &[name, e] : entries_) {
    out << name << " " << e.local_hash << " " << int(e.decision.level) << " "
        << (e.kernel_root.empty() ? "-" : e.kernel_root) << " " << e.decision.tilings.size();
    for (const StageTiling &t : e.decision.tilings) {
      out << "  " << t.single_thread << " " << (t.partials ? 3 : int(t.atomic) + int(t.privatized)) << " "
          << t.vars.size();
      for (size_t v = 0; v < t.vars.size(); v++)
        out << " " << t.vars[v] << " " << t.extents[v] << " " << t.threads[v] << " " << t.serial[v] << " "
            << t.in_thread[v];
      out << " " << t.reduction_unroll << " " << t.own_tiling << " " << t.slab << " " << t.partials_regroup;
    }
    out << " " << e.decision.per_slab << " " << (e.computed_with.empty() ? "-" : e.computed_with);
    out << "\n";
  }
}

}  // namespace hlsched
