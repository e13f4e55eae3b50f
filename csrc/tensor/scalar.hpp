// Scalar: a Python number on its way into a tensor (fill values, arange
// bounds, __setitem__ values). It remembers its category -- bool, integer,
// floating or complex -- because torch's type inference and promotion depend
// on it. A complex number keeps its real part in `d` and its imaginary part
// in `im`.
#pragma once

#include <cstdint>

#include "tensor/convert.hpp"
#include "tensor/dtype.hpp"

namespace ember {

struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Float, Complex };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;
  double im = 0.0;  // Complex: the imaginary part (the real part is d)

  static Scalar from_bool(bool v) { Scalar s; s.kind = Kind::Bool; s.b = v; return s; }
  static Scalar from_int(int64_t v) { Scalar s; s.kind = Kind::Int; s.i = v; return s; }
  static Scalar from_double(double v) { Scalar s; s.kind = Kind::Float; s.d = v; return s; }
  static Scalar from_complex(double re, double imag) {
    Scalar s; s.kind = Kind::Complex; s.d = re; s.im = imag; return s;
  }

  bool is_floating() const { return kind == Kind::Float; }
  bool is_integral() const { return kind == Kind::Int; }
  bool is_bool() const { return kind == Kind::Bool; }
  bool is_complex() const { return kind == Kind::Complex; }

  // The real part of a complex number.
  double to_double() const {
    return kind == Kind::Float || kind == Kind::Complex ? d : kind == Kind::Int ? double(i) : b;
  }
  Complex<double> to_complex() const {
    return kind == Kind::Complex ? Complex<double>(d, im) : Complex<double>(to_double());
  }
  // The complex conjugate (the number itself unless it is complex).
  Scalar conj() const { return kind == Kind::Complex ? from_complex(d, -im) : *this; }

  // The value as a T, with the element conversion rules of convert.hpp (a
  // complex number to a real type keeps its real part).
  template <typename T>
  T to() const {
    switch (kind) {
      case Kind::Bool: return convert<T, bool>(b);
      case Kind::Int: return convert<T, int64_t>(i);
      case Kind::Complex: return convert<T, Complex<double>>(Complex<double>(d, im));
      default: return convert<T, double>(d);
    }
  }

  // The dtype torch infers for a tensor made from this Python number.
  ScalarType default_type() const {
    return kind == Kind::Bool      ? ScalarType::Bool
           : kind == Kind::Int     ? ScalarType::Int64
           : kind == Kind::Complex ? default_complex_dtype()
                                   : default_dtype();
  }
};

// Whether `s` converts to `dtype` without overflow, with torch's rule
// (c10::overflows, behind c10::checked_convert and Scalar::to<T>()):
// - into bool, and from a bool number: always;
// - an integer into an integer dtype: within [min, max]; into uint8 also
//   -255..-1 (negative numbers wrap when |v| <= max: 255 and -1 fit, 256 and
//   -256 do not);
// - an integer into a floating dtype: |v| <= the largest finite value (only
//   float16 can fail: 65505 does not fit);
// - a floating number into an integer dtype: not NaN, not +-inf, and within
//   [min, max] compared in double (127.5 overflows int8; 2.0**63 fits int64
//   because int64's max rounds to 2**63 in double);
// - a floating number into a floating dtype: NaN and +-inf fit, finite values
//   must be within +-(largest finite value) (1e39 overflows float32, 65505.0
//   float16).
bool scalar_fits(const Scalar& s, ScalarType dtype);

// RuntimeError with torch's message when !scalar_fits(s, dtype):
// "value cannot be converted to type uint8_t without overflow" (torch's C++
// type names: uint8_t, int8_t, int16_t, int, int64_t, c10::Half,
// c10::BFloat16, float, double). Call it wherever a Python number is
// converted into a tensor's dtype the way torch's kernels call
// Scalar::to<T>(): fill_, full, masked_fill, clamp's bounds, ...
void check_scalar_fits(const Scalar& s, ScalarType dtype);

}  // namespace ember
