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

/// The file's text, decompressed through the zstd or xz tool when its name ends in .zst or .xz
/// (datasets, runner results kept in the repository). Throws std::invalid_argument when it
/// cannot be read, std::runtime_error when it does not decompress.
std::string read_maybe_compressed_text(const std::filesystem::path &path);

}  // namespace hlsched::server
