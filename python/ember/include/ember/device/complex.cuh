// ember's complex element type for device code: what the jiterator
// instantiates a function with for complex64 (ember::complex<float>) and
// complex128 (ember::complex<double>) tensors, and what kernels given to
// ember.cuda.RawKernel may use for their data. complex32 tensors compute in
// complex<float> (their parts are float16 in memory).
//
// - Works under NVRTC (no standard or CUDA headers needed) and nvcc.
//   Layout-compatible with ember's tensors, std::complex, cuComplex and
//   c10::complex: {re, im}, aligned to twice the part's size.
// - Arithmetic as torch's c10::complex (Smith's division); the functions
//   (exp, log, sqrt, sin, ..., pow) use the formulas of ember's CPU loops
//   (csrc/ops/complex_math.hpp), so both devices agree to rounding.
#pragma once

#include <ember/device/half.cuh>

namespace ember {

template <typename T>
struct alignas(2 * sizeof(T)) complex {
  T re, im;

  complex() = default;
  EMBER_DEVICE_HD constexpr complex(T r) : re(r), im(T(0)) {}  // NOLINT: implicit on purpose
  EMBER_DEVICE_HD constexpr complex(T r, T i) : re(r), im(i) {}
  // complex<float> <-> complex<double>.
  template <typename U>
  EMBER_DEVICE_HD explicit constexpr complex(const complex<U>& o) : re(T(o.re)), im(T(o.im)) {}

  EMBER_DEVICE_HD constexpr T real() const { return re; }
  EMBER_DEVICE_HD constexpr T imag() const { return im; }

  EMBER_DEVICE_HD complex operator-() const { return complex(-re, -im); }
  EMBER_DEVICE_HD complex& operator+=(complex o) { re += o.re; im += o.im; return *this; }
  EMBER_DEVICE_HD complex& operator-=(complex o) { re -= o.re; im -= o.im; return *this; }
  EMBER_DEVICE_HD complex& operator*=(complex o) { return *this = *this * o; }
  EMBER_DEVICE_HD complex& operator/=(complex o) { return *this = *this / o; }

