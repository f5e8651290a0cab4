// file:// URIs <-> paths (RFC 8089 as editors use it: percent-encoded UTF-8, no host).
// Threading: pure functions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hlsched::server::lsp {

/// "file:///home/a/my%20gen.cpp" -> "/home/a/my gen.cpp"; nullopt for other schemes
/// ("untitled:", "https:") and for file URIs with a remote host.
std::optional<std::filesystem::path> path_from_uri(const std::string &uri);

/// An absolute path -> "file:///..." with the characters URIs reserve percent-encoded.
std::string uri_from_path(const std::filesystem::path &path);

}  // namespace hlsched::server::lsp
