#include "dataset/json_file.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace hlsched::dataset {

nlohmann::json read_json_file(const std::string &path, const std::string &what) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the " + what + " " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &e) {
    throw std::invalid_argument(path + " is not JSON: " + e.what());
  }
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ms);
  return text;
}

}  // namespace hlsched::dataset
