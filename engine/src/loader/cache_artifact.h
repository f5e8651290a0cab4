// Files of the generator build cache (a generator's .so, the precompiled Halide.h) that survive
// damage and sharing.
//
// A crash, a full disk or another program can leave a cached file truncated or partly
// overwritten; loading such a .so crashes the worker, and the user would be told that their code
// crashed. So every artifact carries a seal: `<file>.sum` holds the file's size and XXH3-64,
// recorded when it was published, and an artifact is used only when it matches its seal. Anything
// else (no seal, a seal of an older format, a different size or hash) is a miss: the artifact is
// discarded and built again.
//
// Sharing: several processes (the daemon, the CLI, a second daemon) may use one cache directory at
// once. Builds of one artifact are serialized by an flock()ed `<file>.lock`; publishing renames
// complete files into place, so a reader sees an old or a new file, never half of one. A reader
// that finds a file and a seal that do not match (a publish in progress, or damage) takes the lock
// and looks again before it discards anything, so it never discards another process's fresh work.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

namespace hlsched::cache {

/// True when `artifact` exists and matches its seal. Verified (path, inode, size, mtime) tuples
/// are remembered for the life of the process: a 130 MB .gch is hashed once, not at every build.
bool verify(const std::filesystem::path &artifact);

/// Seals `temporary` (a complete file) as `artifact` and renames both into place. On failure
/// (full disk, ...) removes `temporary` and any partial seal, leaves `artifact` as it was, and
/// says why in `error`.
bool publish(const std::filesystem::path &temporary, const std::filesystem::path &artifact, std::string &error);

/// Removes `artifact` and its seal (a damaged entry). Call with the artifact's lock held.
void discard(const std::filesystem::path &artifact);

/// A unique name next to `artifact` for writing it before publish().
std::filesystem::path temporary_name(const std::filesystem::path &artifact);

/// An exclusive flock() on `<artifact>.lock` (created if needed), released on destruction.
/// Waits while another thread or process holds it, polling `cancel` every few milliseconds;
/// held() is false when cancelled or when the lock file cannot be created (the caller then works
/// without it: at worst two processes build the same artifact).
class ArtifactLock {
public:
  explicit ArtifactLock(const std::filesystem::path &artifact, const std::atomic<bool> *cancel = nullptr);
  ~ArtifactLock();
  ArtifactLock(const ArtifactLock &) = delete;
  ArtifactLock &operator=(const ArtifactLock &) = delete;
  bool held() const { return held_; }
  bool cancelled() const { return cancelled_; }

private:
  int fd_ = -1;
  bool held_ = false;
  bool cancelled_ = false;
};

}  // namespace hlsched::cache
