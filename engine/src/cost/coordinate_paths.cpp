#include "cost/coordinate_paths.h"

#include <algorithm>
#include <cctype>
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

// The one argument of `consumer` a clamped index mentions, or nullptr (none, or several).
const std::string *clamped_argument(const FuncNode &consumer, const ProducerAccess &a, size_t d) {
  if (d >= a.points_per_consumer_point.size() || a.points_per_consumer_point[d] <= 0) return nullptr;
  const std::string *found = nullptr;
  for (const std::string &arg : consumer.args) {
    if (!text_mentions(a.region_min[d].text, arg) && !text_mentions(a.region_max[d].text, arg)) continue;
    if (found) return nullptr;
    found = &arg;
  }
  return found;
}

}  // namespace

bool text_mentions(const std::string &text, const std::string &name) {
  auto in_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !in_name(text[at - 1])) && (end == text.size() || !in_name(text[end]))) return true;
  }
  return false;
}

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
    LoopCoefficients terms = nonzero(lo.coefficients);
    const bool affine = lo.is_affine && hi.is_affine;
    if (!affine) {
      const std::string *arg = clamped_argument(consumer, a, d);
      terms = arg ? LoopCoefficients{{*arg, 1.0}} : LoopCoefficients{};
    }
    // A window whose size changes with the point is not a translation of one read.
    if ((!affine && terms.empty()) || (affine && terms != nonzero(hi.coefficients))) {
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
