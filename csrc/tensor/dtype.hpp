// ember's element types (torch's dtypes without the complex and quantised ones)
// and what every layer needs to know about them: size, name, category, and the
// promotion lattice that binary operations (issue 6) and cat/stack use.
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
};

constexpr int kNumScalarTypes = 10;

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
      return 4;
    case ScalarType::Int64:
    case ScalarType::Float64:
      return 8;
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
// torch.promote_types: bool < integers < floats; uint8 with int8 gives int16;
// float16 with bfloat16 gives float32.
ScalarType promote_types(ScalarType a, ScalarType b);

// torch.get_default_dtype()/set_default_dtype(): the dtype of Python floats
// (float32 unless changed). Only float32 and float64 may be set, as in torch
// (float16/bfloat16 too: torch accepts any floating type).
ScalarType default_dtype() noexcept;
void set_default_dtype(ScalarType t);

// Floating-point limits (torch.finfo) and integer limits (torch.iinfo).
struct FInfo {
  int bits;
  double eps, max, min, tiny, resolution;
};
FInfo finfo(ScalarType t);  // TypeError for non-floating types
struct IInfo {
  int bits;
  int64_t max, min;
};
IInfo iinfo(ScalarType t);  // TypeError for floating types

}  // namespace ember
