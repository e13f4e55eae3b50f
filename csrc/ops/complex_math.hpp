// The complex overloads of ops/math_functions.hpp's scalar math, for
// Complex<float> and Complex<double>. abs (hypot), arg (atan2), conj and the
// predicates serve both devices (the ahead-of-time CUDA kernels of abs and
// conj use them); the transcendental functions are host-only and call the
// C++ library's std::complex functions, as torch's CPU kernels do. On the GPU
// those functions run in kernels compiled at first use (NVRTC) from
// include/ember/device/complex.cuh, whose formulas are the textbook ones.
#pragma once

#include "ops/math_functions.hpp"
#include "tensor/complex.hpp"

#if !defined(__CUDACC__)
#include <complex>
#endif

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

#if !defined(__CUDACC__)
// The transcendental functions, on the host only (the GPU computes them in
// kernels compiled at first use: include/ember/device/complex.cuh): the C++
// library's std::complex functions, as torch's CPU kernels (c10::complex
// calls them too).
template <typename T>
inline std::complex<T> to_std(Complex<T> z) {
  return {z.re, z.im};
}
template <typename T>
inline Complex<T> from_std(const std::complex<T>& z) {
  return {z.real(), z.imag()};
}

template <typename T>
inline Complex<T> exp(Complex<T> z) {
  return from_std(std::exp(to_std(z)));
}
template <typename T>
inline Complex<T> log(Complex<T> z) {
  return from_std(std::log(to_std(z)));
}
template <typename T>
inline Complex<T> sqrt(Complex<T> z) {
  return from_std(std::sqrt(to_std(z)));
}
template <typename T>
inline Complex<T> asin(Complex<T> z) {
  return from_std(std::asin(to_std(z)));
}
template <typename T>
inline Complex<T> acos(Complex<T> z) {
  return from_std(std::acos(to_std(z)));
}
template <typename T>
inline Complex<T> atan(Complex<T> z) {
  return from_std(std::atan(to_std(z)));
}
template <typename T>
inline Complex<T> asinh(Complex<T> z) {
  return from_std(std::asinh(to_std(z)));
}
template <typename T>
inline Complex<T> acosh(Complex<T> z) {
  return from_std(std::acosh(to_std(z)));
}
template <typename T>
inline Complex<T> atanh(Complex<T> z) {
  return from_std(std::atanh(to_std(z)));
}
template <typename T>
inline Complex<T> sinh(Complex<T> z) {
  return from_std(std::sinh(to_std(z)));
}
template <typename T>
inline Complex<T> cosh(Complex<T> z) {
  return from_std(std::cosh(to_std(z)));
}
template <typename T>
inline Complex<T> tanh(Complex<T> z) {
  return from_std(std::tanh(to_std(z)));
}
template <typename T>
inline Complex<T> sin(Complex<T> z) {
  return from_std(std::sin(to_std(z)));
}
template <typename T>
inline Complex<T> cos(Complex<T> z) {
  return from_std(std::cos(to_std(z)));
}
template <typename T>
inline Complex<T> tan(Complex<T> z) {
  return from_std(std::tan(to_std(z)));
}
// pow(z, w) = exp(w log z) (std::pow), with torch's 0^w: 1 for w = 0, 0 for
// real w > 0.
template <typename T>
inline Complex<T> pow(Complex<T> a, Complex<T> b) {
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re == T(0) && b.im == T(0)) return {T(1), T(0)};
    if (b.im == T(0) && b.re > T(0)) return {T(0), T(0)};
  }
  return from_std(std::pow(to_std(a), to_std(b)));
}
template <typename T>
inline Complex<T> log2(Complex<T> z) {
  const Complex<T> l = log(z);
  const T k = T(1.44269504088896340736);  // 1 / ln 2
  return {l.re * k, l.im * k};
}
template <typename T>
inline Complex<T> log10(Complex<T> z) {
  return from_std(std::log10(to_std(z)));
}
#endif  // !__CUDACC__

}  // namespace ember::ops::m
