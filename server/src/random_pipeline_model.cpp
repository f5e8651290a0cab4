#include "random_pipeline_model.h"

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

}  // namespace hlsched::server::random_pipeline
