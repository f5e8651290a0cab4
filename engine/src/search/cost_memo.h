// Memoized kernel costs, keyed by what a kernel computes, not by object addresses: the content of
// its stage, its tiling, and the content and placement of every Func it reaches. Costs found for
// one pipeline are reused for another that shares kernels (the daemon's next edit) when loaded
// from and saved to a file.
//
// Threading: one search (one thread) at a time per memo.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cost/gpu_cost_model.h"
#include "search/schedule_state.h"

namespace hlsched {

/// Per-Func hashes of what it computes: its definitions, types and region, and (recursively) the
/// contents of its producers and inputs. Unchanged Funcs keep their hash across edits.
std::vector<uint64_t> func_content_hashes(const PipelineDag &dag);

class CostMemo {
public:
  /// The key of the kernel computing `stage` of Root Func `root` in `state`: `content` holds each
  /// Func's content hash (func_content_hashes), `producers` the DAG indices of its producers.
  uint64_t kernel_key(const std::vector<uint64_t> &content,
                      const std::vector<std::vector<int>> &producers, const ScheduleState &state, int root,
                      int stage, const std::string &gpu_name) const;

  /// A kernel's predicted milliseconds (+inf: invalid). The search needs only the total; the
  /// terms of the chosen schedule are computed again for the report. `first_use_of_loaded`, when
  /// given, is set to whether the entry came from load() and was not found before: the search
  /// counts such a hit as a costing, so that its work (and its schedule) does not depend on what
  /// a memo file held.
  const double *find(uint64_t key, bool *first_use_of_loaded = nullptr);
  void insert(uint64_t key, double total_ms);
  size_t size() const { return costs_.size(); }

  /// Loads entries saved by save(); returns how many. A missing, foreign, older, truncated or
  /// damaged file (checked against its checksum) loads nothing.
  size_t load(const std::string &path);
  /// Replaces the file atomically; false (and the old file kept) when it cannot be written.
  bool save(const std::string &path) const;

private:
  struct Entry {
    double total_ms;
    bool loaded_unused;  ///< read by load() and not found since
  };
  std::unordered_map<uint64_t, Entry> costs_;
};

}  // namespace hlsched
