// Scalar: a Python number on its way into a tensor (fill values, arange
// bounds, __setitem__ values). It remembers its category -- bool, integer or
// floating -- because torch's type inference and promotion depend on it.
#pragma once

#include <cstdint>

#include "tensor/convert.hpp"
#include "tensor/dtype.hpp"

namespace ember {

struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Float };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;

  static Scalar from_bool(bool v) { Scalar s; s.kind = Kind::Bool; s.b = v; return s; }
  static Scalar from_int(int64_t v) { Scalar s; s.kind = Kind::Int; s.i = v; return s; }
  static Scalar from_double(double v) { Scalar s; s.kind = Kind::Float; s.d = v; return s; }

  bool is_floating() const { return kind == Kind::Float; }
  bool is_integral() const { return kind == Kind::Int; }
  bool is_bool() const { return kind == Kind::Bool; }

  double to_double() const { return kind == Kind::Float ? d : kind == Kind::Int ? double(i) : b; }

  // The value as a T, with the element conversion rules of convert.hpp.
  template <typename T>
  T to() const {
    switch (kind) {
      case Kind::Bool: return convert<T, bool>(b);
      case Kind::Int: return convert<T, int64_t>(i);
      default: return convert<T, double>(d);
    }
  }

  // The dtype torch infers for a tensor made from this Python number.
  ScalarType default_type() const {
    return kind == Kind::Bool ? ScalarType::Bool
                              : kind == Kind::Int ? ScalarType::Int64 : default_dtype();
  }
};

}  // namespace ember
