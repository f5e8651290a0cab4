#include "output_check.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hlsched::bench {
namespace {

template <typename T>
void compare_exact(const T *a, const T *b, int64_t n, OutputComparison &c) {
  c.rule = "exact";
  for (int64_t i = 0; i < n; i++) {
    if (a[i] == b[i]) continue;
    if (c.first_mismatch < 0) c.first_mismatch = i;
    c.mismatches++;
    c.max_abs_diff = std::max(c.max_abs_diff, std::fabs(double(a[i]) - double(b[i])));
  }
}

template <typename T>
void compare_float(const T *a, const T *b, int64_t n, FloatTolerance tol, OutputComparison &c) {
  double max_ref = 0;
  for (int64_t i = 0; i < n; i++)
    if (std::isfinite(b[i])) max_ref = std::max(max_ref, std::fabs(double(b[i])));
  const double absolute = tol.absolute_of_max * max_ref;
  std::ostringstream rule;
  rule << "|a-b| <= " << tol.relative << "*|b| + " << tol.absolute_of_max << "*max|b|";
  c.rule = rule.str();
  double diff2 = 0, ref2 = 0;
  for (int64_t i = 0; i < n; i++) {
    const double x = a[i], y = b[i];
    bool same;
    if (std::isnan(x) || std::isnan(y)) same = std::isnan(x) && std::isnan(y);
    else if (std::isinf(x) || std::isinf(y)) same = x == y;
    else {
      const double d = std::fabs(x - y);
      c.max_abs_diff = std::max(c.max_abs_diff, d);
      diff2 += d * d;
      ref2 += y * y;
      same = d <= tol.relative * std::fabs(y) + absolute;
    }
    if (!same) {
      if (c.first_mismatch < 0) c.first_mismatch = i;
      c.mismatches++;
    }
  }
  c.relative_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
}

}  // namespace

OutputComparison compare_outputs(const Halide::Runtime::Buffer<void> &actual,
                                 const Halide::Runtime::Buffer<void> &reference, FloatTolerance tolerance) {
  const halide_type_t t = reference.type();
  if (actual.type() != t || actual.number_of_elements() != reference.number_of_elements())
    throw std::invalid_argument("outputs of different types or sizes cannot be compared");
  OutputComparison c;
  const int64_t n = int64_t(reference.number_of_elements());
  c.elements = n;
  const void *a = actual.data(), *b = reference.data();
  if (t.code == halide_type_float && t.bits == 32) compare_float(static_cast<const float *>(a), static_cast<const float *>(b), n, tolerance, c);
  else if (t.code == halide_type_float && t.bits == 64) compare_float(static_cast<const double *>(a), static_cast<const double *>(b), n, tolerance, c);
  else if (t.code == halide_type_int && t.bits == 8) compare_exact(static_cast<const int8_t *>(a), static_cast<const int8_t *>(b), n, c);
  else if (t.code == halide_type_int && t.bits == 16) compare_exact(static_cast<const int16_t *>(a), static_cast<const int16_t *>(b), n, c);
  else if (t.code == halide_type_int && t.bits == 32) compare_exact(static_cast<const int32_t *>(a), static_cast<const int32_t *>(b), n, c);
  else if (t.code == halide_type_int && t.bits == 64) compare_exact(static_cast<const int64_t *>(a), static_cast<const int64_t *>(b), n, c);
  else if (t.code == halide_type_uint && (t.bits == 1 || t.bits == 8)) compare_exact(static_cast<const uint8_t *>(a), static_cast<const uint8_t *>(b), n, c);
  else if (t.code == halide_type_uint && t.bits == 16) compare_exact(static_cast<const uint16_t *>(a), static_cast<const uint16_t *>(b), n, c);
  else if (t.code == halide_type_uint && t.bits == 32) compare_exact(static_cast<const uint32_t *>(a), static_cast<const uint32_t *>(b), n, c);
  else if (t.code == halide_type_uint && t.bits == 64) compare_exact(static_cast<const uint64_t *>(a), static_cast<const uint64_t *>(b), n, c);
  else throw std::invalid_argument("cannot compare outputs of this type");
  c.ok = c.mismatches == 0;
  return c;
}

}  // namespace hlsched::bench
