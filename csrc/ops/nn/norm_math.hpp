// The per-channel / per-row arithmetic that the CPU loops (norm.cpp) and the
// CUDA kernels (norm.cu) share, so that both compute the same statistics.
// A is the accumulation type: float for float16/bfloat16/float32 data, double
// for float64 data.
#pragma once

#include <cmath>
#include <cstdint>

#include "tensor/half.hpp"

namespace ember::ops::norm_math {

template <typename T>
struct Acc {
  using type = float;
};
template <>
struct Acc<double> {
  using type = double;
};

// What batch_norm's forward needs per channel: the statistics it normalises
// with (saved for backward) and y = (x - mean) * scale + shift.
template <typename A>
struct ChannelAffine {
  A mean, invstd, scale, shift;
};

// Training: s1 = sum(x - pivot), s2 = sum((x - pivot)^2) over `count` values
// (shifted sums: exact enough when the pivot, one of the values, is near the
// mean). Updates *rm/*rv (when non-null) with the unbiased variance.
template <typename A>
EMBER_HD_INLINE ChannelAffine<A> bn_train_channel(double s1, double s2, double pivot,
                                                  int64_t count, const A* w, const A* b, A* rm,
                                                  A* rv, double momentum, double eps) {
  const double n = static_cast<double>(count);
  const double d = s1 / n;
  double var = s2 / n - d * d;
  var = var > 0.0 ? var : 0.0;
  const double mean = pivot + d;
  if (rm != nullptr) *rm = static_cast<A>((1.0 - momentum) * static_cast<double>(*rm) + momentum * mean);
  if (rv != nullptr) {
    const double unbiased = count > 1 ? var * n / (n - 1.0) : var;
    *rv = static_cast<A>((1.0 - momentum) * static_cast<double>(*rv) + momentum * unbiased);
  }
  const double invstd = 1.0 / sqrt(var + eps);
  const double scale = (w != nullptr ? static_cast<double>(*w) : 1.0) * invstd;
  const double shift = b != nullptr ? static_cast<double>(*b) : 0.0;
  return {static_cast<A>(mean), static_cast<A>(invstd), static_cast<A>(scale),
          static_cast<A>(shift)};
}

// Evaluation: the running statistics.
template <typename A>
EMBER_HD_INLINE ChannelAffine<A> bn_eval_channel(A rm, A rv, const A* w, const A* b, double eps) {
  const double mean = static_cast<double>(rm);
  const double invstd = 1.0 / sqrt(static_cast<double>(rv) + eps);
  const double scale = (w != nullptr ? static_cast<double>(*w) : 1.0) * invstd;
  const double shift = b != nullptr ? static_cast<double>(*b) : 0.0;
  return {static_cast<A>(mean), static_cast<A>(invstd), static_cast<A>(scale),
          static_cast<A>(shift)};
}

// batch_norm's backward per channel, from sdy = sum(dy) and
// sdyx = sum(dy * (x - mean)): dx = dy * k1 + (x - mean) * k2 + k3, and the weight's
// and bias's gradients. Training differentiates through the batch
// statistics; evaluation does not (they are constants).
template <typename A>
struct ChannelGrad {
  A k1, k2, k3, dw, db;
};

template <typename A>
EMBER_HD_INLINE ChannelGrad<A> bn_backward_channel(double sdy, double sdyx, A mean, A invstd,
                                                   const A* w, int64_t count, bool training) {
  const double is = static_cast<double>(invstd);
  const double wv = w != nullptr ? static_cast<double>(*w) : 1.0;
  const double k1 = wv * is;
  double k2 = 0.0, k3 = 0.0;
  if (training && count > 0) {
    const double n = static_cast<double>(count);
    k2 = -k1 * is * is * sdyx / n;
    k3 = -k1 * sdy / n;
  }
  return {static_cast<A>(k1), static_cast<A>(k2), static_cast<A>(k3),
          static_cast<A>(sdyx * is), static_cast<A>(sdy)};
}

}  // namespace ember::ops::norm_math
