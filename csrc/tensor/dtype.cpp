#include "tensor/dtype.hpp"

#include <atomic>
#include <cmath>
#include <limits>

#include "runtime/errors.hpp"

namespace ember {

namespace {

constexpr const char* kNames[kNumScalarTypes] = {
    "bool",    "uint8",    "int8",      "int16",     "int32",     "int64",     "float16",
    "bfloat16", "float32", "float64",   "complex32", "complex64", "complex128"};

// torch's ScalarType names and C++ element type names, in ScalarType order.
constexpr const char* kTorchNames[kNumScalarTypes] = {
    "Bool",   "Byte",  "Char",        "Short",        "Int",          "Long",  "Half",
    "BFloat16", "Float", "Double", "ComplexHalf", "ComplexFloat", "ComplexDouble"};
constexpr const char* kCppNames[kNumScalarTypes] = {
    "bool",     "unsigned char", "signed char",   "short int", "int",
    "long int", "c10::Half",     "c10::BFloat16", "float",     "double",
    "c10::complex<c10::Half>", "c10::complex<float>", "c10::complex<double>"};

struct Alias {
  const char* name;
  ScalarType type;
};
// torch's alternative spellings of the same dtypes.
constexpr Alias kAliases[] = {
    {"half", ScalarType::Float16},  {"float", ScalarType::Float32}, {"double", ScalarType::Float64},
    {"short", ScalarType::Int16},   {"int", ScalarType::Int32},     {"long", ScalarType::Int64},
    {"chalf", ScalarType::ComplexHalf}, {"cfloat", ScalarType::ComplexFloat},
    {"cdouble", ScalarType::ComplexDouble},
};

std::atomic<ScalarType> g_default{ScalarType::Float32};

// Rank of a floating type by range and precision; float16 and bfloat16 tie.
int float_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
    case ScalarType::BFloat16:
      return 0;
    case ScalarType::Float32:
      return 1;
    default:
      return 2;
  }
}

}  // namespace

const char* dtype_name(ScalarType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? kNames[i] : "invalid";
}

const char* torch_scalar_name(ScalarType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? kTorchNames[i] : "Undefined";
}

const char* torch_cpp_type_name(ScalarType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? kCppNames[i] : "?";
}

ScalarType dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    if (name == kNames[i]) return static_cast<ScalarType>(i);
  }
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.type;
  }
  throw TypeError(detail::str("Unknown dtype '", name,
                              "'. ember supports bool, uint8, int8, int16, int32, int64, float16, "
                              "bfloat16, float32, float64, complex32, complex64 and complex128 "
                              "(aliases: half, float, double, short, int, long, chalf, cfloat, "
                              "cdouble)."));
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (is_complex(a) || is_complex(b)) {
    // The parts promote as floats; integers and bool leave them as they are.
    const ScalarType ra = to_real_type(a), rb = to_real_type(b);
    const ScalarType parts = !is_floating(ra) ? rb : !is_floating(rb) ? ra : promote_types(ra, rb);
    return to_complex_type(parts);
  }
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa && fb) {
    const int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return ScalarType::Float32;  // float16 with bfloat16
    return ra > rb ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Two different integer types.
  if ((a == ScalarType::UInt8 && b == ScalarType::Int8) ||
      (a == ScalarType::Int8 && b == ScalarType::UInt8)) {
    return ScalarType::Int16;
  }
  return a > b ? a : b;  // the enum lists integers by increasing width
}

ScalarType default_dtype() noexcept { return g_default.load(std::memory_order_relaxed); }

ScalarType default_complex_dtype() noexcept { return to_complex_type(default_dtype()); }

void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(is_floating(t), "only floating-point types are supported as the default type, ",
                   "got ", dtype_name(t));
  g_default.store(t, std::memory_order_relaxed);
}

namespace {

template <typename T>
FInfo finfo_of() {
  using L = std::numeric_limits<T>;
  const double eps = L::epsilon();
  return FInfo{static_cast<int>(sizeof(T) * 8), eps, static_cast<double>(L::max()),
               -static_cast<double>(L::max()), static_cast<double>(L::min()),
               std::pow(10.0, -std::floor(-std::log10(eps)))};
}

template <typename T>
IInfo iinfo_of() {
  using L = std::numeric_limits<T>;
  return IInfo{static_cast<int>(sizeof(T) * 8), static_cast<int64_t>(L::max()),
               static_cast<int64_t>(L::min())};
}

}  // namespace

FInfo finfo(ScalarType t) {
  switch (to_real_type(t)) {
    case ScalarType::Float16:
      // 10 mantissa bits, 5 exponent bits.
      return FInfo{16, 0.0009765625, 65504.0, -65504.0, 6.103515625e-05, 0.001};
    case ScalarType::BFloat16:
      // 7 mantissa bits, float32's exponent range; max = (2 - 2^-7) * 2^127.
      return FInfo{16, 0.0078125, 3.3895313892515355e+38, -3.3895313892515355e+38,
                   1.1754943508222875e-38, 0.01};
    case ScalarType::Float32:
      return finfo_of<float>();
    case ScalarType::Float64:
      return finfo_of<double>();
    default:
      throw TypeError(detail::str("ember.finfo() requires a floating point input type, got ",
                                  dtype_name(t), ". Use ember.iinfo to handle integer types."));
  }
}

IInfo iinfo(ScalarType t) {
  switch (t) {
    case ScalarType::UInt8:
      return iinfo_of<uint8_t>();
    case ScalarType::Int8:
      return iinfo_of<int8_t>();
    case ScalarType::Int16:
      return iinfo_of<int16_t>();
    case ScalarType::Int32:
      return iinfo_of<int32_t>();
    case ScalarType::Int64:
      return iinfo_of<int64_t>();
    case ScalarType::Bool:
      throw TypeError("ember.bool is not supported by ember.iinfo");
    default:
      throw TypeError(detail::str("ember.iinfo() requires an integer input type, got ",
                                  dtype_name(t), ". Use ember.finfo to handle floating types."));
  }
}

}  // namespace ember
