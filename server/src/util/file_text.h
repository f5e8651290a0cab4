// Reading a whole file into memory: one helper for every part of the server (each caller says in
// its own words what a missing file means).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace hlsched::server {

/// The file's bytes as they are (binary mode), or nothing when it cannot be opened or is not a
/// regular file (a folder opens as a stream that reads nothing).
std::optional<std::string> read_file_text(const std::filesystem::path &path);

}  // namespace hlsched::server
