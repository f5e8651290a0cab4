// Files for tests that write to disk: whole-file reads and writes, names no other run uses, and
// scratch folders removed at the end of a test.
#pragma once

#include <filesystem>
#include <string>

namespace hlsched::testing {

/// The whole file (empty when it cannot be read).
std::string read_text(const std::filesystem::path &path);

/// Replaces the file's contents with `text`.
void write_text(const std::filesystem::path &path, const std::string &text);

/// Different in every process and every call (time, pid, counter): a folder name or a comment
/// that gives a source a cache key never seen before.
std::string unique_tag();

/// A fresh folder `root/<unique tag>`, removed with everything in it when the test ends.
class ScratchDir {
 public:
  explicit ScratchDir(const std::filesystem::path &root);
  ~ScratchDir();
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;

  const std::filesystem::path dir;
};

}  // namespace hlsched::testing
