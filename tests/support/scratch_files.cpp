#include "scratch_files.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace hlsched::testing {

namespace fs = std::filesystem;

std::string read_text(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path &path, const std::string &text) { std::ofstream(path, std::ios::binary) << text; }

std::string unique_tag() {
  static int counter = 0;
  return std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + "-" +
         std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

ScratchDir::ScratchDir(const fs::path &root) : dir(root / unique_tag()) { fs::create_directories(dir); }

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

}  // namespace hlsched::testing
