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

}  // namespace ember
