// Text files of lines compressed with zstd (datasets: one JSON record per line, `.jsonl.zst`).
// Files that do not end in ".zst" are read and written as plain text, so small test files and
// hand-made ones work too. The zstd command-line tool reads and writes the same files
// (`zstd -dc data.jsonl.zst | head`).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hlsched::dataset {

/// Calls `on_line` for every line of the file (without its '\n'; empty lines skipped). Throws
/// std::runtime_error for a missing, unreadable or corrupt file.
void read_lines(const std::filesystem::path &path, const std::function<void(const std::string &)> &on_line);

/// The whole file's text: decompressed when the name ends in ".zst" (as read_lines does) or ".xz"
/// (through the xz tool: runner results kept in the repository, `*.results.json.xz`), else as it
/// is. Throws std::invalid_argument for a missing or unreadable file, std::runtime_error for one
/// that does not decompress.
std::string read_text(const std::filesystem::path &path);

/// Writes the lines, each followed by '\n', compressed when the name ends in ".zst" (level 19:
/// datasets are written once and read many times). Replaces the file only once all is written.
void write_lines(const std::filesystem::path &path, const std::vector<std::string> &lines);

}  // namespace hlsched::dataset
