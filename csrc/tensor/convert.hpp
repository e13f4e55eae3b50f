// Converting one element between any two dtypes, on the host and in kernels,
// with torch's rules: anything -> bool is `!= 0` (NaN is true); bool -> 0/1;
// float16/bfloat16 go through float; floating -> narrow integer goes through
// int64 (so -1.0 -> uint8 is 255, as in torch and numpy). Out-of-range float to
// integer conversions are unspecified, as in C++, torch and numpy, but never trap.
// Complex values: real -> complex has imaginary part 0; complex -> real keeps
// the real part (torch warns about that in its bindings, so does ember's);
// complex -> bool is true when either part is nonzero; complex -> complex
// converts each part.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tensor/complex.hpp"
#include "tensor/half.hpp"

namespace ember {

template <typename T>
struct is_reduced_float : std::integral_constant<bool, std::is_same<T, Half>::value ||
                                                           std::is_same<T, BFloat16>::value> {};

template <typename D, typename S>
EMBER_HD_INLINE D convert(S s) {
  if constexpr (std::is_same<D, S>::value) {
    return s;
  } else if constexpr (is_complex_v<S>) {
    if constexpr (is_complex_v<D>) {
      using R = real_of_t<D>;
      return D(convert<R>(s.re), convert<R>(s.im));
    } else if constexpr (std::is_same<D, bool>::value) {
      return convert<bool>(s.re) || convert<bool>(s.im);
    } else {
      return convert<D>(s.re);
    }
  } else if constexpr (is_complex_v<D>) {
    using R = real_of_t<D>;
    return D(convert<R>(s), R(0.0f));
  } else if constexpr (is_reduced_float<S>::value) {
    return convert<D, float>(static_cast<float>(s));
  } else if constexpr (std::is_same<D, bool>::value) {
    return s != S(0);
  } else if constexpr (std::is_same<S, bool>::value) {
    return convert<D, int>(s ? 1 : 0);
  } else if constexpr (is_reduced_float<D>::value) {
    return D(static_cast<float>(s));
  } else if constexpr (std::is_integral<D>::value && std::is_floating_point<S>::value &&
                       sizeof(D) < 8) {
    return static_cast<D>(static_cast<int64_t>(s));
  } else {
    return static_cast<D>(s);
  }
}

}  // namespace ember
