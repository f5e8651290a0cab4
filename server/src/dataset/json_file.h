#pragma once
// Small helpers the dataset commands share: reading a JSON file the user named, and printing a
// time in the dataset tools' reports.
#include <string>

#include <nlohmann/json.hpp>

namespace hlsched::dataset {

/// The JSON in `path`; std::invalid_argument naming `what` and the path when it cannot be read
/// or is not JSON.
nlohmann::json read_json_file(const std::string &path, const std::string &what);

/// "0.1234 ms": four significant digits.
std::string format_ms(double ms);

}  // namespace hlsched::dataset
