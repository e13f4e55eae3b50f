// From a runtime ScalarType to the C++ type that stores it, for templated
// loops and kernels:
//
//   dispatch(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
//
// CppType<ScalarType::Float16>::type is ember::Half; bool is stored as bool
// (one byte, 0 or 1), as torch and numpy do; complex64 is Complex<float>.
//
// dispatch() covers the ten real dtypes and raises torch's "not implemented
// for 'ComplexFloat'" for a complex one, so that a loop written for real
// types never runs on complex data; dispatch_complex() covers the complex
// dtypes and dispatch_all() all thirteen, for the sites that handle them.
#pragma once

#include <cstdint>
#include <utility>

#include "runtime/errors.hpp"
#include "tensor/complex.hpp"
#include "tensor/dtype.hpp"
#include "tensor/half.hpp"

namespace ember {

template <typename T>
struct TypeTag {
  using type = T;
};

template <ScalarType S>
struct CppType;
template <> struct CppType<ScalarType::Bool> { using type = bool; };
template <> struct CppType<ScalarType::UInt8> { using type = uint8_t; };
template <> struct CppType<ScalarType::Int8> { using type = int8_t; };
template <> struct CppType<ScalarType::Int16> { using type = int16_t; };
template <> struct CppType<ScalarType::Int32> { using type = int32_t; };
template <> struct CppType<ScalarType::Int64> { using type = int64_t; };
template <> struct CppType<ScalarType::Float16> { using type = Half; };
template <> struct CppType<ScalarType::BFloat16> { using type = BFloat16; };
template <> struct CppType<ScalarType::Float32> { using type = float; };
template <> struct CppType<ScalarType::Float64> { using type = double; };
template <> struct CppType<ScalarType::ComplexHalf> { using type = Complex<Half>; };
template <> struct CppType<ScalarType::ComplexFloat> { using type = Complex<float>; };
template <> struct CppType<ScalarType::ComplexDouble> { using type = Complex<double>; };

// NotImplementedError (a RuntimeError) as torch words it: "\"op\" not implemented for 'ComplexFloat'"
// (without the op's name when the caller gives none).
[[noreturn]] inline void dtype_not_implemented(ScalarType t, const char* op = nullptr) {
  if (op) {
    throw NotImplementedError(
        detail::str("\"", op, "\" not implemented for '", torch_scalar_name(t), "'"));
  }
  throw NotImplementedError(detail::str("not implemented for '", torch_scalar_name(t), "'"));
}

// The real dtypes; a complex one raises (naming `op` when given).
template <typename F>
decltype(auto) dispatch(ScalarType t, F&& f, const char* op = nullptr) {
  switch (t) {
    case ScalarType::Bool: return f(TypeTag<bool>{});
    case ScalarType::UInt8: return f(TypeTag<uint8_t>{});
    case ScalarType::Int8: return f(TypeTag<int8_t>{});
    case ScalarType::Int16: return f(TypeTag<int16_t>{});
    case ScalarType::Int32: return f(TypeTag<int32_t>{});
    case ScalarType::Int64: return f(TypeTag<int64_t>{});
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: break;
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: dtype_not_implemented(t, op);
  }
  return f(TypeTag<double>{});
}

// The complex dtypes; a real one raises (naming `op` when given).
template <typename F>
decltype(auto) dispatch_complex(ScalarType t, F&& f, const char* op = nullptr) {
  switch (t) {
    case ScalarType::ComplexHalf: return f(TypeTag<Complex<Half>>{});
    case ScalarType::ComplexFloat: return f(TypeTag<Complex<float>>{});
    case ScalarType::ComplexDouble: break;
    default: dtype_not_implemented(t, op);
  }
  return f(TypeTag<Complex<double>>{});
}

// Every dtype, real and complex.
template <typename F>
decltype(auto) dispatch_all(ScalarType t, F&& f) {
  if (is_complex(t)) return dispatch_complex(t, std::forward<F>(f));
  return dispatch(t, std::forward<F>(f));
}

// f(TypeTag<T>{}) for the four floating dtypes; any other dtype calls
// `otherwise()`, which throws the caller's error.
template <typename F, typename Otherwise>
void dispatch_floating(ScalarType t, F&& f, Otherwise&& otherwise) {
  switch (t) {
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: return f(TypeTag<double>{});
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    default: break;
  }
  otherwise();
}

// Same-size unsigned integer type: moving bits without converting them.
// complex128's 16-byte elements have no such type (that would instantiate
// every bit-moving kernel once more): the ops that move them do so through
// their float64 real view (tensor/complex_views.hpp), and dispatch_bits
// raises for them elsewhere.
template <size_t N> struct BitsOf;
template <> struct BitsOf<1> { using type = uint8_t; };
template <> struct BitsOf<2> { using type = uint16_t; };
template <> struct BitsOf<4> { using type = uint32_t; };
template <> struct BitsOf<8> { using type = uint64_t; };

template <typename F>
decltype(auto) dispatch_bits(size_t size, F&& f) {
  switch (size) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: break;
    default: dtype_not_implemented(ScalarType::ComplexDouble);
  }
  return f(TypeTag<uint64_t>{});
}

}  // namespace ember
