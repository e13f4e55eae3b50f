// What the elementwise and reduction loops share on both devices: the type
// each storage type is computed in, and loads/stores of an element whose dtype
// is known only at run time (the general path for mixed dtypes).
//
// Compute types: float16, bfloat16 and float32 compute in float, float64 in
// double, bool and the integers in int64 (wrap-around results are the same as
// computing in the narrow type and are kept by the final conversion);
// complex32 and complex64 in Complex<float>, complex128 in Complex<double>.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tensor/convert.hpp"
#include "tensor/dtype.hpp"
#include "tensor/half.hpp"

namespace ember::ops {

template <typename T>
struct ComputeTypeOf {
  using type = int64_t;
};
template <> struct ComputeTypeOf<Half> { using type = float; };
template <> struct ComputeTypeOf<BFloat16> { using type = float; };
template <> struct ComputeTypeOf<float> { using type = float; };
template <> struct ComputeTypeOf<double> { using type = double; };
template <> struct ComputeTypeOf<Complex<Half>> { using type = Complex<float>; };
template <> struct ComputeTypeOf<Complex<float>> { using type = Complex<float>; };
template <> struct ComputeTypeOf<Complex<double>> { using type = Complex<double>; };
template <typename T>
using compute_t = typename ComputeTypeOf<T>::type;

// The compute dtype of a dtype: Float32, Float64, Int64, ComplexFloat or
// ComplexDouble.
constexpr ScalarType compute_dtype(ScalarType t) {
  return t == ScalarType::Float64         ? ScalarType::Float64
         : is_floating(t)                 ? ScalarType::Float32
         : t == ScalarType::ComplexDouble ? ScalarType::ComplexDouble
         : is_complex(t)                  ? ScalarType::ComplexFloat
                                          : ScalarType::Int64;
}

// The storage type of a functor's result R for inputs stored as T and
// computed in C: bool for predicates, T when R is C, and T's parts when R is
// C's parts (abs and angle of complex values).
template <typename R, typename C, typename T>
using out_storage_t =
    std::conditional_t<std::is_same<R, bool>::value, bool,
                       std::conditional_t<std::is_same<R, C>::value, T, real_of_t<T>>>;
// The dtype of out_storage_t for inputs of dtype t.
template <typename R, typename C>
constexpr ScalarType out_dtype_for(ScalarType t) {
  return std::is_same<R, bool>::value ? ScalarType::Bool
         : std::is_same<R, C>::value  ? t
                                      : to_real_type(t);
}

// *p as a C, p holding an element of dtype `dt`.
template <typename C>
EMBER_HD_INLINE C load_as(const char* p, ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: return convert<C>(*reinterpret_cast<const bool*>(p));
    case ScalarType::UInt8: return convert<C>(*reinterpret_cast<const uint8_t*>(p));
    case ScalarType::Int8: return convert<C>(*reinterpret_cast<const int8_t*>(p));
    case ScalarType::Int16: return convert<C>(*reinterpret_cast<const int16_t*>(p));
    case ScalarType::Int32: return convert<C>(*reinterpret_cast<const int32_t*>(p));
    case ScalarType::Int64: return convert<C>(*reinterpret_cast<const int64_t*>(p));
    case ScalarType::Float16: return convert<C>(*reinterpret_cast<const Half*>(p));
    case ScalarType::BFloat16: return convert<C>(*reinterpret_cast<const BFloat16*>(p));
    case ScalarType::Float32: return convert<C>(*reinterpret_cast<const float*>(p));
    case ScalarType::Float64: break;
    // Complex inputs reach complex compute types only (a complex operand
    // makes the common dtype complex, and ops without complex kernels refuse
    // them in make_elementwise): the real kernels carry no complex loads.
    case ScalarType::ComplexHalf:
      if constexpr (is_complex_v<C>) return convert<C>(*reinterpret_cast<const Complex<Half>*>(p));
      break;
    case ScalarType::ComplexFloat:
      if constexpr (is_complex_v<C>) return convert<C>(*reinterpret_cast<const Complex<float>*>(p));
      break;
    case ScalarType::ComplexDouble:
      if constexpr (is_complex_v<C>) {
        return convert<C>(*reinterpret_cast<const Complex<double>*>(p));
      }
      break;
  }
  return convert<C>(*reinterpret_cast<const double*>(p));
}