  friend EMBER_DEVICE_HD complex operator+(complex a, complex b) {
    return complex(a.re + b.re, a.im + b.im);
  }
  friend EMBER_DEVICE_HD complex operator-(complex a, complex b) {
    return complex(a.re - b.re, a.im - b.im);
  }
  friend EMBER_DEVICE_HD complex operator*(complex a, complex b) {
    return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
  }
  friend EMBER_DEVICE_HD complex operator/(complex a, complex b) {
    const T ac = b.re < T(0) ? -b.re : b.re;
    const T ad = b.im < T(0) ? -b.im : b.im;
    if (ac >= ad) {
      if (ac == T(0) && ad == T(0)) return complex(a.re / ac, a.im / ad);
      const T rat = b.im / b.re;
      const T scl = T(1) / (b.re + b.im * rat);
      return complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    const T rat = b.re / b.im;
    const T scl = T(1) / (b.im + b.re * rat);
    return complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
  }
  friend EMBER_DEVICE_HD bool operator==(complex a, complex b) {
    return a.re == b.re && a.im == b.im;
  }
  friend EMBER_DEVICE_HD bool operator!=(complex a, complex b) { return !(a == b); }
};

template <typename T> struct is_complex_t { static constexpr bool value = false; };
template <typename T> struct is_complex_t<complex<T>> { static constexpr bool value = true; };
template <typename T> struct complex_part { typedef T type; };
template <typename T> struct complex_part<complex<T>> { typedef T type; };

namespace cmath {

template <typename T> EMBER_DEVICE_HD T abs(complex<T> z) { return ::hypot(z.re, z.im); }
template <typename T> EMBER_DEVICE_HD T arg(complex<T> z) { return ::atan2(z.im, z.re); }
template <typename T> EMBER_DEVICE_HD complex<T> conj(complex<T> z) {
  return complex<T>(z.re, -z.im);
}
template <typename T> EMBER_DEVICE_HD bool is_nan(complex<T> z) {
  return z.re != z.re || z.im != z.im;
}
template <typename T> EMBER_DEVICE_HD bool is_inf(complex<T> z) {
  return ::isinf(z.re) || ::isinf(z.im);
}
template <typename T> EMBER_DEVICE_HD bool is_finite(complex<T> z) {
  return ::isfinite(z.re) && ::isfinite(z.im);
}

template <typename T> EMBER_DEVICE_HD complex<T> exp(complex<T> z) {
  const T e = ::exp(z.re);
  if (z.im == T(0)) return complex<T>(e, z.im);
  return complex<T>(e * ::cos(z.im), e * ::sin(z.im));
}
template <typename T> EMBER_DEVICE_HD complex<T> log(complex<T> z) {
  return complex<T>(::log(abs(z)), arg(z));
}
// exp(z) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y (no cancellation
// for small z).
template <typename T> EMBER_DEVICE_HD complex<T> expm1(complex<T> z) {
  const T s = ::sin(z.im / T(2));
  return complex<T>(::expm1(z.re) * ::cos(z.im) - T(2) * s * s, ::exp(z.re) * ::sin(z.im));
}
// log(1 + z); |1 + z|^2 - 1 = x (x + 2) + y^2 through log1p for |z| < 1/2.
template <typename T> EMBER_DEVICE_HD complex<T> log1p(complex<T> z) {
  const T x = z.re, y = z.im;
  const T theta = ::atan2(y, x + T(1));
  if (::hypot(x, y) < T(0.5)) {
    const T r = x * (T(2) + x) + y * y;
    if (r == T(0)) return complex<T>(x, theta);
    return complex<T>(T(0.5) * ::log1p(r), theta);
  }
  return complex<T>(::log(::hypot(x + T(1), y)), theta);
}
// 2^z = exp(z ln 2)
template <typename T> EMBER_DEVICE_HD complex<T> exp2(complex<T> z) {
  const T k = T(0.693147180559945309417);
  return exp(complex<T>(z.re * k, z.im * k));
}
template <typename T> EMBER_DEVICE_HD complex<T> sqrt(complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return complex<T>(T(0), z.im);
  if (::isinf(z.im)) return complex<T>(::fabs(z.im), z.im);
  const T t = ::sqrt((::fabs(z.re) + abs(z)) * T(0.5));
  if (z.re >= T(0)) return complex<T>(t, z.im / (T(2) * t));
  return complex<T>(::fabs(z.im) / (T(2) * t), ::copysign(t, z.im));
}
template <typename T> EMBER_DEVICE_HD complex<T> sinh(complex<T> z) {
  return complex<T>(::sinh(z.re) * ::cos(z.im), ::cosh(z.re) * ::sin(z.im));
}
template <typename T> EMBER_DEVICE_HD complex<T> cosh(complex<T> z) {
  return complex<T>(::cosh(z.re) * ::cos(z.im), ::sinh(z.re) * ::sin(z.im));
}
template <typename T> EMBER_DEVICE_HD complex<T> sin(complex<T> z) {
  return complex<T>(::sin(z.re) * ::cosh(z.im), ::cos(z.re) * ::sinh(z.im));
}
template <typename T> EMBER_DEVICE_HD complex<T> cos(complex<T> z) {
  return complex<T>(::cos(z.re) * ::cosh(z.im), -(::sin(z.re) * ::sinh(z.im)));
}
// Kahan's tanh (csrc/ops/complex_math.hpp).
template <typename T> EMBER_DEVICE_HD complex<T> tanh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (::fabs(x) > T(22)) {
    const T e = ::exp(T(-2) * ::fabs(x));
    return complex<T>(::copysign(T(1), x), T(4) * ::sin(y) * ::cos(y) * e);
  }
  const T t = ::tan(y), s = ::sinh(x);
  const T b = T(1) + t * t;
  const T r = ::sqrt(T(1) + s * s);
  const T d = T(1) + b * s * s;
  return complex<T>(b * r * s / d, t / d);
}
template <typename T> EMBER_DEVICE_HD complex<T> tan(complex<T> z) {
  const complex<T> w = tanh(complex<T>(-z.im, z.re));
  return complex<T>(w.im, -w.re);
}
template <typename T> EMBER_DEVICE_HD complex<T> pow(complex<T> a, complex<T> b) {
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re == T(0) && b.im == T(0)) return complex<T>(T(1), T(0));
    if (b.im == T(0) && b.re > T(0)) return complex<T>(T(0), T(0));
  }
  return exp(b * log(a));
}
template <typename T> EMBER_DEVICE_HD complex<T> log2(complex<T> z) {
  const complex<T> l = log(z);
  const T k = T(1.44269504088896340736);
  return complex<T>(l.re * k, l.im * k);
}
template <typename T> EMBER_DEVICE_HD complex<T> log10(complex<T> z) {
  const complex<T> l = log(z);
  const T k = T(0.434294481903251827651);
  return complex<T>(l.re * k, l.im * k);
}
template <typename T> EMBER_DEVICE_HD complex<T> rsqrt(complex<T> z) {
  return complex<T>(T(1)) / sqrt(z);
}
template <typename T> EMBER_DEVICE_HD complex<T> sigmoid(complex<T> z) {
  return complex<T>(T(1)) / (complex<T>(T(1)) + exp(-z));
}
template <typename T> EMBER_DEVICE_HD complex<T> sgn(complex<T> z) {
  const T a = abs(z);
  if (a == T(0)) return complex<T>(T(0));
  return complex<T>(z.re / a, z.im / a);
}

