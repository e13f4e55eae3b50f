// The element formulas of arange and linspace, shared by the CPU loops
// (fill.cpp) and the CUDA kernels (fill.cu).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tensor/convert.hpp"

namespace ember::ops {

struct ArangeParams {
  int64_t istart, istep;  // integer dtypes
  double dstart, dstep;   // floating dtypes
};

template <typename T>
EMBER_HD_INLINE T arange_value(const ArangeParams& p, int64_t i) {
  if constexpr (std::is_integral<T>::value) {
    return convert<T, int64_t>(static_cast<int64_t>(static_cast<uint64_t>(p.istart) +
                                                    static_cast<uint64_t>(i) *
                                                        static_cast<uint64_t>(p.istep)));
  } else {
    return convert<T, double>(p.dstart + static_cast<double>(i) * p.dstep);
  }
}

struct LinspaceParams {
  double start, end, step;
  int64_t n;
};

// torch's symmetric formula: the first half counts up from start, the second
// half down from end (one step: just start).
template <typename T>
EMBER_HD_INLINE T linspace_value(const LinspaceParams& p, int64_t i) {
  if (p.n == 1) return convert<T, double>(p.start);
  const double v = i < p.n / 2 ? p.start + p.step * static_cast<double>(i)
                               : p.end - p.step * static_cast<double>(p.n - i - 1);
  return convert<T, double>(v);
}

}  // namespace ember::ops
