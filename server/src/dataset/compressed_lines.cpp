#include "dataset/compressed_lines.h"
#include "util/file_text.h"

#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace hlsched::dataset {
namespace {

namespace fs = std::filesystem;

bool is_zstd(const fs::path &path) { return path.extension() == ".zst"; }

std::string read_file(const fs::path &path) {
  std::optional<std::string> text = server::read_file_text(path);
  if (!text) throw std::runtime_error("cannot read " + path.string());
  return *text;
}

// Streaming decompression: the decompressed size need not be in the frame header, and a file
// may hold several frames (`cat a.zst b.zst` is valid).
std::string decompress(const std::string &compressed, const fs::path &path) {
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::string text;
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  size_t last = 0;
  while (in.pos < in.size) {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(context.get(), &out, &in);
    if (ZSTD_isError(last)) throw std::runtime_error(path.string() + ": corrupt zstd data: " + ZSTD_getErrorName(last));
    text.append(chunk.data(), out.pos);
  }
  while (last != 0) {  // flush what the decoder still holds (0: a frame ended, all flushed)
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(context.get(), &out, &in);
    if (ZSTD_isError(last)) throw std::runtime_error(path.string() + ": corrupt zstd data: " + ZSTD_getErrorName(last));
    text.append(chunk.data(), out.pos);
    if (last != 0 && out.pos < out.size) break;  // no progress possible: input ended mid-frame
  }
  if (last != 0) throw std::runtime_error(path.string() + ": truncated zstd data");
  return text;
}

std::string decompress_with_xz(const fs::path &path) {
  std::string quoted = "'";
  for (char c : path.string()) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string command = "xz -dc -- " + quoted;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run " + command);
  std::string text;
  char buffer[1 << 16];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (pclose(pipe) != 0) throw std::runtime_error("cannot decompress " + path.string());
  return text;
}

std::string compress(const std::string &text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t size = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 19);
  if (ZSTD_isError(size)) throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(size));
  out.resize(size);
  return out;
}

}  // namespace

void read_lines(const fs::path &path, const std::function<void(const std::string &)> &on_line) {
  const std::string raw = read_file(path);
  const std::string text = is_zstd(path) ? decompress(raw, path) : raw;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) on_line(text.substr(start, end - start));
    start = end + 1;
  }
}

std::string read_text(const fs::path &path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw std::invalid_argument("cannot read " + path.string());
  if (path.extension() == ".xz") return decompress_with_xz(path);
  const std::string raw = read_file(path);
  return is_zstd(path) ? decompress(raw, path) : raw;
}

void write_lines(const fs::path &path, const std::vector<std::string> &lines) {
  std::string text;
  for (const auto &line : lines) text += line + "\n";
  const std::string bytes = is_zstd(path) ? compress(text) : text;
  const fs::path temporary = path.string() + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, path);
}

}  // namespace hlsched::dataset
