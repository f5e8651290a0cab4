// Hashing what a search object contains (numbers and names) into 64 bits: XXH64 chained field
// by field. Each user keeps its own seed, so its hashes keep their values (the cost memo saves
// its keys to disk).
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string>

namespace hlsched {

template <uint64_t Seed>
struct ContentHash {
  uint64_t h = Seed;
  void add(uint64_t v) { h = XXH64(&v, sizeof v, h); }
  void add(const std::string &s) { h = XXH64(s.data(), s.size(), h); }
};

}  // namespace hlsched