// The inverse functions: Kahan's formulas ("Branch cuts for complex elementary
// functions", 1987) over the principal sqrt above, so that the cuts and their
// signed zeros are C99 Annex G's (and the CPU's std:: ones) and no cancellation
// happens near the cuts. (atanh/atan square |z|: past about 1e19 in float32,
// 1e154 in float64, their results are the limits' approximations.)
template <typename T> EMBER_DEVICE_HD complex<T> asin(complex<T> z) {
  const complex<T> s1 = sqrt(complex<T>(T(1) - z.re, -z.im));
  const complex<T> s2 = sqrt(complex<T>(T(1) + z.re, z.im));
  return complex<T>(::atan2(z.re, s1.re * s2.re - s1.im * s2.im),
                    ::asinh(s1.re * s2.im - s1.im * s2.re));
}
template <typename T> EMBER_DEVICE_HD complex<T> acos(complex<T> z) {
  const complex<T> s1 = sqrt(complex<T>(T(1) - z.re, -z.im));
  const complex<T> s2 = sqrt(complex<T>(T(1) + z.re, z.im));
  return complex<T>(T(2) * ::atan2(s1.re, s2.re), ::asinh(s2.re * s1.im - s2.im * s1.re));
}
template <typename T> EMBER_DEVICE_HD complex<T> acosh(complex<T> z) {
  const complex<T> s1 = sqrt(complex<T>(z.re - T(1), z.im));
  const complex<T> s2 = sqrt(complex<T>(z.re + T(1), z.im));
  return complex<T>(::asinh(s1.re * s2.re + s1.im * s2.im), T(2) * ::atan2(s1.im, s2.re));
}
template <typename T> EMBER_DEVICE_HD complex<T> asinh(complex<T> z) {  // -i asin(i z)
  const complex<T> w = asin(complex<T>(-z.im, z.re));
  return complex<T>(w.im, -w.re);
}
template <typename T> EMBER_DEVICE_HD complex<T> atanh(complex<T> z) {
  // re: 0.25 log(|1 + z|^2 / |1 - z|^2) = 0.25 log1p(4 x / |1 - z|^2), accurate near 0
  // and near 1 (computed for |x|: atanh is odd); im: 0.5 arg((1 + z)(1 - conj z))
  // (FreeBSD's catanh without its rescaling of huge arguments)
  const T x = z.re, y = z.im, ax = ::fabs(x), d = (T(1) - ax) * (T(1) - ax) + y * y;
  return complex<T>(::copysign(T(0.25) * ::log1p(T(4) * ax / d), x),
                    T(0.5) * ::atan2(T(2) * y, (T(1) - x) * (T(1) + x) - y * y));
}
template <typename T> EMBER_DEVICE_HD complex<T> atan(complex<T> z) {  // -i atanh(i z)
  const complex<T> w = atanh(complex<T>(-z.im, z.re));
  return complex<T>(w.im, -w.re);
}

}  // namespace cmath

}  // namespace ember
