// What the runner must pass to a pipeline, read from its Halide metadata: for each argument its
// kind, type, and either the buffer's shape (from the generator's estimates) or the scalar's
// value (its estimate, else its default).
#pragma once

#include <HalideRuntime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hlsched::bench {

struct ArgumentSpec {
  enum class Kind { InputScalar, InputBuffer, OutputBuffer };
  std::string name;
  Kind kind = Kind::InputScalar;
  halide_type_t type;
  int dimensions = 0;
  // Buffers: per dimension (0 innermost), from the estimates.
  std::vector<int64_t> mins, extents;
  // Scalars: the value passed, and where it came from ("estimate", "default" or "zero").
  halide_scalar_value_t scalar{};
  std::string scalar_source;

  bool is_buffer() const { return kind != Kind::InputScalar; }
  bool is_output() const { return kind == Kind::OutputBuffer; }
  int64_t elements() const;
  int64_t bytes() const;  ///< buffers: elements x bytes per element (bool: 1 byte)
};

/// The arguments in metadata order. Throws std::runtime_error naming the argument when a buffer
/// lacks estimates for some dimension, or an argument kind is unknown.
std::vector<ArgumentSpec> argument_specs(const halide_filter_metadata_t &metadata);

/// "uint16", "float32", "bool", ...
std::string type_name(halide_type_t type);

/// Every way in which two variants of one app disagree about their arguments (matched by name:
/// the order is not guaranteed): missing or extra arguments, kind, type, dimensions, shape,
/// scalar value. Empty when they agree.
std::vector<std::string> argument_differences(const std::vector<ArgumentSpec> &a, const std::vector<ArgumentSpec> &b);

/// "input: uint16 [0,1920)x[0,1080)" / "amount: float32 = 1 (estimate)", for listings.
std::string describe(const ArgumentSpec &spec);

}  // namespace hlsched::bench
