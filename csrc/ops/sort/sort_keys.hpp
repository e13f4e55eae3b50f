// Order-preserving unsigned keys of every dtype, shared by the CPU sort and
// the CUDA kernels around CUB's radix sort (sort.cu): comparing keys as
// unsigned integers orders the values as torch's sort does.
//
// - bool, uint8: the bits themselves;
// - int8..int64: the sign bit flipped;
// - float16, bfloat16, float32, float64 (IEEE bits): negative numbers have
//   every bit inverted, the others the sign bit set; -0.0 maps to +0.0's key
//   (equal, so a stable sort keeps their order, as torch's comparison sort
//   does) and every NaN to the all-ones key: NaN sorts after +inf, NaNs equal.
// - descending: the key inverted (NaN first, equal keys still in input order).
//
// The sort itself therefore only ever sees unsigned keys (radix sort is
// instantiated for uint32 and uint64 keys only: see sort.cu).
#pragma once

#include <cstdint>

#include "tensor/dtype.hpp"
#include "tensor/half.hpp"

namespace ember::ops::sort_keys {

enum class Kind : uint8_t { Unsigned, Signed, Float };

inline Kind kind_of(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return Kind::Unsigned;
    case ScalarType::Float16:
    case ScalarType::BFloat16:
    case ScalarType::Float32:
    case ScalarType::Float64: return Kind::Float;
    default: return Kind::Signed;
  }
}

// Exponent field mask of the IEEE format whose storage is U (bfloat16: 8
// exponent bits in 16; float16: 5).
template <typename U>
EMBER_HD_INLINE U exponent_mask(bool bf16) {
  if (sizeof(U) == 2) return bf16 ? U(0x7F80) : U(0x7C00);
  if (sizeof(U) == 4) return U(0x7F800000u);
  return U(0x7FF0000000000000ull);
}

// The key of one element stored as the bits `b`.
template <typename U>
EMBER_HD_INLINE U key(U b, Kind kind, bool bf16, bool descending) {
  constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
  U k;
  if (kind == Kind::Unsigned) {
    k = b;
  } else if (kind == Kind::Signed) {
    k = U(b ^ sign);
  } else {
    const U em = exponent_mask<U>(bf16);
    const U mag = U(b & U(~sign));
    if ((mag & em) == em && (mag & U(~em)) != 0) {
      k = U(~U(0));  // NaN: above +inf
    } else if (mag == 0) {
      k = sign;  // -0.0 and +0.0
    } else if (b & sign) {
      k = U(~b);
    } else {
      k = U(b | sign);
    }
  }
  return descending ? U(~k) : k;
}

// Whether key k belongs to exactly one bit pattern (every key except a float's
// zero key, shared by -0.0 and +0.0, and its NaN key, shared by every NaN).
template <typename U>
EMBER_HD_INLINE bool key_is_exact(U k, Kind kind, bool descending) {
  if (kind != Kind::Float) return true;
  constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
  if (descending) k = U(~k);
  return k != sign && k != U(~U(0));
}

// The bits whose key is k (key's inverse, where key_is_exact).
template <typename U>
EMBER_HD_INLINE U value_of_key(U k, Kind kind, bool descending) {
  constexpr U sign = U(U(1) << (sizeof(U) * 8 - 1));
  if (descending) k = U(~k);
  if (kind == Kind::Unsigned) return k;
  if (kind == Kind::Signed) return U(k ^ sign);
  return (k & sign) ? U(k ^ sign) : U(~k);
}

// Whether k is the NaN key (ascending keys).
template <typename U>
EMBER_HD_INLINE bool is_nan_key(U k, Kind kind) {
  return kind == Kind::Float && k == U(~U(0));
}

}  // namespace ember::ops::sort_keys
