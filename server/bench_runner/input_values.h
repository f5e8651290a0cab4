// Deterministic input data, generated on the machine that runs the benchmark (so that bundles
// carry no data). Element i of a buffer gets a value that depends only on (seed, i): the same on
// every machine, whatever the number of threads.
#pragma once

#include <HalideBuffer.h>

#include <cstdint>
#include <string>

#include "manifest.h"

namespace hlsched::bench {

/// Floats: [0, 1] (images, weights); 8- and 16-bit integers: their whole range; wider integers:
/// [0, 1023] (values that are often indices or counts); bool: {0, 1}.
ValueRange default_value_range(halide_type_t type);

/// A seed for (app, argument, input set): different sets get different data.
uint64_t input_seed(const std::string &app, const std::string &argument, int set_index);

/// Fills the buffer's host memory (dense, as allocated by Buffer) with uniform values from the
/// inclusive `range`, using up to `threads` threads. Throws std::invalid_argument for types it
/// cannot fill (handles, float16).
void fill_deterministic(Halide::Runtime::Buffer<void> &buffer, ValueRange range, uint64_t seed, unsigned threads);

/// The value of element `index` (exposed for tests): a 64-bit hash of (seed, index).
uint64_t element_hash(uint64_t seed, uint64_t index);

}  // namespace hlsched::bench
