// The previous search's schedule, kept so that the next search of an edited pipeline (the
// daemon's next edit) starts from it: Funcs whose own definition did not change keep their
// decision, and only the changed Funcs and their neighbours are searched again.
//
// Funcs are matched by name and by a hash of what they compute themselves (definitions, types,
// region), not of their producers: editing one stage does not disturb the decisions of the
// stages downstream of it, although their content hashes (the cost memo's keys) change.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "search/schedule_state.h"

namespace hlsched {

/// Per Func: a hash of its own definitions, types, region and output flag.
std::vector<uint64_t> func_local_hashes(const PipelineDag &dag);

class WarmStart {
public:
  /// Records the decisions of a complete state, for the search `options_key` describes (a
  /// warm start is used only by a search with the same options).
  static WarmStart from_state(const PipelineDag &dag, const ScheduleState &state, uint64_t options_key);

  /// The previous decisions that still apply to `dag`: a partial state in which every matched
  /// Func is decided (nothing else is), or nothing when the options differ.
  struct Match {
    ScheduleState state;
    int matched = 0;
  };
  Match match(const PipelineDag &dag, uint64_t options_key) const;

  bool empty() const { return entries_.empty(); }

  /// A small text file next to the cost memo, ending with a checksum line. load() returns false
  /// for a missing, foreign, older, truncated or damaged file (and leaves the warm start empty);
  /// save() replaces the file atomically and returns false (the old file kept) when it cannot.
  bool load(const std::string &path);
  bool save(const std::string &path) const;

  /// The same text as a string (datasets keep each sample's decisions this way, so that a
  /// schedule can be re-featurized later: from_text() then match() rebuilds its state).
  std::string to_text() const;
  bool from_text(const std::string &text);

private:
  bool read(std::istream &in);
  void write(std::ostream &out) const;

  struct Entry {
    uint64_t local_hash = 0;
    FuncDecision decision;
    std::string kernel_root;  ///< Block/Thread: the Root Func's name (indices change with edits)
    std::string computed_with;  ///< Root: the sibling's name (FuncDecision::computed_with), or empty
  };
  std::map<std::string, Entry> entries_;  ///< by Func name
  uint64_t options_key_ = 0;
};

}  // namespace hlsched
