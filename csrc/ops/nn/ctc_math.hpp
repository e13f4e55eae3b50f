// The per-state arithmetic of ctc_loss that the CPU loops (ctc.cpp) and the
// CUDA kernels (ctc.cu) share: log-space sums and the extended target.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "tensor/half.hpp"

namespace ember::ops::ctc_math {

template <typename A>
EMBER_HD_INLINE A neg_inf() {
  return -std::numeric_limits<A>::infinity();
}

// log(exp(a) + exp(b) + exp(c)), -inf when all are -inf.
template <typename A>
EMBER_HD_INLINE A log_sum3(A a, A b, A c) {
  A m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == neg_inf<A>()) return m;
  return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

template <typename A>
EMBER_HD_INLINE A log_add(A a, A b) {
  return log_sum3<A>(a, b, neg_inf<A>());
}

// The class of extended state s: blank for even s, the (s / 2)-th target otherwise.
EMBER_HD_INLINE int64_t ext_label(const int64_t* tg, int64_t off, int64_t stride, int64_t s,
                                  int64_t blank) {
  return (s & 1) ? tg[off + (s >> 1) * stride] : blank;
}

}  // namespace ember::ops::ctc_math
