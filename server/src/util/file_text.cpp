#include "util/file_text.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace hlsched::server {

std::optional<std::string> read_file_text(const std::filesystem::path &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_maybe_compressed_text(const std::filesystem::path &path) {
  const std::string extension = path.extension().string();
  if (extension != ".zst" && extension != ".xz") {
    std::optional<std::string> text = read_file_text(path);
    if (!text) throw std::invalid_argument("cannot read " + path.string());
    return *text;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw std::invalid_argument("cannot read " + path.string());
  std::string quoted = "'";
  for (char c : path.string()) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string command = std::string(extension == ".zst" ? "zstd" : "xz") + " -dc -- " + quoted;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[1 << 16];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (pclose(pipe) != 0) throw std::runtime_error("cannot decompress " + path.string());
  return text;
}

}  // namespace hlsched::server
