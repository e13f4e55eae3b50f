// Complex<T>: the element type of the complex dtypes, shared by the CPU loops
// and the CUDA kernels. Layout-compatible with std::complex<T>, cuComplex /
// cuDoubleComplex, NumPy's complex64/complex128 and DLPack's kDLComplex: {re,
// im}, aligned to 2 * sizeof(T) (as torch's c10::complex), so a complex64 is
// one 8-byte load and a complex128 one 16-byte load on the GPU.
//
// T is float or double for arithmetic; Complex<Half> (complex32) is storage
// only: it is converted, copied and viewed, never computed with.
//
// The members have no initialisers, so Complex<T> is trivial (usable in
// __shared__ memory and memcpy'd by warp shuffles); Complex<T>{} is zero.
#pragma once

#include "tensor/half.hpp"

namespace ember {

template <typename T>
struct alignas(2 * sizeof(T)) Complex {
  T re, im;

  Complex() = default;
  // From a real value (imaginary part 0): C(0), C(1) in the functors.
  EMBER_HD_INLINE constexpr Complex(T r) : re(r), im(T(0)) {}  // NOLINT: implicit on purpose
  EMBER_HD_INLINE constexpr Complex(T r, T i) : re(r), im(i) {}

  EMBER_HD_INLINE constexpr T real() const { return re; }
  EMBER_HD_INLINE constexpr T imag() const { return im; }

  EMBER_HD_INLINE Complex operator-() const { return {-re, -im}; }
  EMBER_HD_INLINE Complex& operator+=(Complex o) { re += o.re; im += o.im; return *this; }
  EMBER_HD_INLINE Complex& operator-=(Complex o) { re -= o.re; im -= o.im; return *this; }
  EMBER_HD_INLINE Complex& operator*=(Complex o) { return *this = *this * o; }
  EMBER_HD_INLINE Complex& operator/=(Complex o) { return *this = *this / o; }

  friend EMBER_HD_INLINE Complex operator+(Complex a, Complex b) {
    return {a.re + b.re, a.im + b.im};
  }
  friend EMBER_HD_INLINE Complex operator-(Complex a, Complex b) {
    return {a.re - b.re, a.im - b.im};
  }
  friend EMBER_HD_INLINE Complex operator*(Complex a, Complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  // Smith's algorithm, as NumPy and torch divide: scaled by the larger part
  // of the divisor, so |b|^2 never overflows; x / 0 gives infinities or NaNs
  // like real division.
  friend EMBER_HD_INLINE Complex operator/(Complex a, Complex b) {
    const T ac = b.re < T(0) ? -b.re : b.re;
    const T ad = b.im < T(0) ? -b.im : b.im;
    if (ac >= ad) {
      if (ac == T(0) && ad == T(0)) return {a.re / ac, a.im / ad};
      const T rat = b.im / b.re;
      const T scl = T(1) / (b.re + b.im * rat);
      return {(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};
    }
    const T rat = b.re / b.im;
    const T scl = T(1) / (b.im + b.re * rat);
    return {(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};
  }
  friend EMBER_HD_INLINE bool operator==(Complex a, Complex b) {
    return a.re == b.re && a.im == b.im;
  }
  friend EMBER_HD_INLINE bool operator!=(Complex a, Complex b) { return !(a == b); }
};

static_assert(sizeof(Complex<float>) == 8 && alignof(Complex<float>) == 8, "complex64 layout");
static_assert(sizeof(Complex<double>) == 16 && alignof(Complex<double>) == 16,
              "complex128 layout");
static_assert(sizeof(Complex<Half>) == 4, "complex32 layout");

template <typename T>
struct is_complex_type {
  static constexpr bool value = false;
};
template <typename T>
struct is_complex_type<Complex<T>> {
  static constexpr bool value = true;
};
template <typename T>
constexpr bool is_complex_v = is_complex_type<T>::value;

// The type of a complex type's parts; T itself for real types.
template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<Complex<T>> {
  using type = T;
};
template <typename T>
using real_of_t = typename RealOf<T>::type;

}  // namespace ember
