// Writing a file that other processes may be reading (the search memo and warm start of a
// document, shared by the daemon's workers): written under a temporary name and renamed into
// place, so a reader sees the old file or the new one, never half of one.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

namespace hlsched {

inline void replace_file(const std::string &path, std::ios::openmode mode,
                         const std::function<void(std::ostream &)> &write) {
  // One temporary name per process and thread: concurrent writers never share one.
  const std::string temporary = path + ".tmp" + std::to_string(::getpid()) + "." +
                                std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temporary, mode | std::ios::trunc);
    write(out);
  }
  std::error_code ignored;
  std::filesystem::rename(temporary, path, ignored);
}

}  // namespace hlsched
