#include "argument_spec.h"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace hlsched::bench {
namespace {

double scalar_as_double(const halide_scalar_value_t &v, halide_type_t t) {
  switch (t.code) {
  case halide_type_float: return t.bits == 64 ? v.u.f64 : v.u.f32;
  case halide_type_int:
    return t.bits == 8 ? v.u.i8 : t.bits == 16 ? v.u.i16 : t.bits == 32 ? v.u.i32 : double(v.u.i64);
  case halide_type_uint:
    return t.bits == 1 ? v.u.b : t.bits == 8 ? v.u.u8 : t.bits == 16 ? v.u.u16 : t.bits == 32 ? v.u.u32 : double(v.u.u64);
  default: return 0;
  }
}

bool same_type(halide_type_t a, halide_type_t b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

}  // namespace

int64_t ArgumentSpec::elements() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

int64_t ArgumentSpec::bytes() const { return elements() * ((type.bits + 7) / 8); }

std::string type_name(halide_type_t type) {
  if (type.code == halide_type_uint && type.bits == 1) return "bool";
  const char *code = type.code == halide_type_int     ? "int"
                     : type.code == halide_type_uint  ? "uint"
                     : type.code == halide_type_float ? "float"
                     : type.code == halide_type_bfloat ? "bfloat"
                                                       : "handle";
  return code + std::to_string(type.bits);
}

std::vector<ArgumentSpec> argument_specs(const halide_filter_metadata_t &metadata) {
  std::vector<ArgumentSpec> specs;
  for (int i = 0; i < metadata.num_arguments; i++) {
    const halide_filter_argument_t &arg = metadata.arguments[i];
    ArgumentSpec s;
    s.name = arg.name;
    s.type = arg.type;
    s.dimensions = arg.dimensions;
    switch (arg.kind) {
    case halide_argument_kind_input_scalar: s.kind = ArgumentSpec::Kind::InputScalar; break;
    case halide_argument_kind_input_buffer: s.kind = ArgumentSpec::Kind::InputBuffer; break;
    case halide_argument_kind_output_buffer: s.kind = ArgumentSpec::Kind::OutputBuffer; break;
    default: throw std::runtime_error(std::string(metadata.name) + ": argument '" + s.name + "' has an unknown kind");
    }
    if (s.is_buffer()) {
      for (int d = 0; d < arg.dimensions; d++) {
        const int64_t *min = arg.buffer_estimates ? arg.buffer_estimates[2 * d] : nullptr;
        const int64_t *extent = arg.buffer_estimates ? arg.buffer_estimates[2 * d + 1] : nullptr;
        if (!min || !extent)
          throw std::runtime_error(std::string(metadata.name) + ": buffer '" + s.name + "' has no estimate for dimension " +
                                   std::to_string(d) + " (call set_estimates on it in the generator)");
        s.mins.push_back(*min);
        s.extents.push_back(*extent);
      }
    } else if (arg.type.code == halide_type_handle) {
      s.scalar_source = "zero";  // e.g. a user_context: passed as null
    } else if (arg.scalar_estimate) {
      s.scalar = *arg.scalar_estimate;
      s.scalar_source = "estimate";
    } else if (arg.scalar_def) {
      s.scalar = *arg.scalar_def;
      s.scalar_source = "default";
    } else {
      s.scalar_source = "zero";
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

std::vector<std::string> argument_differences(const std::vector<ArgumentSpec> &a, const std::vector<ArgumentSpec> &b) {
  std::vector<std::string> problems;
  auto find = [](const std::vector<ArgumentSpec> &specs, const std::string &name) -> const ArgumentSpec * {
    for (const auto &s : specs)
      if (s.name == name) return &s;
    return nullptr;
  };
  for (const auto &x : a) {
    const ArgumentSpec *y = find(b, x.name);
    if (!y) {
      problems.push_back("argument '" + x.name + "' is missing");
      continue;
    }
    if (x.kind != y->kind) problems.push_back("argument '" + x.name + "' has another kind");
    if (!same_type(x.type, y->type)) problems.push_back("argument '" + x.name + "' is " + type_name(y->type) + ", not " + type_name(x.type));
    if (x.dimensions != y->dimensions || x.mins != y->mins || x.extents != y->extents)
      problems.push_back("buffer '" + x.name + "' has another shape: " + describe(*y) + " vs " + describe(x));
    if (!x.is_buffer() && std::memcmp(&x.scalar, &y->scalar, sizeof x.scalar) != 0)
      problems.push_back("scalar '" + x.name + "' has another value: " + describe(*y) + " vs " + describe(x));
  }
  for (const auto &y : b)
    if (!find(a, y.name)) problems.push_back("extra argument '" + y.name + "'");
  return problems;
}

std::string describe(const ArgumentSpec &spec) {
  std::ostringstream out;
  out << spec.name << ": " << type_name(spec.type);
  if (spec.is_buffer()) {
    out << (spec.is_output() ? " output " : " input ");
    for (size_t d = 0; d < spec.extents.size(); d++)
      out << (d ? "x" : "") << "[" << spec.mins[d] << "," << spec.mins[d] + spec.extents[d] << ")";
  } else {
    out << " = " << scalar_as_double(spec.scalar, spec.type) << " (" << spec.scalar_source << ")";
  }
  return out.str();
}

}  // namespace hlsched::bench
