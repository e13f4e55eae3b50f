// ember's element types (torch's dtypes without the quantised ones and the
// float8/unsigned extras) and what every layer needs to know about them: size,
// name, category, and the promotion lattice that binary operations (issue 6)
// and cat/stack use. The complex dtypes are {re, im} pairs of a floating type
// (tensor/complex.hpp): complex32 (a pair of float16: storage, copies, views
// and printing only), complex64 and complex128.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ember {

// The order is part of the ABI of the promotion table in dtype.cpp.
enum class ScalarType : int8_t {
  Bool = 0,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  ComplexHalf,
  ComplexFloat,
  ComplexDouble,
};

constexpr int kNumScalarTypes = 13;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8:
    case ScalarType::Int8:
      return 1;
    case ScalarType::Int16:
    case ScalarType::Float16:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int32:
    case ScalarType::Float32:
    case ScalarType::ComplexHalf:
      return 4;
    case ScalarType::Int64:
    case ScalarType::Float64:
    case ScalarType::ComplexFloat:
      return 8;
    case ScalarType::ComplexDouble:
      return 16;
  }
  return 0;
}

constexpr bool is_floating(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 ||
         t == ScalarType::Float64;
}
// Integral types; bool counts only when asked for.
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return (include_bool && t == ScalarType::Bool) ||
         (t >= ScalarType::UInt8 && t <= ScalarType::Int64);
}
constexpr bool is_signed(ScalarType t) {
  return t != ScalarType::Bool && t != ScalarType::UInt8;
}
// complex32, complex64, complex128 (torch's is_complex; not floating).
constexpr bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat ||
         t == ScalarType::ComplexDouble;
}
// The dtypes that carry gradients (torch: floating point and complex).
constexpr bool is_floating_or_complex(ScalarType t) { return is_floating(t) || is_complex(t); }
// The dtype of a complex dtype's parts (complex64 -> float32); others unchanged.
constexpr ScalarType to_real_type(ScalarType t) {
  return t == ScalarType::ComplexHalf    ? ScalarType::Float16
         : t == ScalarType::ComplexFloat ? ScalarType::Float32
         : t == ScalarType::ComplexDouble ? ScalarType::Float64
                                          : t;
}
// The complex dtype with parts of floating type t (torch's toComplexType:
// float16 -> complex32, bfloat16 and float32 -> complex64, float64 ->
// complex128); complex dtypes unchanged; anything else complex64.
constexpr ScalarType to_complex_type(ScalarType t) {
  return t == ScalarType::Float16     ? ScalarType::ComplexHalf
         : t == ScalarType::Float64   ? ScalarType::ComplexDouble
         : is_complex(t)              ? t
                                      : ScalarType::ComplexFloat;
}

// "float32", "int64", "bool" ... (torch's names without the "torch." prefix).
const char* dtype_name(ScalarType t);
// torch's ScalarType names, used in its messages: "Float", "Long", "Half",
// "BFloat16", "Bool", "Byte", "Char" ... ("Undefined" for anything else).
const char* torch_scalar_name(ScalarType t);
// torch's C++ element type names, used in messages such as "float != double":
// "float", "long int", "c10::Half" ...
const char* torch_cpp_type_name(ScalarType t);
// Parses one of dtype_name()'s names or torch's aliases ("float", "half",
// "long", ...). Throws TypeError naming the accepted names.
ScalarType dtype_from_name(const std::string& name);

// The type both operands of a binary operation are computed in, following
// torch.promote_types: bool < integers < floats < complex; uint8 with int8
// gives int16; float16 with bfloat16 gives float32; a complex dtype with any
// other gives the complex dtype whose parts are the promotion of both parts
// (complex64 with float64 gives complex128, complex32 with bfloat16 complex64).
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.get_default_dtype()/set_default_dtype(): the dtype of Python floats
// (float32 unless changed). Only float32 and float64 may be set, as in torch
// (float16/bfloat16 too: torch accepts any floating type).
ScalarType default_dtype() noexcept;
void set_default_dtype(ScalarType t);
// The dtype of Python complex numbers: to_complex_type(default_dtype()).
ScalarType default_complex_dtype() noexcept;

// Floating-point limits (torch.finfo) and integer limits (torch.iinfo).
struct FInfo {
  int bits;
  double eps, max, min, tiny, resolution;
};
FInfo finfo(ScalarType t);  // TypeError for non-floating types; complex: its parts'
struct IInfo {
  int bits;
  int64_t max, min;
};
IInfo iinfo(ScalarType t);  // TypeError for floating types

}  // namespace ember
