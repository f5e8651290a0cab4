// The bundle's manifest.json, as the runner reads it. `hlsched bench` writes it (see
// server/src/bench/bundle_manifest.cpp for the full format); the runner copies it whole into its
// results so that the report needs only the results file.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hlsched::bench {

/// Inclusive range of the values generated for one input buffer.
struct ValueRange {
  double lo = 0, hi = 1;
};

struct AppEntry {
  std::string name;
  /// Every Func of the pipeline (to attribute kernels to Funcs); may be empty.
  std::vector<std::string> funcs;
  /// Per input buffer name; inputs not listed get the default for their type.
  std::map<std::string, ValueRange> input_ranges;
};

struct VariantEntry {
  std::string function;  ///< the AOT function's name, as registered
  std::string app;
  std::string label;     ///< "manual", "li2018", "hlsched", ...
  bool compiled = true;  ///< false: the builder could not compile it; it is not in the runner
};

struct Manifest {
  nlohmann::json raw;
  std::string target;  ///< Halide target of every variant
  std::vector<AppEntry> apps;
  std::vector<VariantEntry> variants;

  bool uses_cuda() const { return target.find("cuda") != std::string::npos; }
  const AppEntry &app(const std::string &name) const;
  /// The compiled variants of `app`, in manifest order (the first is the reference output).
  std::vector<VariantEntry> compiled_variants(const std::string &app) const;
};

/// Throws std::runtime_error with the path and the problem.
Manifest load_manifest(const std::string &path);

/// Parses a manifest already in memory (also used by tests).
Manifest parse_manifest(const nlohmann::json &json);

}  // namespace hlsched::bench
