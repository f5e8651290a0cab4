#include "sample_stats.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace hlsched::bench {
namespace {

double percentile(const std::vector<double> &sorted, double p) {
  const double position = p * double(sorted.size() - 1);
  const size_t below = size_t(position);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - double(below));
}

}  // namespace

TimingSummary summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("no samples to summarize");
  std::sort(samples.begin(), samples.end());
  TimingSummary s;
  s.count = int(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile(samples, 0.5);
  s.p10 = percentile(samples, 0.1);
  s.p90 = percentile(samples, 0.9);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(samples.size());
  return s;
}

}  // namespace hlsched::bench
