#include "search/cost_memo.h"

#include <cstdio>
#include <fstream>

#include "search/content_hash.h"
#include "util/replace_file.h"

namespace hlsched {

namespace {

// Keys are saved to disk: the seed is part of the file format.
using Hasher = ContentHash<0x2545f4914f6cdd1dULL>;

// The file format: a magic line, then fixed-size records (key, total milliseconds).
constexpr char kMagic[] = "hlsched-cost-memo-v4";  // a new cost model: a new version

}  // namespace

std::vector<uint64_t> func_content_hashes(const PipelineDag &dag) {
  std::map<std::string, uint64_t> by_name;
  for (const InputNode &in : dag.inputs) {
    Hasher h;
    h.add(in.name);
    for (const Span &s : in.estimate) h.add(uint64_t(s.min)), h.add(uint64_t(s.extent()));
    h.add(uint64_t(in.type.bits()) * 16 + uint64_t(in.type.code()));
    by_name[in.name] = h.h;
  }
  std::vector<uint64_t> hashes(dag.funcs.size());
  for (size_t i = 0; i < dag.funcs.size(); i++) {  // producers first
    const FuncNode &f = dag.funcs[i];
    Hasher h;
    for (const Span &s : f.region) h.add(uint64_t(s.min)), h.add(uint64_t(s.extent()));
    for (const StageNode &stage : f.stages) {
      h.add(stage.definition);
      for (const ProducerAccess &a : stage.accesses) {
        auto it = by_name.find(a.producer);
        if (it != by_name.end()) h.add(it->second);
      }
    }
    h.add(uint64_t(f.is_output));
    hashes[i] = h.h;
    by_name[f.name] = h.h;
  }
  return hashes;
}

uint64_t CostMemo::kernel_key(const std::vector<uint64_t> &content,
                              const std::vector<std::vector<int>> &producers, const ScheduleState &state, int root,
                              int stage, const std::string &gpu_name) const {
  Hasher h;
  h.add(gpu_name);
  h.add(content[root]);
  h.add(uint64_t(stage));
  for (const StageTiling &t : state.decisions[root].tilings) {
    for (size_t i = 0; i < t.vars.size(); i++) h.add(uint64_t(t.threads[i] * 1024 + t.serial[i]) * 2 + t.in_thread[i]);
    h.add(uint64_t(t.single_thread) | uint64_t(t.atomic) << 1 | uint64_t(t.privatized) << 2);
  }
  // Everything the kernel reaches and how: computed inside (inline/fused) or read from memory.
  std::vector<int> pending = {root};
  std::vector<bool> seen(content.size(), false);
  seen[root] = true;
  while (!pending.empty()) {
    int c = pending.back();
    pending.pop_back();
    for (int p : producers[c]) {
      if (seen[p]) continue;
      seen[p] = true;
      const bool decided = state.decided[p];
      const FuncDecision &d = state.decisions[p];
      const bool inside = decided && (d.level == ComputeLevel::Inline ||
                                      ((d.level == ComputeLevel::Block || d.level == ComputeLevel::Thread) &&
                                       d.kernel_root == root));
      h.add(content[p]);
      h.add(inside ? uint64_t(d.level) + 1 : 0);
      if (inside) pending.push_back(p);
    }
  }
  return h.h;
}

const double *CostMemo::find(uint64_t key) const {
  auto it = costs_.find(key);
  return it == costs_.end() ? nullptr : &it->second;
}

void CostMemo::insert(uint64_t key, double total_ms) { costs_.emplace(key, total_ms); }

size_t CostMemo::load(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  if (!in || !std::getline(in, magic) || magic != kMagic) return 0;
  size_t loaded = 0;
  struct Record {
    uint64_t key;
    double total_ms;
  } record;
  while (in.read(reinterpret_cast<char *>(&record), sizeof record)) {
    costs_.emplace(record.key, record.total_ms);
    loaded++;
  }
  return loaded;
}

void CostMemo::save(const std::string &path) const {
  replace_file(path, std::ios::binary, [&](std::ostream &out) {
    out << kMagic << "\n";
    for (const auto &[key, total_ms] : costs_) {
      out.write(reinterpret_cast<const char *>(&key), sizeof key);
      out.write(reinterpret_cast<const char *>(&total_ms), sizeof total_ms);
    }
  });
}

}  // namespace hlsched
