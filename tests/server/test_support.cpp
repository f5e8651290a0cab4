#include "test_support.h"

#include <algorithm>
#include <fstream>

#include "hlsched/protocol/text_document.h"
#include <sstream>

namespace hlsched::server::testing {

std::filesystem::path source_path(const std::string &relative) { return std::filesystem::path(HLSCHED_SOURCE_DIR) / relative; }

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::filesystem::path &path, const std::string &text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string apply_edits(const std::string &text, std::vector<hlsched::protocol::lsp::TextEdit> edits) {
  const hlsched::protocol::TextDocument doc(text);
  std::sort(edits.begin(), edits.end(), [](const auto &a, const auto &b) { return b.range.start < a.range.start; });
  std::string out = text;
  for (const auto &e : edits) {
    const std::size_t begin = doc.offset_at(e.range.start), end = doc.offset_at(e.range.end);
    out.replace(begin, end - begin, e.newText);
  }
  return out;
}

std::filesystem::path test_cache_dir() { return HLSCHED_TEST_CACHE_DIR; }

std::filesystem::path scratch_dir(const std::string &name) {
  std::filesystem::path dir = std::filesystem::path(HLSCHED_TEST_SCRATCH_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace hlsched::server::testing
