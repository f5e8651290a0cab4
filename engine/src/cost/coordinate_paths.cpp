#include "cost/coordinate_paths.h"

#include <algorithm>
#include <cmath>

namespace hlsched {

namespace {

// Paths per dimension past this count are not followed (a Func read along many paths).
constexpr size_t kMaxPathsPerDim = 8;

// Coefficients that differ only by rounding compare equal.
double canonical(double coef) { return std::round(coef * 1e9) / 1e9; }

LoopCoefficients nonzero(const std::map<std::string, double> &coefficients) {
  LoopCoefficients out;
  for (const auto &[var, coef] : coefficients)
    if (canonical(coef) != 0) out[var] = canonical(coef);
  return out;
}

LoopCoefficients scaled_sum(const LoopCoefficients &a, const LoopCoefficients &b, double scale) {
  LoopCoefficients out = a;
  for (const auto &[var, coef] : b) out[var] = canonical(out[var] + scale * coef);
  for (auto it = out.begin(); it != out.end();) it = it->second == 0 ? out.erase(it) : std::next(it);
  return out;
}

}  // namespace

void DimPaths::merge(const DimPaths &other) {
  unknown = unknown || other.unknown;
  seen.insert(other.seen.begin(), other.seen.end());
  if (seen.size() > kMaxPathsPerDim) unknown = true;
  if (unknown) seen.clear();
}

std::vector<DimPaths> identity_paths(const std::vector<std::string> &args) {
  std::vector<DimPaths> paths(args.size());
  for (size_t d = 0; d < args.size(); d++) paths[d].seen.insert({{args[d], 1.0}});
  return paths;
}

std::vector<DimPaths> compose_paths(const FuncNode &consumer, bool consumer_is_root,
                                    const std::vector<DimPaths> &consumer_paths, const ProducerAccess &a) {
  std::vector<DimPaths> out(a.region_min.size());
  for (size_t d = 0; d < out.size(); d++) {
    const AffineExpr &lo = a.region_min[d], &hi = a.region_max[d];
    const LoopCoefficients terms = nonzero(lo.coefficients);
    // A window whose size changes with the point is not a translation of one read.
    if (!lo.is_affine || !hi.is_affine || terms != nonzero(hi.coefficients)) {
      out[d].unknown = true;
      continue;
    }
    std::set<LoopCoefficients> sums = {LoopCoefficients{}};
    for (const auto &[var, coef] : terms) {
      std::set<LoopCoefficients> options;
      const auto arg = std::find(consumer.args.begin(), consumer.args.end(), var);
      if (arg == consumer.args.end()) {
        // A reduction loop of the consumer's stage: the kernel's own loop, or one the fused
        // consumer runs whole for each of its points.
        options.insert({{consumer_is_root ? var : consumer.name + ":" + var, 1.0}});
      } else {
        const size_t k = size_t(arg - consumer.args.begin());
        if (k >= consumer_paths.size() || consumer_paths[k].unknown) {
          out[d].unknown = true;
          break;
        }
        options = consumer_paths[k].seen;
      }
      std::set<LoopCoefficients> next;
      for (const LoopCoefficients &s : sums)
        for (const LoopCoefficients &o : options) next.insert(scaled_sum(s, o, coef));
      sums = std::move(next);
      if (sums.size() > kMaxPathsPerDim) {
        out[d].unknown = true;
        break;
      }
    }
    if (!out[d].unknown) out[d].seen = std::move(sums);
  }
  return out;
}

}  // namespace hlsched
