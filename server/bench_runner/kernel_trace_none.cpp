// KernelTrace for runners built where no CUPTI was found (see kernel_trace.h).
#include "kernel_trace.h"

namespace hlsched::bench {

std::unique_ptr<KernelTrace> KernelTrace::create(const std::string &, std::string &why_not) {
  why_not = "this runner was built without CUPTI (none found on the machine that built the bundle)";
  return nullptr;
}

}  // namespace hlsched::bench
