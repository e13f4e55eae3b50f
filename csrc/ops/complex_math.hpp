// The complex overloads of ops/math_functions.hpp's scalar math, for
// Complex<float> and Complex<double> on both devices, written with the real
// functions of the math layer (so host and device use the C library and
// CUDA's math library as for real values). The formulas are the textbook
// ones, arranged to avoid needless overflow and cancellation:
//   abs = hypot(re, im)                    arg = atan2(im, re)
//   exp(x+iy) = e^x (cos y + i sin y)      log z = log|z| + i arg z
//   sqrt: Kahan's (principal branch, sign of im kept for -0)
//   sin, cos, sinh, cosh by their part formulas; tanh by Kahan's formula
//   (and its limit for |x| > 22), tan z = -i tanh(iz)
//   pow(z, w) = exp(w log z), with 0^w = 0 for Re w > 0
// Special values (infinities, NaNs) follow the formulas; they may differ from
// C99 Annex G in corner cases (torch's CPU and GPU differ there too).
#pragma once

#include "ops/math_functions.hpp"
#include "tensor/complex.hpp"

namespace ember::ops::m {

template <typename T>
EMBER_HD_INLINE T abs(Complex<T> z) {
  return hypot(z.re, z.im);
}
template <typename T>
EMBER_HD_INLINE T arg(Complex<T> z) {
  return atan2(z.im, z.re);
}
template <typename T>
EMBER_HD_INLINE Complex<T> conj(Complex<T> z) {
  return {z.re, -z.im};
}

template <typename T>
EMBER_HD_INLINE bool is_nan(Complex<T> z) {
  return z.re != z.re || z.im != z.im;
}
template <typename T>
EMBER_HD_INLINE bool is_inf(Complex<T> z) {
  return is_inf(z.re) || is_inf(z.im);
}

template <typename T>
EMBER_HD_INLINE Complex<T> exp(Complex<T> z) {
  const T e = exp(z.re);
  if (z.im == T(0)) return {e, z.im};  // exact for real arguments (and keeps -0)
  return {e * cos(z.im), e * sin(z.im)};
}

template <typename T>
EMBER_HD_INLINE Complex<T> log(Complex<T> z) {
  return {log(abs(z)), arg(z)};
}

template <typename T>
EMBER_HD_INLINE Complex<T> sqrt(Complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
  if (is_inf(z.im)) return {fabs(z.im), z.im};
  const T t = sqrt((fabs(z.re) + abs(z)) * T(0.5));
  if (z.re >= T(0)) return {t, z.im / (T(2) * t)};
  return {fabs(z.im) / (T(2) * t), copysign(t, z.im)};
}

template <typename T>
EMBER_HD_INLINE Complex<T> sinh(Complex<T> z) {
  return {sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)};
}
template <typename T>
EMBER_HD_INLINE Complex<T> cosh(Complex<T> z) {
  return {cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)};
}
template <typename T>
EMBER_HD_INLINE Complex<T> sin(Complex<T> z) {
  return {sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)};
}
template <typename T>
EMBER_HD_INLINE Complex<T> cos(Complex<T> z) {
  return {cos(z.re) * cosh(z.im), -(sin(z.re) * sinh(z.im))};
}

// Kahan's tanh: with t = tan(y), s = sinh(x), b = 1 + t^2, r = sqrt(1 + s^2),
// tanh(x + iy) = (b r s + i t) / (1 + b s^2); for |x| > 22, tanh x is 1 to
// double precision and the imaginary part 4 sin y cos y e^(-2|x|).
template <typename T>
EMBER_HD_INLINE Complex<T> tanh(Complex<T> z) {
  const T x = z.re, y = z.im;
  if (fabs(x) > T(22)) {
    const T e = exp(T(-2) * fabs(x));
    return {copysign(T(1), x), T(4) * sin(y) * cos(y) * e};
  }
  const T t = tan(y), s = sinh(x);
  const T b = T(1) + t * t;
  const T r = sqrt(T(1) + s * s);
  const T d = T(1) + b * s * s;
  return {b * r * s / d, t / d};
}
template <typename T>
EMBER_HD_INLINE Complex<T> tan(Complex<T> z) {
  const Complex<T> w = tanh(Complex<T>(-z.im, z.re));  // tanh(iz)
  return {w.im, -w.re};                                // -i tanh(iz)
}

template <typename T>
EMBER_HD_INLINE Complex<T> pow(Complex<T> a, Complex<T> b) {
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re == T(0) && b.im == T(0)) return {T(1), T(0)};
    if (b.im == T(0) && b.re > T(0)) return {T(0), T(0)};
  }
  return exp(b * log(a));
}

// The remaining functions the complex functors use, from the ones above.
template <typename T>
EMBER_HD_INLINE Complex<T> log2(Complex<T> z) {
  const Complex<T> l = log(z);
  const T k = T(1.44269504088896340736);  // 1 / ln 2
  return {l.re * k, l.im * k};
}
template <typename T>
EMBER_HD_INLINE Complex<T> log10(Complex<T> z) {
  const Complex<T> l = log(z);
  const T k = T(0.434294481903251827651);  // 1 / ln 10
  return {l.re * k, l.im * k};
}

}  // namespace ember::ops::m
