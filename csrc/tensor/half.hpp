// float16 and bfloat16 storage types shared by the CPU loops and the CUDA
// kernels: 16 bits of payload, converted through float. Host conversions are
// bit-exact round-to-nearest-even (as numpy and torch do); device code uses the
// hardware conversions of cuda_fp16.h / cuda_bf16.h.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define EMBER_HD __host__ __device__
#define EMBER_HD_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HD
#define EMBER_HD_INLINE inline
#endif

namespace ember {

namespace detail {

EMBER_HD_INLINE uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

EMBER_HD_INLINE float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

// IEEE binary16 <-> binary32, round to nearest even, NaN kept quiet.
EMBER_HD_INLINE float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return f32_from_bits(sign | 0x7F800000u | (man << 13));  // inf / nan
  if (exp == 0) {
    if (man == 0) return f32_from_bits(sign);
    // Subnormal: normalise.
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    man &= 0x3FFu;
    return f32_from_bits(sign | ((112u - e) << 23) | (man << 13));
  }
  return f32_from_bits(sign | ((exp + 112u) << 23) | (man << 13));
}

EMBER_HD_INLINE uint16_t float_to_half_bits(float f) {
  const uint32_t u = f32_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Result is subnormal or zero: shift the implicit-one mantissa into place.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to 0
    const uint32_t exp = abs >> 23;
    const uint32_t man = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // 14..24
    uint32_t r = man >> shift;
    const uint32_t rem = man & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = abs - 0x38000000u;  // rebias exponent 127 -> 15
  const uint32_t rem = r & 0x1FFFu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

EMBER_HD_INLINE uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;
  Half() = default;
  struct from_bits_t {};
  constexpr EMBER_HD Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD_INLINE Half(float f) {
#if defined(__CUDA_ARCH__)
    __half h = __float2half_rn(f);
    x = __half_as_ushort(h);
#else
    x = detail::float_to_half_bits(f);
#endif
  }
  EMBER_HD_INLINE operator float() const {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(x));
#else
    return detail::half_bits_to_float(x);
#endif
  }
};

struct alignas(2) BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  struct from_bits_t {};
  constexpr EMBER_HD BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD_INLINE BFloat16(float f) : x(detail::float_to_bf16_bits(f)) {}
  EMBER_HD_INLINE operator float() const { return detail::f32_from_bits(uint32_t(x) << 16); }
};

}  // namespace ember
