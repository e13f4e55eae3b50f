// A directory of compiled artefacts (NVRTC's cubins, ...) keyed by a SHA-256
// digest, safe to share between processes. Plain C++ (POSIX files), no CUDA,
// so the tests exercise it on any machine (ember._C._jit_testing).
//
// - One file per key: <dir>/<first 2 hex digits>/<64 hex digits>.bin.
// - Format (little-endian): "EMBERKC\0" magic, u32 format version, u32 zero,
//   the 32-byte key digest, u64 payload length, the payload's 32-byte SHA-256,
//   then the payload. load() accepts a file only when every field checks out;
//   a truncated, corrupt or foreign file is a miss (Status says which), and
//   the caller's store() replaces it.
// - store() writes a temporary file beside the entry (its name unique per
//   process and call), then rename()s it over the entry: rename is atomic, so
//   a reader sees the old file or the new one, never a mix. Several processes
//   storing one key at once each rename a complete file; the last one wins
//   and every one of them is valid. No lock is taken (two processes may both
//   compile the same kernel once; neither can read a half-written file).
// - Nothing is ever evicted; delete the directory to empty the cache. A
//   directory that cannot be created or written makes store() return false:
//   the caller keeps its result in memory and goes on.
#pragma once

#include <string>
#include <string_view>

#include "runtime/sha256.hpp"

namespace ember {

class DiskCache {
 public:
  enum class Status { Hit, Miss, Corrupt };
  struct Loaded {
    Status status = Status::Miss;
    std::string payload;  // the entry's bytes on Hit
    std::string reason;   // why a Corrupt entry was refused
  };

  // `dir` empty: a disabled cache (every load misses, store does nothing).
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

  Loaded load(const Digest& key) const;
  // False (and nothing left behind) when the entry could not be written.
  bool store(const Digest& key, std::string_view payload) const;
  // Where the entry of `key` lives.
  std::string path(const Digest& key) const;
  const std::string& dir() const noexcept { return dir_; }

  static constexpr size_t kHeaderSize = 88;
  static constexpr uint32_t kFormatVersion = 1;

 private:
  std::string dir_;
};

// ember's cache root: $EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember, else
// ~/.cache/ember. Compiled kernels live in <root>/kernels, extensions in
// <root>/extensions.
std::string cache_root();

// mkdir -p; false when a component cannot be created.
bool make_dirs(const std::string& dir);

}  // namespace ember
