// Writing a file that other processes may be reading (the search memo and warm start of a
// document, shared by the daemon's workers and the CLI): written under a temporary name and
// renamed into place, so a reader sees the old file or the new one, never half of one. A write
// that fails (a full disk, an unwritable directory) leaves the old file as it was and no
// temporary behind.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

namespace hlsched {

/// Returns false when the new contents could not be written completely (the old file stays).
inline bool replace_file(const std::string &path, std::ios::openmode mode,
                         const std::function<void(std::ostream &)> &write) {
  // One temporary name per process and thread: concurrent writers never share one.
  const std::string temporary = path + ".tmp" + std::to_string(::getpid()) + "." +
                                std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  bool written = false;
  {
    std::ofstream out(temporary, mode | std::ios::trunc);
    if (out) {
      write(out);
      out.flush();
      out.close();
      written = !out.fail();
    }
  }
  std::error_code ec;
  if (written) std::filesystem::rename(temporary, path, ec);
  if (!written || ec) {
    std::filesystem::remove(temporary, ec);
    return false;
  }
  return true;
}

}  // namespace hlsched
