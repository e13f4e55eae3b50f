// From Philox words to values, written once for the CPU loops and the CUDA
// kernels so that a seed gives the same bits on both.
//
// Bit-identical results need the same floating-point operations in the same
// order on both sides: every operation here is one correctly rounded IEEE
// operation (the *_rn intrinsics on the device, which nvcc never contracts;
// plain operators on the host), products that feed a sum are written as
// explicit fused multiply-adds, and log/sin/cos are ember's own polynomials
// (libm and CUDA's math library differ in the last bit). Accuracy: a few ulp,
// far below what any statistical test of the distributions can see.
//
// Samplers turn one Philox block (4 words) into E values:
//   Uniform<D>   E = 4 (D <= 24 bits, float) or 2 (D = 53, double): k * 2^-D
//   Normal<Acc>  Box-Muller pairs: E = 4 (float) or 2 (double)
//   Bits32/64    raw words for integer ranges: E = 4 / 2
// Maps turn a sampler value and the element's logical index into the output.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ops/random/philox.hpp"
#include "tensor/half.hpp"

namespace ember::rnd {

// ---- one rounding per operation, on both sides ----------------------------------

EMBER_HD_INLINE float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
EMBER_HD_INLINE double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
EMBER_HD_INLINE float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
EMBER_HD_INLINE double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
EMBER_HD_INLINE float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
EMBER_HD_INLINE double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
EMBER_HD_INLINE float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
EMBER_HD_INLINE double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
EMBER_HD_INLINE float sqrt_(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
EMBER_HD_INLINE double sqrt_(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
EMBER_HD_INLINE float fma_(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
EMBER_HD_INLINE double fma_(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// Bit casts: detail::f32_bits / f32_from_bits (tensor/half.hpp). Conversions
// between int and float are quarter-rate on the GPU: the float paths below build
// floats from bits instead.
using detail::f32_bits;
using detail::f32_from_bits;

// ---- uniform bits ------------------------------------------------------------------

// k * 2^-D for the top D bits of w: exactly representable in a type with D
// significand bits, in [0, 1).
template <int D>
EMBER_HD_INLINE float uniform_float(uint32_t w) {
  static_assert(D <= 24, "float holds 24 bits");
  return static_cast<float>(w >> (32 - D)) * (1.0f / static_cast<float>(1u << D));
}
EMBER_HD_INLINE double uniform_double(uint32_t hi, uint32_t lo) {
  const uint64_t bits = ((static_cast<uint64_t>(hi) << 32) | lo) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);  // 2^-53
}

// ---- log, for x in (0, 1] ----------------------------------------------------------
// x = 2^k m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m-1)/(m+1),
// |s| <= 0.1716, by its odd series in s (Horner in z = s^2).

EMBER_HD_INLINE float log_(float x) {
  uint32_t bits = f32_bits(x);
  uint32_t e = (bits >> 23) & 0xFFu;          // biased exponent
  bits = (bits & 0x007FFFFFu) | 0x3F800000u;  // m in [1, 2)
  if (bits > 0x3FB504F3u) {                   // m > sqrt(2): halve it
    bits -= 0x00800000u;
    ++e;
  }
  const float m = f32_from_bits(bits);
  // k = e - 127 as a float, exactly: (2^23 + e) - (2^23 + 127).
  const float k = sub(f32_from_bits(0x4B000000u | e), 8388735.0f);
  const float s = div(sub(m, 1.0f), add(m, 1.0f));
  const float z = mul(s, s);
  // z <= 0.0295: the terms after z^4 / 9 are below float's rounding.
  float p = static_cast<float>(1.0 / 9);
  p = fma_(p, z, static_cast<float>(1.0 / 7));
  p = fma_(p, z, static_cast<float>(1.0 / 5));
  p = fma_(p, z, static_cast<float>(1.0 / 3));
  p = fma_(p, z, 1.0f);
  const float t = mul(add(s, s), p);
  return fma_(k, 0.693147180559945309f, t);
}

EMBER_HD_INLINE double log_(double x) {
  uint64_t bits;
#if defined(__CUDA_ARCH__)
  bits = static_cast<uint64_t>(__double_as_longlong(x));
#else
  std::memcpy(&bits, &x, 8);
#endif
  int k = static_cast<int>((bits >> 52) & 0x7FFu) - 1023;
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  if (bits > 0x3FF6A09E667F3BCCull) {  // > sqrt(2)
    bits -= 0x0010000000000000ull;
    ++k;
  }
  double m;
#if defined(__CUDA_ARCH__)
  m = __longlong_as_double(static_cast<long long>(bits));
#else
  std::memcpy(&m, &bits, 8);
#endif
  const double s = div(sub(m, 1.0), add(m, 1.0));
  const double z = mul(s, s);
  double p = 1.0 / 27;
  for (int j = 25; j >= 1; j -= 2) p = fma_(p, z, 1.0 / j);
  const double t = mul(add(s, s), p);
  // k * log(2) in two parts, so that the product is exact for |k| <= 2^11.
  const double hi = fma_(static_cast<double>(k), 6.93147180369123816490e-01, t);
  return fma_(static_cast<double>(k), 1.90821492927058770002e-10, hi);
}

// ---- cos(2 pi u), sin(2 pi u) for u in [0, 1) --------------------------------------
// x = 4u = q + r with q an integer and |r| <= 1/2, exactly; the polynomials
// run on theta = r pi/2 in [-pi/4, pi/4] and q picks the quadrant.

template <typename F>
EMBER_HD_INLINE void sincos_poly(F theta, F& s, F& c);

template <>
EMBER_HD_INLINE void sincos_poly<float>(float th, float& s, float& c) {
  const float t = mul(th, th);
  float ps = static_cast<float>(1.0 / 362880);
  ps = fma_(ps, t, static_cast<float>(-1.0 / 5040));
  ps = fma_(ps, t, static_cast<float>(1.0 / 120));
  ps = fma_(ps, t, static_cast<float>(-1.0 / 6));
  s = fma_(mul(th, t), ps, th);
  float pc = static_cast<float>(-1.0 / 3628800);
  pc = fma_(pc, t, static_cast<float>(1.0 / 40320));
  pc = fma_(pc, t, static_cast<float>(-1.0 / 720));
  pc = fma_(pc, t, static_cast<float>(1.0 / 24));
  pc = fma_(pc, t, -0.5f);
  c = fma_(pc, t, 1.0f);
}

template <>
EMBER_HD_INLINE void sincos_poly<double>(double th, double& s, double& c) {
  const double t = mul(th, th);
  // sin: th + th^3 * sum_{j>=1} (-1)^j t^(j-1) / (2j+1)!
  double ps = 1.0 / 355687428096000.0;  // 1/17!
  ps = fma_(ps, t, -1.0 / 1307674368000.0);
  ps = fma_(ps, t, 1.0 / 6227020800.0);
  ps = fma_(ps, t, -1.0 / 39916800.0);
  ps = fma_(ps, t, 1.0 / 362880.0);
  ps = fma_(ps, t, -1.0 / 5040.0);
  ps = fma_(ps, t, 1.0 / 120.0);
  ps = fma_(ps, t, -1.0 / 6.0);
  s = fma_(mul(th, t), ps, th);
  // cos: 1 + t * sum_{j>=1} (-1)^j t^(j-1) / (2j)!
  double pc = -1.0 / 6402373705728000.0;  // -1/18!
  pc = fma_(pc, t, 1.0 / 20922789888000.0);
  pc = fma_(pc, t, -1.0 / 87178291200.0);
  pc = fma_(pc, t, 1.0 / 479001600.0);
  pc = fma_(pc, t, -1.0 / 3628800.0);
  pc = fma_(pc, t, 1.0 / 40320.0);
  pc = fma_(pc, t, -1.0 / 720.0);
  pc = fma_(pc, t, 1.0 / 24.0);
  pc = fma_(pc, t, -0.5);
  c = fma_(pc, t, 1.0);
}

template <typename F>
EMBER_HD_INLINE void sincos_2pi(F u, F& s, F& c) {
  const F x = mul(u, F(4));
  const F q = static_cast<F>(static_cast<int>(add(x, F(0.5))));  // floor: x >= 0
  const F r = sub(x, q);
  F sp, cp;
  sincos_poly<F>(mul(r, F(1.57079632679489661923)), sp, cp);
  // Quadrant q: (s, c) = (sp, cp), (cp, -sp), (-sp, -cp), (-cp, sp) for q = 0..3,
  // by selects and sign flips, not a branch (q differs from thread to thread).
  const int qi = static_cast<int>(q);
  const bool swap = qi & 1;
  const F s0 = swap ? cp : sp, c0 = swap ? sp : cp;
  s = (qi & 2) ? -s0 : s0;
  c = ((qi + 1) & 2) ? -c0 : c0;
}

// float: x = 4u rounds to the nearest integer q by adding 1.5 * 2^23 (ties to
// even; |r| <= 1/2 either way), and q's low bits are read from the sum's bits.
template <>
EMBER_HD_INLINE void sincos_2pi<float>(float u, float& s, float& c) {
  const float x = mul(u, 4.0f);
  const float t = add(x, 12582912.0f);
  const float q = sub(t, 12582912.0f);
  const float r = sub(x, q);
  float sp, cp;
  sincos_poly<float>(mul(r, 1.57079632679489661923f), sp, cp);
  const uint32_t qi = f32_bits(t);
  const bool swap = qi & 1u;
  const float s0 = swap ? cp : sp, c0 = swap ? sp : cp;
  s = (qi & 2u) ? -s0 : s0;
  c = ((qi + 1u) & 2u) ? -c0 : c0;
}

// ---- samplers ----------------------------------------------------------------------

// D-bit uniforms in [0, 1): one word each (D <= 24) or two (D = 53).
template <int D>
struct Uniform {
  static constexpr int E = D > 24 ? 2 : 4;
  using Acc = std::conditional_t<(D > 24), double, float>;
  EMBER_HD_INLINE void operator()(const philox::Words& w, Acc* out) const {
    if constexpr (D > 24) {
      out[0] = uniform_double(w.w[0], w.w[1]);
      out[1] = uniform_double(w.w[2], w.w[3]);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) out[e] = uniform_float<D>(w.w[e]);
    }
  }
};

// Standard normals by Box-Muller: u1 in (0, 1], u2 in [0, 1);
// (r cos 2 pi u2, r sin 2 pi u2) with r = sqrt(-2 log u1).
template <typename A>
struct Normal {
  using Acc = A;
  static constexpr int E = sizeof(Acc) == 8 ? 2 : 4;
  EMBER_HD_INLINE static void pair(Acc u1, Acc u2, Acc* out) {
    const Acc r = sqrt_(mul(Acc(-2), log_(u1)));
    Acc s, c;
    sincos_2pi(u2, s, c);
    out[0] = mul(r, c);
    out[1] = mul(r, s);
  }
  EMBER_HD_INLINE void operator()(const philox::Words& w, Acc* out) const {
    if constexpr (sizeof(Acc) == 8) {
      pair(sub(1.0, uniform_double(w.w[0], w.w[1])), uniform_double(w.w[2], w.w[3]), out);
    } else {
      // m in [1, 2) from 23 random bits, exactly: u1 = 2 - m in (0, 1], u2 = m - 1 in [0, 1).
      auto unit = [](uint32_t w) { return f32_from_bits(0x3F800000u | (w >> 9)); };
      pair(sub(2.0f, unit(w.w[0])), sub(unit(w.w[1]), 1.0f), out);
      pair(sub(2.0f, unit(w.w[2])), sub(unit(w.w[3]), 1.0f), out + 2);
    }
  }
};

struct Bits32 {
  static constexpr int E = 4;
  using Acc = uint32_t;
  EMBER_HD_INLINE void operator()(const philox::Words& w, uint32_t* out) const {
#pragma unroll
    for (int e = 0; e < 4; ++e) out[e] = w.w[e];
  }
};

struct Bits64 {
  static constexpr int E = 2;
  using Acc = uint64_t;
  EMBER_HD_INLINE void operator()(const philox::Words& w, uint64_t* out) const {
    out[0] = (static_cast<uint64_t>(w.w[0]) << 32) | w.w[1];
    out[1] = (static_cast<uint64_t>(w.w[2]) << 32) | w.w[3];
  }
};

// ---- a tensor walked in logical (row-major) element order -----------------------------

constexpr int kMaxLogicalDims = 16;

// Sizes and byte strides with dims of extent 1 dropped and neighbours that are
// contiguous in C order merged; unlike IterLayout the order of dims is never
// changed, so element i is the i-th element in row-major order.
struct Logical {
  int ndim = 0;  // 0: contiguous (byte stride = item size)
  int64_t size[kMaxLogicalDims];
  int64_t stride[kMaxLogicalDims];  // bytes
  char* data = nullptr;
  int64_t item = 0;

  EMBER_HD_INLINE char* at(int64_t i) const {
    if (ndim == 0) return data + i * item;
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t q = i / size[d];
      off += (i - q * size[d]) * stride[d];
      i = q;
    }
    return data + off;
  }
};

// ---- maps: (sampler value, logical index) -> output element ------------------------

template <typename T>
EMBER_HD_INLINE T cast(float v) { return static_cast<T>(v); }
template <>
EMBER_HD_INLINE Half cast<Half>(float v) { return Half(v); }
template <>
EMBER_HD_INLINE BFloat16 cast<BFloat16>(float v) { return BFloat16(v); }

template <typename T>
EMBER_HD_INLINE float as_float(T v) { return static_cast<float>(v); }

// from + (to - from) * u, in the accumulation type.
template <typename T, typename Acc>
struct UniformMap {
  Acc from, range;
  EMBER_HD_INLINE T operator()(Acc u, int64_t) const {
    return static_cast<T>(fma_(u, range, from));
  }
};
template <typename Acc>
struct UniformMap<Half, Acc> {
  Acc from, range;
  EMBER_HD_INLINE Half operator()(Acc u, int64_t) const { return Half(fma_(u, range, from)); }
};
template <typename Acc>
struct UniformMap<BFloat16, Acc> {
  Acc from, range;
  EMBER_HD_INLINE BFloat16 operator()(Acc u, int64_t) const {
    return BFloat16(fma_(u, range, from));
  }
};

// mean + std * z.
template <typename T, typename Acc>
struct NormalMap {
  Acc mean, std;
  EMBER_HD_INLINE T operator()(Acc z, int64_t) const { return T(fma_(z, std, mean)); }
};

// low + bits % range, in 64-bit two's complement (range = high - low > 0).
template <typename T, typename Bits>
struct RandintMap {
  int64_t low;
  uint64_t range;
  EMBER_HD_INLINE T operator()(Bits b, int64_t) const {
    const int64_t v = static_cast<int64_t>(static_cast<uint64_t>(low) +
                                           static_cast<uint64_t>(b) % range);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      return T(static_cast<float>(v));
    } else {
      return static_cast<T>(v);
    }
  }
};

// -log(1 - u) / lambda, with torch's guard: never exactly 0 (a log of values
// within eps/2 of 1 is taken as -eps/2).
template <typename T, typename Acc>
struct ExponentialMap {
  Acc lambda, half_eps;
  EMBER_HD_INLINE T operator()(Acc u, int64_t) const {
    const Acc x = sub(Acc(1), u);  // (0, 1]
    const Acc l = x >= sub(Acc(1), half_eps) ? -half_eps : log_(x);
    return T(div(-l, lambda));
  }
};

// u < p, p a scalar.
template <typename T, typename Acc>
struct BernoulliMap {
  Acc p;
  EMBER_HD_INLINE T operator()(Acc u, int64_t) const { return T(u < p ? 1 : 0); }
};

// u < p[i], p a floating tensor broadcast to the output.
template <typename T, typename P, typename Acc>
struct BernoulliTensorMap {
  Logical p;
  EMBER_HD_INLINE T operator()(Acc u, int64_t i) const {
    const Acc pi = static_cast<Acc>(static_cast<float>(*reinterpret_cast<const P*>(p.at(i))));
    return T(u < pi ? 1 : 0);
  }
};
template <typename T, typename Acc>
struct BernoulliTensorMap<T, double, Acc> {
  Logical p;
  EMBER_HD_INLINE T operator()(Acc u, int64_t i) const {
    return T(u < *reinterpret_cast<const double*>(p.at(i)) ? 1 : 0);
  }
};

// mean[i] + std[i] * z, mean and std broadcast to the output (of type T).
template <typename T, typename Acc>
struct NormalTensorMap {
  Logical mean, std;
  EMBER_HD_INLINE Acc load(const Logical& l, int64_t i) const {
    if constexpr (sizeof(Acc) == 8) {
      return *reinterpret_cast<const double*>(l.at(i));
    } else {
      return static_cast<float>(*reinterpret_cast<const T*>(l.at(i)));
    }
  }
  EMBER_HD_INLINE T operator()(Acc z, int64_t i) const {
    return T(fma_(z, load(std, i), load(mean, i)));
  }
};

}  // namespace ember::rnd
