// Scalar math shared by the CPU loops and the CUDA kernels: one name per
// function, overloaded for float and double, mapping to the C library on the
// host and to CUDA's math library on the device (full precision, no fast-math
// intrinsics); and integer arithmetic that wraps around instead of
// overflowing (signed overflow is undefined in C++, defined as wrap-around in
// torch and numpy). The complex overloads are in ops/complex_math.hpp, included
// at the end, so every functor header sees them.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "tensor/half.hpp"

namespace ember::ops::m {

#define EMBER_MATH_1(name, fname, dname)                                \
  EMBER_HD_INLINE float name(float x) { return ::fname(x); }            \
  EMBER_HD_INLINE double name(double x) { return ::dname(x); }
#define EMBER_MATH_2(name, fname, dname)                                        \
  EMBER_HD_INLINE float name(float x, float y) { return ::fname(x, y); }        \
  EMBER_HD_INLINE double name(double x, double y) { return ::dname(x, y); }

EMBER_MATH_1(sqrt, sqrtf, sqrt)
EMBER_MATH_1(exp, expf, exp)
EMBER_MATH_1(exp2, exp2f, exp2)
EMBER_MATH_1(expm1, expm1f, expm1)
EMBER_MATH_1(log, logf, log)
EMBER_MATH_1(log2, log2f, log2)
EMBER_MATH_1(log10, log10f, log10)
EMBER_MATH_1(log1p, log1pf, log1p)
EMBER_MATH_1(sin, sinf, sin)
EMBER_MATH_1(cos, cosf, cos)
EMBER_MATH_1(tan, tanf, tan)
EMBER_MATH_1(asin, asinf, asin)
EMBER_MATH_1(acos, acosf, acos)
EMBER_MATH_1(atan, atanf, atan)
EMBER_MATH_1(sinh, sinhf, sinh)
EMBER_MATH_1(cosh, coshf, cosh)
EMBER_MATH_1(tanh, tanhf, tanh)
EMBER_MATH_1(asinh, asinhf, asinh)
EMBER_MATH_1(acosh, acoshf, acosh)
EMBER_MATH_1(atanh, atanhf, atanh)
EMBER_MATH_1(erf, erff, erf)
EMBER_MATH_1(erfc, erfcf, erfc)
EMBER_MATH_1(floor, floorf, floor)
EMBER_MATH_1(ceil, ceilf, ceil)
EMBER_MATH_1(trunc, truncf, trunc)
EMBER_MATH_1(nearbyint, nearbyintf, nearbyint)  // round half to even
EMBER_MATH_1(fabs, fabsf, fabs)
EMBER_MATH_2(pow, powf, pow)
EMBER_MATH_2(fmod, fmodf, fmod)
EMBER_MATH_2(atan2, atan2f, atan2)
EMBER_MATH_2(hypot, hypotf, hypot)
EMBER_MATH_2(fmax, fmaxf, fmax)
EMBER_MATH_2(fmin, fminf, fmin)
EMBER_MATH_2(copysign, copysignf, copysign)

#undef EMBER_MATH_1
#undef EMBER_MATH_2

template <typename T>
EMBER_HD_INLINE bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) {
    return x != x;
  } else {
    return false;
  }
}

EMBER_HD_INLINE bool is_inf(float x) { return ::fabsf(x) == INFINITY; }
EMBER_HD_INLINE bool is_inf(double x) { return ::fabs(x) == static_cast<double>(INFINITY); }

// Wrap-around integer arithmetic (identity for floating types).
template <typename C>
EMBER_HD_INLINE C add(C a, C b) {
  if constexpr (std::is_integral<C>::value) {
    return static_cast<C>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename C>
EMBER_HD_INLINE C sub(C a, C b) {
  if constexpr (std::is_integral<C>::value) {
    return static_cast<C>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}
template <typename C>
EMBER_HD_INLINE C mul(C a, C b) {
  if constexpr (std::is_integral<C>::value) {
    return static_cast<C>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}
template <typename C>
EMBER_HD_INLINE C neg(C a) {
  if constexpr (std::is_integral<C>::value) {
    return static_cast<C>(uint64_t(0) - static_cast<uint64_t>(a));
  } else {
    return -a;
  }
}

}  // namespace ember::ops::m

// The complex overloads (Complex<float>, Complex<double>) of the functions above.
#include "ops/complex_math.hpp"
