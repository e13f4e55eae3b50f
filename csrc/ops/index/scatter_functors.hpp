// The combine step of scatter's reductions, shared by the CPU loops and the
// GPU's compare-and-swap atomics: add, multiply, max, min in T (float for
// float16/bfloat16; or/and for bool). max/min propagate NaN, as torch's.
#pragma once

#include <type_traits>

#include "ops/index/scatter_gather.hpp"
#include "tensor/convert.hpp"
#include "tensor/half.hpp"

namespace ember::ops {

template <int R, typename T>
EMBER_HD_INLINE T scatter_combine(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    if constexpr (R == int(ScatterReduce::Add) || R == int(ScatterReduce::Max)) {
      return a || b;
    } else {
      return a && b;
    }
  } else if constexpr (is_reduced_float<T>::value) {
    const float x = static_cast<float>(a), y = static_cast<float>(b);
    return T(scatter_combine<R, float>(x, y));
  } else if constexpr (R == int(ScatterReduce::Add)) {
    return static_cast<T>(a + b);
  } else if constexpr (R == int(ScatterReduce::Mul)) {
    return static_cast<T>(a * b);
  } else if constexpr (R == int(ScatterReduce::Max)) {
    return (a != a) ? a : (b != b) ? b : (a > b ? a : b);  // NaN wins
  } else {
    return (a != a) ? a : (b != b) ? b : (a < b ? a : b);
  }
}

}  // namespace ember::ops
