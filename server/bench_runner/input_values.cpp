#include "input_values.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hlsched::bench {
namespace {

// SplitMix64's finalizer: a fast, well-mixed hash of a 64-bit counter.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t fnv1a(const std::string &text, uint64_t hash) {
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

template <typename T>
void fill_range(T *data, uint64_t begin, uint64_t end, ValueRange range, uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    const double scale = (range.hi - range.lo) / double(1ULL << 53);
    for (uint64_t i = begin; i < end; i++) data[i] = T(range.lo + double(element_hash(seed, i) >> 11) * scale);
  } else {
    const auto lo = static_cast<int64_t>(std::ceil(range.lo)), hi = static_cast<int64_t>(std::floor(range.hi));
    if (hi < lo) throw std::invalid_argument("empty integer value range");
    const uint64_t span = uint64_t(hi - lo) + 1;  // 0 when the range is all of uint64 (not used)
    for (uint64_t i = begin; i < end; i++) data[i] = T(lo + int64_t(span ? element_hash(seed, i) % span : element_hash(seed, i)));
  }
}

template <typename T>
void fill_typed(void *host, uint64_t count, ValueRange range, uint64_t seed, unsigned threads) {
  T *data = static_cast<T *>(host);
  const uint64_t per_thread = (count + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; t++) {
    const uint64_t begin = std::min<uint64_t>(count, t * per_thread), end = std::min<uint64_t>(count, begin + per_thread);
    if (begin < end) workers.emplace_back([=] { fill_range(data, begin, end, range, seed); });
  }
  fill_range(data, 0, std::min<uint64_t>(count, per_thread), range, seed);
  for (auto &w : workers) w.join();
}

}  // namespace

uint64_t element_hash(uint64_t seed, uint64_t index) { return mix(seed + 0x9e3779b97f4a7c15ULL * (index + 1)); }

uint64_t input_seed(const std::string &app, const std::string &argument, int set_index) {
  return mix(fnv1a(argument, fnv1a("/", fnv1a(app, 0xcbf29ce484222325ULL))) + uint64_t(set_index));
}

ValueRange default_value_range(halide_type_t type) {
  if (type.code == halide_type_float) return {0.0, 1.0};
  if (type.code == halide_type_uint && type.bits == 1) return {0, 1};
  if (type.bits <= 16) {
    if (type.code == halide_type_uint) return {0, double((1u << type.bits) - 1)};
    return {-double(1u << (type.bits - 1)), double((1u << (type.bits - 1)) - 1)};
  }
  return {0, 1023};
}

void fill_deterministic(Halide::Runtime::Buffer<void> &buffer, ValueRange range, uint64_t seed, unsigned threads) {
  const halide_type_t t = buffer.type();
  const uint64_t n = buffer.number_of_elements();
  void *host = buffer.data();
  threads = std::max(1u, std::min<unsigned>(threads, unsigned(n / 65536 + 1)));
  if (t.code == halide_type_float && t.bits == 32) return fill_typed<float>(host, n, range, seed, threads);
  if (t.code == halide_type_float && t.bits == 64) return fill_typed<double>(host, n, range, seed, threads);
  if (t.code == halide_type_uint && (t.bits == 1 || t.bits == 8)) return fill_typed<uint8_t>(host, n, range, seed, threads);
  if (t.code == halide_type_uint && t.bits == 16) return fill_typed<uint16_t>(host, n, range, seed, threads);
  if (t.code == halide_type_uint && t.bits == 32) return fill_typed<uint32_t>(host, n, range, seed, threads);
  if (t.code == halide_type_uint && t.bits == 64) return fill_typed<uint64_t>(host, n, range, seed, threads);
  if (t.code == halide_type_int && t.bits == 8) return fill_typed<int8_t>(host, n, range, seed, threads);
  if (t.code == halide_type_int && t.bits == 16) return fill_typed<int16_t>(host, n, range, seed, threads);
  if (t.code == halide_type_int && t.bits == 32) return fill_typed<int32_t>(host, n, range, seed, threads);
  if (t.code == halide_type_int && t.bits == 64) return fill_typed<int64_t>(host, n, range, seed, threads);
  throw std::invalid_argument("cannot generate values of type code " + std::to_string(t.code) + " with " +
                              std::to_string(t.bits) + " bits");
}

}  // namespace hlsched::bench
