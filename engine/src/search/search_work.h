// The search's budget counted in work instead of on the clock, so that the same pipeline and
// options give the same schedule on any machine under any load: a wall-clock budget cut short the
// searches of a benchmark bundle built while tests shared the two cores (local_laplacian's pick
// 0.400 ms predicted against 0.365 quiet; docs/PERFORMANCE.md, session thirty-three).
//
// Work is in seconds of the reference machine (the 2-core x86 machine of CI), from a fit of the
// search's time there to what it counts, over the examples, two robustness generators and six
// random pipelines, each model alone (docs/PERFORMANCE.md, session thirty-four): within 0.5-1.6x
// of the measured time. The learned model's costing also runs its network: 1.26x the hand one's.
#pragma once

namespace hlsched {

class SearchWork {
public:
  explicit SearchWork(bool learned_model) : costing_s_(learned_model ? 33e-6 : 26e-6) {}

  /// A kernel cost computed, or read from a memo file for the first time (what a file held must
  /// not change how far the search goes).
  void costed() { seconds_ += costing_s_; }
  /// A kernel cost found again in the memo.
  void found_again() { seconds_ += 0.26e-6; }
  /// A state copied and costed: its decisions, one per Func.
  void state(size_t funcs) { seconds_ += 0.045e-6 * double(funcs); }

  double seconds() const { return seconds_; }
  void reset() { seconds_ = 0; }

private:
  double costing_s_;
  double seconds_ = 0;
};

}  // namespace hlsched
