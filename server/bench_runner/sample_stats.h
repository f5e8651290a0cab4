// Summaries of repeated timings, and the policy that decides how many repetitions to take.
#pragma once

#include <vector>

namespace hlsched::bench {

struct TimingSummary {
  int count = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double p10 = 0, p90 = 0;  ///< 10th and 90th percentiles (linear interpolation)
};

/// Throws std::invalid_argument for an empty sample.
TimingSummary summarize(std::vector<double> samples);

/// How many timed repetitions a variant gets: at least `min_repetitions`, then more until
/// `target_seconds` of measured time have accumulated, never more than `max_repetitions`.
/// A variant slower than `target_seconds / min_repetitions` per run therefore gets exactly
/// min_repetitions (slow pipelines are stable; fast ones need many samples).
struct RepetitionPolicy {
  int warmup = 3;
  int min_repetitions = 10;
  int max_repetitions = 500;
  double target_seconds = 0.4;

  bool want_more(int done, double seconds_so_far) const {
    if (done < min_repetitions) return true;
    return done < max_repetitions && seconds_so_far < target_seconds;
  }
};

}  // namespace hlsched::bench
