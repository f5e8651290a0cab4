#include "lsp/uri.h"

#include <cctype>
#include <cstdio>

namespace hlsched::server::lsp {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::filesystem::path> path_from_uri(const std::string &uri) {
  const std::string scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
  std::string rest = uri.substr(scheme.size());
  if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
  if (rest.empty() || rest[0] != '/') return std::nullopt;  // file://host/path: not ours
  const std::size_t query = rest.find_first_of("?#");
  if (query != std::string::npos) rest.resize(query);
  std::string path;
  for (std::size_t i = 0; i < rest.size(); i++) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex_value(rest[i + 1]) >= 0 && hex_value(rest[i + 2]) >= 0) {
      path += static_cast<char>(hex_value(rest[i + 1]) * 16 + hex_value(rest[i + 2]));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  return std::filesystem::path(path).lexically_normal();
}

std::string uri_from_path(const std::filesystem::path &path) {
  std::string out = "file://";
  for (unsigned char c : std::filesystem::absolute(path).lexically_normal().string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      out += escaped;
    }
  }
  return out;
}

}  // namespace hlsched::server::lsp
