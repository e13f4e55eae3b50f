// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3" (SC 2011), written from the
// published algorithm and constants. A 128-bit counter and a 64-bit key give
// four 32-bit words; there is no state to carry from one call to the next, so
// any thread on any device can compute any part of a stream directly.
//
// One round, with (hi, lo) the halves of a 32 x 32 -> 64-bit product:
//   (hi0, lo0) = M0 * c0,  (hi1, lo1) = M1 * c2
//   c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
// and the key is bumped by the Weyl constants (W0, W1) between rounds.
// Verified against the known-answer vectors of the Random123 distribution
// (tests/test_random.py).
#pragma once

#include <cstdint>

#include "tensor/half.hpp"  // EMBER_HD, EMBER_HD_INLINE

namespace ember::philox {

struct Words {
  uint32_t w[4];
};

constexpr uint32_t kM0 = 0xD2511F53u;
constexpr uint32_t kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kW1 = 0xBB67AE85u;  // sqrt(3) - 1

EMBER_HD_INLINE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  lo = a * b;
  hi = __umulhi(a, b);
#else
  const uint64_t p = static_cast<uint64_t>(a) * b;
  lo = static_cast<uint32_t>(p);
  hi = static_cast<uint32_t>(p >> 32);
#endif
}

// The four words for counter (c0, c1, c2, c3) and key (k0, k1).
EMBER_HD_INLINE Words philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                    uint32_t k0, uint32_t k1) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kM0, c0, hi0, lo0);
    mulhilo(kM1, c2, hi1, lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0;
    const uint32_t n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  return Words{{c0, c1, c2, c3}};
}

// ember's streams: key = the 64-bit seed, counter = (block, 0, 0) with the
// 64-bit block index in the low words. Block b of a stream is the same on
// the CPU and every GPU.
EMBER_HD_INLINE Words block(uint64_t seed, uint64_t index) {
  return philox4x32_10(static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u,
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace ember::philox