// *p = v converted to dtype `dt`.
template <typename R>
EMBER_HD_INLINE void store_as(char* p, ScalarType dt, R v) {
  switch (dt) {
    case ScalarType::Bool: *reinterpret_cast<bool*>(p) = convert<bool>(v); return;
    case ScalarType::UInt8: *reinterpret_cast<uint8_t*>(p) = convert<uint8_t>(v); return;
    case ScalarType::Int8: *reinterpret_cast<int8_t*>(p) = convert<int8_t>(v); return;
    case ScalarType::Int16: *reinterpret_cast<int16_t*>(p) = convert<int16_t>(v); return;
    case ScalarType::Int32: *reinterpret_cast<int32_t*>(p) = convert<int32_t>(v); return;
    case ScalarType::Int64: *reinterpret_cast<int64_t*>(p) = convert<int64_t>(v); return;
    case ScalarType::Float16: *reinterpret_cast<Half*>(p) = convert<Half>(v); return;
    case ScalarType::BFloat16: *reinterpret_cast<BFloat16*>(p) = convert<BFloat16>(v); return;
    case ScalarType::Float32: *reinterpret_cast<float*>(p) = convert<float>(v); return;
    case ScalarType::Float64: break;
    case ScalarType::ComplexHalf:
      *reinterpret_cast<Complex<Half>*>(p) = convert<Complex<Half>>(v);
      return;
    case ScalarType::ComplexFloat:
      *reinterpret_cast<Complex<float>*>(p) = convert<Complex<float>>(v);
      return;
    case ScalarType::ComplexDouble:
      *reinterpret_cast<Complex<double>*>(p) = convert<Complex<double>>(v);
      return;
  }
  *reinterpret_cast<double*>(p) = convert<double>(v);
}

// v (an input's value in its compute type C) as it is after a conversion to
// dtype `to`: rounded to float16/bfloat16, wrapped to a narrower integer.
// torch converts every input to the op's common dtype before computing, so an
// input of another dtype goes through it (int16 2049 + float16 gives 2048 + x;
// uint8 > int64 -4 compares with 252). Identity for float32, float64, int64.
template <typename C>
EMBER_HD_INLINE C round_through(C v, ScalarType to) {
  switch (to) {
    case ScalarType::Bool: return convert<C>(convert<bool>(v));
    case ScalarType::UInt8: return convert<C>(convert<uint8_t>(v));
    case ScalarType::Int8: return convert<C>(convert<int8_t>(v));
    case ScalarType::Int16: return convert<C>(convert<int16_t>(v));
    case ScalarType::Int32: return convert<C>(convert<int32_t>(v));
    case ScalarType::Float16: return convert<C>(convert<Half>(v));
    case ScalarType::BFloat16: return convert<C>(convert<BFloat16>(v));
    case ScalarType::ComplexHalf: return convert<C>(convert<Complex<Half>>(v));
    default: return v;
  }
}

// A functor's result (in its compute type, or bool) as the op's result dtype
// `to` has it, before it is converted to an out= tensor of another dtype:
// torch computes in the result dtype, then casts (bool + bool into a float
// out= is 1, not 2; bfloat16 * 1e5 into a float64 out= is rounded to bfloat16).
template <typename R>
EMBER_HD_INLINE R round_result(R v, ScalarType to) {
  if constexpr (std::is_same<R, bool>::value) {
    return v;
  } else {
    return round_through(v, to);
  }
}

// Whether inputs of other dtypes must round through `common` before an op
// computing in compute_dtype(common): only when common is narrower than that.
constexpr bool rounds_through(ScalarType common) {
  return common != ScalarType::Float32 && common != ScalarType::Float64 &&
         common != ScalarType::Int64 && common != ScalarType::ComplexFloat &&
         common != ScalarType::ComplexDouble;
}

// Calls f with the first NIN values of a (the functors take 1 to 3 arguments).
template <typename F, typename C>
EMBER_HD_INLINE auto apply_n(const F& f, const C (&a)[1]) { return f(a[0]); }
template <typename F, typename C>
EMBER_HD_INLINE auto apply_n(const F& f, const C (&a)[2]) { return f(a[0], a[1]); }
template <typename F, typename C>
EMBER_HD_INLINE auto apply_n(const F& f, const C (&a)[3]) { return f(a[0], a[1], a[2]); }

// The result type of F on NIN arguments of type C.
template <typename F, typename C, int NIN>
struct ResultOf;
template <typename F, typename C>
struct ResultOf<F, C, 1> { using type = decltype(std::declval<F>()(C{})); };
template <typename F, typename C>
struct ResultOf<F, C, 2> { using type = decltype(std::declval<F>()(C{}, C{})); };
template <typename F, typename C>
struct ResultOf<F, C, 3> { using type = decltype(std::declval<F>()(C{}, C{}, C{})); };

}  // namespace ember::ops
