#include "random_pipeline_model.h"

#include <cstdio>
#include <numeric>

namespace hlsched::server::random_pipeline {

const char *cpp_type(Elem e) {
  switch (e) {
    case Elem::U8: return "uint8_t";
    case Elem::U16: return "uint16_t";
    case Elem::I16: return "int16_t";
    case Elem::I32: return "int32_t";
    case Elem::F32: return "float";
    case Elem::F64: return "double";
  }
  return "?";
}

const char *short_name(Elem e) {
  switch (e) {
    case Elem::U8: return "u8";
    case Elem::U16: return "u16";
    case Elem::I16: return "i16";
    case Elem::I32: return "i32";
    case Elem::F32: return "f32";
    case Elem::F64: return "f64";
  }
  return "?";
}

bool is_float(Elem e) { return e == Elem::F32 || e == Elem::F64; }

const char *var_name(Role r) {
  switch (r) {
    case Role::X: return "x";
    case Role::Y: return "y";
    case Role::C: return "c";
    case Role::I: return "i";
  }
  return "?";
}

ShapeKind kind_of(const Shape &shape) {
  if (shape.empty()) return ShapeKind::Scalar;
  if (shape[0].role == Role::I) return ShapeKind::Table;
  if (shape.size() == 1) return ShapeKind::Profile;
  return ShapeKind::Image;
}

int64_t points_of(const Shape &shape) {
  int64_t n = 1;
  for (const Dim &d : shape) n *= d.extent;
  return n;
}

const Dim *find_role(const Shape &shape, Role role) {
  for (const Dim &d : shape)
    if (d.role == role) return &d;
  return nullptr;
}

std::string args_text(const Shape &shape) {
  std::string out;
  for (size_t d = 0; d < shape.size(); d++) out += (d ? ", " : "") + std::string(var_name(shape[d].role));
  return out;
}

std::string region_text(const Shape &shape) {
  std::string out = "{";
  for (size_t d = 0; d < shape.size(); d++) out += (d ? ", {0, " : "{0, ") + std::to_string(shape[d].extent) + "}";
  return out + "}";
}

std::string extent_text(const Shape &shape) {
  switch (kind_of(shape)) {
    case ShapeKind::Scalar: return "scalar";
    case ShapeKind::Table:
      return std::to_string(shape[0].extent) + " entries" +
             (shape.size() > 1 ? " x " + std::to_string(shape[1].extent) + " rows" : "");
    case ShapeKind::Profile:
      return std::to_string(shape[0].extent) + (shape[0].role == Role::X ? " columns" : " rows");
    case ShapeKind::Image: break;
  }
  std::string out;
  for (size_t d = 0; d < shape.size(); d++) out += (d ? "x" : "") + std::to_string(shape[d].extent);
  return out;
}

std::string str(int64_t v) { return std::to_string(v); }

std::string float_literal(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text + "f";
}

std::string cast_to(Elem to, Elem from, const std::string &e) {
  if (to == from) return e;
  return std::string("cast<") + cpp_type(to) + ">(" + e + ")";
}

// Odd ratios are rounded down to a fraction p/q with small terms: p/q <= to/from keeps
// the result in range, and small constants keep Halide's simplifier away from int32 overflow
// (x * 2160 / 1920 once folded into a constant beyond 2^31 in a partitioned loop).
std::string rescaled(const std::string &v, int64_t from, int64_t to) {
  if (from == to) return v;
  if (to % from == 0) return v + " * " + str(to / from);
  if (from % to == 0) return v + " / " + str(from / to);
  if (to > 16 * from) return v + " * " + str(to / from);
  if (16 * to < from) return v + " / " + str((from + to - 1) / to);
  int64_t p = 0, q = 1;
  for (int64_t qq = 1; qq <= 16; qq++) {
    const int64_t pp = to * qq / from;
    if (pp * q > p * qq) p = pp, q = qq;  // a strictly better approximation from below
  }
  const int64_t g = std::gcd(p, q);
  p /= g, q /= g;
  if (q == 1) return v + " * " + str(p);
  if (p == 1) return v + " / " + str(q);
  return v + " * " + str(p) + " / " + str(q);
}

}  // namespace hlsched::server::random_pipeline
