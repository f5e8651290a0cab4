#include "loader/cache_artifact.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

namespace hlsched::cache {
namespace {

namespace fs = std::filesystem;

// Bump when the seal's layout changes: seals of another version never match.
constexpr const char *kSealFormat = "hlsched-artifact-seal-v1";

fs::path seal_path(const fs::path &artifact) { return artifact.string() + ".sum"; }

struct Digest {
  std::uint64_t size = 0;
  std::uint64_t hash = 0;
};

// Size and XXH3-64 of a file's contents; false when it cannot be read to the end.
bool digest_of(const fs::path &file, Digest &digest) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  XXH3_state_t *state = XXH3_createState();
  if (!state) {
    ::close(fd);
    return false;
  }
  XXH3_64bits_reset(state);
  std::vector<char> buffer(1 << 20);
  digest.size = 0;
  bool ok = true;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    XXH3_64bits_update(state, buffer.data(), static_cast<std::size_t>(n));
    digest.size += static_cast<std::uint64_t>(n);
  }
  digest.hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  ::close(fd);
  return ok;
}

std::string seal_text(const Digest &digest) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(digest.hash));
  return std::string(kSealFormat) + " " + std::to_string(digest.size) + " " + hash + "\n";
}

bool read_seal(const fs::path &artifact, std::string &text) {
  std::ifstream in(seal_path(artifact), std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return text.size() < 256;  // a seal is one short line; anything else is not one
}

// What identifies one version of a published artifact: its own and its seal's inode, size and
// change time (a rename, a write or a truncation changes at least one of them).
using Identity = std::tuple<std::string, dev_t, ino_t, off_t, long, long, ino_t, long, long>;

bool identity_of(const fs::path &artifact, Identity &identity) {
  struct stat file {}, seal {};
  if (::stat(artifact.c_str(), &file) != 0 || ::stat(seal_path(artifact).c_str(), &seal) != 0) return false;
  identity = Identity{artifact.string(), file.st_dev, file.st_ino, file.st_size, file.st_ctim.tv_sec,
                      file.st_ctim.tv_nsec, seal.st_ino, seal.st_ctim.tv_sec, seal.st_ctim.tv_nsec};
  return true;
}

std::mutex verified_mutex;
std::set<Identity> verified;  // versions already checked by this process

bool write_all(int fd, const std::string &text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

fs::path temporary_name(const fs::path &artifact) {
  static std::atomic<unsigned> counter{0};
  return artifact.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

bool verify(const fs::path &artifact) {
  Identity before;
  if (!identity_of(artifact, before)) return false;
  {
    std::lock_guard<std::mutex> lock(verified_mutex);
    if (verified.count(before)) return true;
  }
  std::string seal;
  Digest digest;
  if (!read_seal(artifact, seal) || !digest_of(artifact, digest) || seal != seal_text(digest)) return false;
  // Remember it only if nothing was replaced while we read.
  Identity after;
  if (!identity_of(artifact, after) || after != before) return false;
  std::lock_guard<std::mutex> lock(verified_mutex);
  verified.insert(before);
  return true;
}

bool publish(const fs::path &temporary, const fs::path &artifact, std::string &error) {
  std::error_code ec;
  const fs::path seal = seal_path(artifact);
  const fs::path seal_temporary = temporary_name(seal);
  const auto fail = [&](const std::string &why) {
    error = why;
    fs::remove(temporary, ec);
    fs::remove(seal_temporary, ec);
    return false;
  };
  Digest digest;
  if (!digest_of(temporary, digest)) return fail("cannot read back " + temporary.string());
  const int fd = ::open(seal_temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot write " + seal_temporary.string() + ": " + std::strerror(errno));
  const bool written = write_all(fd, seal_text(digest));
  const int write_errno = errno;
  if (::close(fd) != 0 || !written)
    return fail("cannot write " + seal_temporary.string() + ": " + std::strerror(written ? errno : write_errno));
  // The artifact first, then its seal: a reader in between sees a mismatch (a miss), never a
  // seal that vouches for a file not yet in place.
  fs::rename(temporary, artifact, ec);
  if (ec) return fail("cannot store " + artifact.string() + ": " + ec.message());
  fs::rename(seal_temporary, seal, ec);
  if (ec) {
    const std::string why = "cannot store " + seal.string() + ": " + ec.message();
    fs::remove(artifact, ec);  // unsealed: would only ever be a miss
    return fail(why);
  }
  return true;
}

void discard(const fs::path &artifact) {
  std::error_code ec;
  fs::remove(seal_path(artifact), ec);
  fs::remove(artifact, ec);
}

ArtifactLock::ArtifactLock(const fs::path &artifact, const std::atomic<bool> *cancel) {
  const std::string path = artifact.string() + ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return;
  // Non-blocking attempts, so that a cancelled build stops waiting (the holder may be compiling
  // for minutes).
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
      held_ = true;
      return;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) return;
    if (cancel && cancel->load()) {
      cancelled_ = true;
      return;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

ArtifactLock::~ArtifactLock() {
  if (fd_ >= 0) ::close(fd_);  // also releases the lock
}

}  // namespace hlsched::cache
