#include "cost/warp_lanes.h"

#include <algorithm>
#include <cstdint>

namespace hlsched {

double warp_lanes_touched(const std::vector<double> &active, const std::vector<double> &block, double warp_size) {
  const int64_t b0 = int64_t(block[0]), b1 = int64_t(block[1]), w = std::max<int64_t>(1, int64_t(warp_size));
  const int64_t a0 = std::min(int64_t(active[0]), b0), a1 = std::min(int64_t(active[1]), b1);
  const int64_t a2 = std::min(int64_t(active[2]), int64_t(block[2]));
  if (a0 <= 0 || a1 <= 0 || a2 <= 0) return 0;
  // Threads are numbered x fastest, then y, then z; warps take consecutive numbers. Each active
  // row (a0 threads from the start of a row) marks a run of warps; rows come in increasing order.
  const bool whole_rows = a0 == b0;
  int64_t warps = 0, last = -1;
  for (int64_t z = 0; z < a2; z++)
    for (int64_t y = 0; y < (whole_rows ? 1 : a1); y++) {
      const int64_t first_thread = (z * b1 + y) * b0;
      const int64_t last_thread = first_thread + (whole_rows ? a1 * b0 : a0) - 1;
      const int64_t from = std::max(first_thread / w, last + 1), to = last_thread / w;
      if (to >= from) warps += to - from + 1;
      last = std::max(last, to);
    }
  return double(warps * w);
}

}  // namespace hlsched
