// One set of arguments for the variants of an app: every input buffer filled with deterministic
// values and made resident on the device, every output buffer allocated there, every scalar at
// its estimate. The runner keeps several sets and rotates through them when one set would fit in
// the GPU's L2 cache, so that timings do not measure a warm cache.
//
// Buffers are shared by name: every variant of an app has the same arguments (checked before),
// possibly in another order, so argv() builds the pointer array for one variant's metadata.
#pragma once

#include <HalideBuffer.h>

#include <map>
#include <string>
#include <vector>

#include "argument_spec.h"
#include "backend.h"
#include "manifest.h"

namespace hlsched::bench {

class ArgumentSet {
public:
  ArgumentSet(const std::vector<ArgumentSpec> &specs, const AppEntry &app, int set_index, Backend &backend);
  ~ArgumentSet();
  ArgumentSet(const ArgumentSet &) = delete;
  ArgumentSet &operator=(const ArgumentSet &) = delete;

  /// One pointer per argument of `metadata`, in its order (valid while this set lives).
  std::vector<void *> argv(const halide_filter_metadata_t &metadata);

  /// Output buffers by name.
  std::map<std::string, Halide::Runtime::Buffer<void>> &outputs() { return outputs_; }

private:
  Backend &backend_;
  std::map<std::string, Halide::Runtime::Buffer<void>> inputs_, outputs_;
  std::map<std::string, halide_scalar_value_t> scalars_;
};

/// Bytes of all input and output buffers of one set (what one call must at least touch).
int64_t working_set_bytes(const std::vector<ArgumentSpec> &specs);
int64_t input_bytes(const std::vector<ArgumentSpec> &specs);
int64_t output_bytes(const std::vector<ArgumentSpec> &specs);

/// How many sets to rotate through: 1 when one set is at least `rotate_below` bytes, else
/// enough sets to cover `rotate_target` bytes, at most `max_sets`.
int input_set_count(int64_t working_set, int64_t rotate_below, int64_t rotate_target, int max_sets);

}  // namespace hlsched::bench
