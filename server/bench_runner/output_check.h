// Whether two variants of one pipeline computed the same output: integers must match exactly;
// floats within a tolerance (schedules reorder arithmetic, and the GPU contracts a*b+c into fused
// multiply-adds differently per schedule). NaN equals NaN (both variants left a value undefined
// the same way), a NaN against a number is a mismatch.
#pragma once

#include <HalideBuffer.h>

#include <cstdint>
#include <string>

namespace hlsched::bench {

struct FloatTolerance {
  double relative = 1e-3;                 ///< of |reference element|
  double absolute_of_max = 1e-4;          ///< of max |reference element| (values near zero)
};

struct OutputComparison {
  bool ok = true;
  std::string rule;                 ///< "exact" or the float rule, for the report
  int64_t elements = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;      ///< dense element index, -1 when none
  double max_abs_diff = 0;
  double relative_l2_error = 0;     ///< ||a - b|| / ||b|| (floats; 0 for exact matches)
};

/// Both buffers dense on the host, same type and number of elements (else std::invalid_argument).
OutputComparison compare_outputs(const Halide::Runtime::Buffer<void> &actual,
                                 const Halide::Runtime::Buffer<void> &reference, FloatTolerance tolerance = {});

}  // namespace hlsched::bench
