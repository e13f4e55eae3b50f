// SHA-256 (FIPS 180-4), for the keys and checksums of ember's on-disk caches
// (runtime/disk_cache.hpp): a collision would load the wrong kernel, so the
// key is a cryptographic digest, not a fast hash. Plain C++, no CUDA.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ember {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  // Appends bytes to the message.
  Sha256& update(const void* data, size_t n);
  Sha256& update(std::string_view s) { return update(s.data(), s.size()); }
  // Appends the length, then the bytes: "ab"+"c" and "a"+"bc" differ.
  Sha256& update_field(std::string_view s);
  // The digest; the object must not be updated afterwards.
  Digest finish();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes
};

Digest sha256(std::string_view s);
// 64 lowercase hex digits.
std::string hex(const Digest& d);

}  // namespace ember
