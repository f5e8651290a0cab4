// Small integer helpers shared by the schedulers (tile and thread counts).
#pragma once

#include <cstdint>

namespace hlsched {

/// The smallest power of two >= n (1 for n <= 1).
inline int64_t ceil_pow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace hlsched
