#pragma once
// Private helpers for the LSP from_json/to_json functions: read a field with a
// type check, and make every failure an InvalidParamsError naming the field path.

#include "hlsched/protocol/errors.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace hlsched::protocol::fields {

using nlohmann::json;

template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};
template <class T> struct IsStringMap : std::false_type {};
template <class T> struct IsStringMap<std::map<std::string, T>> : std::true_type {};

[[noreturn]] inline void wrong_type(const char* expected, const json& value) {
  throw InvalidParamsError("", std::string("expected ") + expected + ", got " + value.type_name());
}

inline void require_object(const json& value) {
  if (!value.is_object()) wrong_type("object", value);
}

template <class Integer>
Integer read_integer(const json& value, const char* expected) {
  if (value.is_number_unsigned()) {
    auto n = value.get<std::uint64_t>();
    if (n <= static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) return static_cast<Integer>(n);
    throw InvalidParamsError("", std::string("expected ") + expected + ", got out-of-range " + value.dump());
  }
  if (value.is_number_integer()) {
    auto n = value.get<std::int64_t>();
    if (n >= static_cast<std::int64_t>(std::numeric_limits<Integer>::min()) &&
        n <= static_cast<std::int64_t>(std::numeric_limits<Integer>::max())) {
      return static_cast<Integer>(n);
    }
    throw InvalidParamsError("", std::string("expected ") + expected + ", got out-of-range " + value.dump());
  }
  wrong_type(expected, value);
}

// Decodes `value` into `out`: built-in checks for scalars and containers, the
// type's own from_json (found by ADL) for LSP structs.
template <class T>
void read_value(const json& value, T& out) {
  if constexpr (std::is_same_v<T, json>) {
    out = value;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) wrong_type("string", value);
    out = value.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) wrong_type("boolean", value);
    out = value.get<bool>();
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    out = read_integer<std::int32_t>(value, "integer");
  } else if constexpr (std::is_same_v<T, std::uint32_t>) {
    out = read_integer<std::uint32_t>(value, "non-negative integer");
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    out = read_integer<std::int64_t>(value, "integer");
  } else if constexpr (IsVector<T>::value) {
    if (!value.is_array()) wrong_type("array", value);
    out.clear();
    for (std::size_t i = 0; i < value.size(); ++i) {
      try {
        read_value(value[i], out.emplace_back());
      } catch (InvalidParamsError& e) {
        e.prepend_field("[" + std::to_string(i) + "]");
        throw;
      }
    }
  } else if constexpr (IsStringMap<T>::value) {
    require_object(value);
    out.clear();
    for (const auto& [key, element] : value.items()) {
      try {
        read_value(element, out[key]);
      } catch (InvalidParamsError& e) {
        e.prepend_field(key);
        throw;
      }
    }
  } else {
    from_json(value, out);
  }
}

// Required member `key` of `object`.
template <class T>
void read(const json& object, const char* key, T& out) {
  auto it = object.find(key);
  if (it == object.end()) throw InvalidParamsError(key, "missing required field");
  try {
    read_value(*it, out);
  } catch (InvalidParamsError& e) {
    e.prepend_field(key);
    throw;
  }
}

// Optional member: absent or null leaves `out` empty.
template <class T>
void read_optional(const json& object, const char* key, std::optional<T>& out) {
  out.reset();
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return;
  try {
    read_value(*it, out.emplace());
  } catch (InvalidParamsError& e) {
    e.prepend_field(key);
    throw;
  }
}

// Optional member with a default when absent or null.
template <class T>
void read_or(const json& object, const char* key, T& out, T fallback) {
  std::optional<T> value;
  read_optional(object, key, value);
  out = value ? std::move(*value) : std::move(fallback);
}

template <class T>
void write_optional(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

}  // namespace hlsched::protocol::fields
