#include "runtime/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "runtime/errors.hpp"

namespace ember {

namespace {

constexpr char kMagic[8] = {'E', 'M', 'B', 'E', 'R', 'K', 'C', '\0'};

void put_u32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void put_u64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

// The whole file, or false when it cannot be opened or read.
bool read_file(const std::string& path, std::string* out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out->size()) {
    const ssize_t n = ::read(fd, &(*out)[got], out->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out->resize(got);  // a file that shrank while read is caught by the length check
  return true;
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::atomic<uint64_t> g_temp_counter{0};

}  // namespace

std::string DiskCache::path(const Digest& key) const {
  const std::string h = hex(key);
  return dir_ + "/" + h.substr(0, 2) + "/" + h + ".bin";
}

DiskCache::Loaded DiskCache::load(const Digest& key) const {
  Loaded r;
  if (dir_.empty()) return r;
  std::string bytes;
  if (!read_file(path(key), &bytes)) return r;
  auto corrupt = [&](const char* why) {
    r.status = Status::Corrupt;
    r.reason = why;
    return r;
  };
  if (bytes.size() < kHeaderSize) return corrupt("shorter than the header (truncated)");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return corrupt("not an ember cache entry");
  if (get_u32(bytes.data() + 8) != kFormatVersion) return corrupt("another format version");
  if (std::memcmp(bytes.data() + 16, key.data(), 32) != 0) return corrupt("another key");
  const uint64_t length = get_u64(bytes.data() + 48);
  if (length != bytes.size() - kHeaderSize) return corrupt("payload length differs (truncated)");
  const std::string_view payload(bytes.data() + kHeaderSize, length);
  const Digest sum = sha256(payload);
  if (std::memcmp(bytes.data() + 56, sum.data(), 32) != 0) return corrupt("checksum mismatch");
  r.status = Status::Hit;
  r.payload.assign(payload);
  return r;
}

bool DiskCache::store(const Digest& key, std::string_view payload) const {
  if (dir_.empty()) return false;
  const std::string final_path = path(key);
  if (!make_dirs(final_path.substr(0, final_path.rfind('/')))) return false;
  char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, 8);
  put_u32(header + 8, kFormatVersion);
  std::memcpy(header + 16, key.data(), 32);
  put_u64(header + 48, payload.size());
  const Digest sum = sha256(payload);
  std::memcpy(header + 56, sum.data(), 32);

  const std::string temp = detail::str(final_path, ".tmp.", static_cast<long long>(::getpid()), ".",
                                       g_temp_counter.fetch_add(1));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok =
      write_all(fd, header, kHeaderSize) && write_all(fd, payload.data(), payload.size());
  if (::close(fd) != 0 || !ok || ::rename(temp.c_str(), final_path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

std::string cache_root() {
  if (const char* d = std::getenv("EMBER_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ember";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/ember";
}

bool make_dirs(const std::string& dir) {
  if (dir.empty()) return false;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
  const size_t slash = dir.rfind('/');
  if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash))) return false;
  if (::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST) {
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }
  return false;
}

}  // namespace ember
