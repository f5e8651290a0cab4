// The AOT-compiled pipelines linked into this runner. Each variant's `registration` file (emitted
// by GenGen with -e registration) calls halide_register_argv_and_metadata() from a static
// initializer; this file defines that function and keeps what it is given.
//
// Threading: registration happens before main(); afterwards the registry is read-only.
#pragma once

#include <HalideRuntime.h>

#include <string>
#include <vector>

namespace hlsched::bench {

struct RegisteredFilter {
  /// Calls the pipeline with one pointer per argument, in the order of metadata->arguments
  /// (buffers: halide_buffer_t*; scalars: a pointer to the value). Returns 0 or a Halide error.
  int (*argv_call)(void **arguments) = nullptr;
  const halide_filter_metadata_t *metadata = nullptr;
  std::string name() const { return metadata->name; }
};

const std::vector<RegisteredFilter> &registered_filters();

/// Null when no filter of that name is linked in.
const RegisteredFilter *find_filter(const std::string &name);

}  // namespace hlsched::bench
