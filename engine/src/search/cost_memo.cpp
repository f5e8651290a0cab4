#include "search/cost_memo.h"

#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "search/content_hash.h"
#include "util/replace_file.h"

namespace hlsched {

namespace {

// Keys are saved to disk: the seed is part of the file format.
using Hasher = ContentHash<0x2545f4914f6cdd1dULL>;

// The file format: a magic line, the record count (uint64), fixed-size records (key, total
// milliseconds), then the XXH3-64 of everything before it. Native byte order: the file stays
// on the machine that wrote it.
constexpr char kMagic[] = "hlsched-cost-memo-v58";  // a new cost model or layout: a new version

struct Record {
  uint64_t key;
  double total_ms;
};
static_assert(sizeof(Record) == 16, "the record layout is part of the file format");

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
      // The loops the costs were computed over (engines before v7 read a scheduled Func's split
      // loops here: their memos hold costs of one-point stages under the same definitions).
      for (const LoopDim &loop : stage.loops) h.add(loop.var), h.add(uint64_t(loop.is_rvar) * 2 + loop.is_pure);
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
    // Which loop each tile is of, too: a 3-D Func's (x, c) tiling is not its (x, y) one.
    for (size_t i = 0; i < t.vars.size(); i++) {
      h.add(t.vars[i]);
      h.add(uint64_t(t.threads[i] * 1024 + t.serial[i]) * 2 + t.in_thread[i]);
    }
    if (t.own_tiling) h.add(uint64_t(0x0b17111e));
    if (t.partials) h.add(uint64_t(0x9a271a15));
    if (t.partials_regroup > 0) h.add(uint64_t(t.partials_regroup) + 0x2e900000);
    h.add(uint64_t(t.single_thread) | uint64_t(t.atomic) << 1 | uint64_t(t.privatized) << 2 |
          uint64_t(t.reduction_unroll) << 3 | uint64_t(t.slab) << 16);
  }
  // Computed with a sibling: the launch it shares and what the sibling reads (its content).
  // (Only then: other kernels keep the keys they had before siblings existed.)
  if (const int sibling = state.decisions[root].computed_with; sibling >= 0) h.add(content[sibling] ^ 0xc0317100);
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
      // Undecided apart from stored: a register tile reduction not decided yet is costed inside
      // its kernel (build_kernel_model's lookahead), stored at root it is read from memory.
      // A copy per slab of the kernel's reduction covers another box than a copy per block.
      h.add(inside ? uint64_t(d.level) + 1 + (d.per_slab ? 16 : 0) : decided ? 0 : 8);
      if (inside) pending.push_back(p);
    }
  }
  return h.h;
}

const double *CostMemo::find(uint64_t key, bool *first_use_of_loaded) {
  auto it = costs_.find(key);
  if (it == costs_.end()) return nullptr;
  if (first_use_of_loaded) *first_use_of_loaded = it->second.loaded_unused;
  it->second.loaded_unused = false;
  return &it->second.total_ms;
}

void CostMemo::insert(uint64_t key, double total_ms) { costs_.emplace(key, Entry{total_ms, false}); }

size_t CostMemo::load(const std::string &path) {
  // Read whole, checked whole: a file that is truncated, partly overwritten, of another version
  // or not a memo at all loads nothing (a clean miss), never a wrong cost.
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string header = std::string(kMagic) + "\n";
  if (contents.size() < header.size() + 2 * sizeof(uint64_t) || contents.compare(0, header.size(), header) != 0)
    return 0;
  uint64_t count = 0, checksum = 0;
  std::memcpy(&count, contents.data() + header.size(), sizeof count);
  const size_t records_at = header.size() + sizeof count;
  if (count > (contents.size() - records_at) / sizeof(Record)) return 0;
  const size_t records_size = size_t(count) * sizeof(Record);
  if (contents.size() != records_at + records_size + sizeof checksum) return 0;
  std::memcpy(&checksum, contents.data() + records_at + records_size, sizeof checksum);
  if (checksum != XXH3_64bits(contents.data(), records_at + records_size)) return 0;
  std::vector<Record> records(count);
  std::memcpy(records.data(), contents.data() + records_at, records_size);
  for (const Record &r : records)
    if (std::isnan(r.total_ms) || r.total_ms < 0) return 0;  // not a cost: written by something else
  for (const Record &r : records) costs_.emplace(r.key, Entry{r.total_ms, true});
  return records.size();
}

bool CostMemo::save(const std::string &path) const {
  std::string contents = std::string(kMagic) + "\n";
  const uint64_t count = costs_.size();
  contents.append(reinterpret_cast<const char *>(&count), sizeof count);
  for (const auto &[key, entry] : costs_) {
    const Record r{key, entry.total_ms};
    contents.append(reinterpret_cast<const char *>(&r), sizeof r);
  }
  const uint64_t checksum = XXH3_64bits(contents.data(), contents.size());
  contents.append(reinterpret_cast<const char *>(&checksum), sizeof checksum);
  return replace_file(path, std::ios::binary, [&](std::ostream &out) { out.write(contents.data(), contents.size()); });
}

}  // namespace hlsched
