#include "hlsched/engine/gpu_profile.h"

#include <stdexcept>

#include "gpu/profiles/profiles.h"

namespace hlsched {

const std::vector<GpuProfile> &gpu_profiles() {
  static const std::vector<GpuProfile> all = {profiles::h200(), profiles::a100(), profiles::rtx4090(),
                                              profiles::v100()};
  return all;
}

const GpuProfile &find_gpu_profile(const std::string &name) {
  std::string known;
  for (const GpuProfile &p : gpu_profiles()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown GPU profile '" + name + "' (known: " + known + ")");
}

}  // namespace hlsched
