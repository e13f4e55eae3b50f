// From a runtime ScalarType to the C++ type that stores it, for templated
// loops and kernels:
//
//   dispatch(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
//
// CppType<ScalarType::Float16>::type is ember::Half; bool is stored as bool
// (one byte, 0 or 1), as torch and numpy do.
#pragma once

#include <cstdint>
#include <utility>

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

template <typename F>
decltype(auto) dispatch(ScalarType t, F&& f) {
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
  }
  return f(TypeTag<double>{});
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
    default: break;
  }
  return f(TypeTag<uint64_t>{});
}

}  // namespace ember
