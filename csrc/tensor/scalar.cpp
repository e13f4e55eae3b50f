#include "tensor/scalar.hpp"

#include <cmath>
#include <limits>

#include "runtime/errors.hpp"

namespace ember {

namespace {

// The dtype's range as doubles: [lowest, max] (for floating dtypes, +-the
// largest finite value).
void range_of(ScalarType t, double* lo, double* hi) {
  switch (t) {
    case ScalarType::UInt8: *lo = 0; *hi = 255; return;
    case ScalarType::Int8: *lo = -128; *hi = 127; return;
    case ScalarType::Int16: *lo = -32768; *hi = 32767; return;
    case ScalarType::Int32: *lo = -2147483648.0; *hi = 2147483647.0; return;
    case ScalarType::Int64:
      *lo = static_cast<double>(std::numeric_limits<int64_t>::min());
      *hi = static_cast<double>(std::numeric_limits<int64_t>::max());  // 2**63 in double
      return;
    default: {
      const double m = finfo(t).max;
      *lo = -m;
      *hi = m;
      return;
    }
  }
}

const char* checked_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8: return "uint8_t";
    case ScalarType::Int8: return "int8_t";
    case ScalarType::Int16: return "int16_t";
    case ScalarType::Int32: return "int";
    case ScalarType::Int64: return "int64_t";
    case ScalarType::Float16: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float32: return "float";
    case ScalarType::Float64: return "double";
    case ScalarType::ComplexHalf: return "c10::complex<c10::Half>";
    case ScalarType::ComplexFloat: return "c10::complex<float>";
    case ScalarType::ComplexDouble: return "c10::complex<double>";
    default: return "bool";
  }
}

}  // namespace

bool scalar_fits(const Scalar& s, ScalarType dtype) {
  if (dtype == ScalarType::Bool || s.is_bool()) return true;
  if (is_complex(dtype)) {
    // Each part into the parts' dtype; complex32 takes anything (torch
    // converts into it unchecked: 70000 becomes inf).
    if (dtype == ScalarType::ComplexHalf) return true;
    if (!s.is_complex()) return scalar_fits(s, to_real_type(dtype));
    return scalar_fits(Scalar::from_double(s.d), to_real_type(dtype)) &&
           scalar_fits(Scalar::from_double(s.im), to_real_type(dtype));
  }
  // A complex number into a real dtype: a real one only (then its real part).
  if (s.is_complex()) return s.im == 0.0 && scalar_fits(Scalar::from_double(s.d), dtype);
  double lo, hi;
  range_of(dtype, &lo, &hi);
  if (s.is_integral()) {
    if (dtype == ScalarType::Int64) return true;
    if (is_floating(dtype)) {
      const double v = static_cast<double>(s.i);
      return v >= lo && v <= hi;
    }
    const int64_t mn = static_cast<int64_t>(lo), mx = static_cast<int64_t>(hi);
    if (dtype == ScalarType::UInt8) return s.i <= mx && s.i >= -mx;
    return s.i >= mn && s.i <= mx;
  }
  const double v = s.d;
  if (std::isnan(v)) return is_floating(dtype);
  if (std::isinf(v)) return is_floating(dtype);
  return v >= lo && v <= hi;
}

void check_scalar_fits(const Scalar& s, ScalarType dtype) {
  if (!scalar_fits(s, dtype)) {
    throw Error(detail::str("value cannot be converted to type ", checked_type_name(dtype),
                            " without overflow"));
  }
}

}  // namespace ember
