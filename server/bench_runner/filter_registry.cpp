#include "filter_registry.h"

namespace hlsched::bench {
namespace {

// Constructed on first use: registration runs from other files' static initializers, in an
// order we do not control.
std::vector<RegisteredFilter> &registry() {
  static std::vector<RegisteredFilter> filters;
  return filters;
}

}  // namespace

const std::vector<RegisteredFilter> &registered_filters() { return registry(); }

const RegisteredFilter *find_filter(const std::string &name) {
  for (const auto &f : registry())
    if (name == f.metadata->name) return &f;
  return nullptr;
}

}  // namespace hlsched::bench

extern "C" void halide_register_argv_and_metadata(int (*filter_argv_call)(void **),
                                                  const halide_filter_metadata_t *filter_metadata,
                                                  const char *const * /*extra_key_value_pairs*/) {
  hlsched::bench::registry().push_back({filter_argv_call, filter_metadata});
}
