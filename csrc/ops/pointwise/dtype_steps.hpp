// torch's float16/bfloat16 arithmetic where its kernels compute in the dtype
// itself (scalar_t, not opmath): each step's float result rounded to the
// dtype. Shared by the binary and unary functors of both devices.
#pragma once

#include <type_traits>

#include "tensor/half.hpp"

namespace ember::ops {

// Which dtype the steps round to: none (0), float16 (1), bfloat16 (2).
template <typename C>
EMBER_HD_INLINE C round_step(C x, int to) {
  if constexpr (std::is_same<C, float>::value) {
    if (to == 1) return static_cast<float>(Half(x));
    if (to == 2) return static_cast<float>(BFloat16(x));
  }
  return x;
}

}  // namespace ember::ops
