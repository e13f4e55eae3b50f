// torch.searchsorted's core (bucketize is searchsorted with the arguments
// swapped): for each value, the index of the first element of its sorted
// line that is not less than it (right: greater than it), by torch's
// comparisons: a NaN value goes past every element, as in torch.
//
// `seq` is contiguous and 1-D (one line for every value) or of values'
// leading dims (line k for the values of row k); both of one dtype (the
// Python layer promotes them and applies `sorter`). The result, int64 or
// int32, has values' shape. One thread per value on the GPU, a binary search
// each; the CPU spreads the values over the thread pool.
#pragma once

#include <cstdint>

#include "tensor/half.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor searchsorted(const Tensor& seq, const Tensor& values, bool right, bool out_int32);

// The binary search both devices run (torch's cus_lower_bound/upper_bound).
template <typename T>
EMBER_HD_INLINE int64_t sorted_bound(const T* seq, int64_t len, T v, bool right) {
  int64_t lo = 0, hi = len;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const T m = seq[mid];
    const bool after = right ? !(m > v) : !(m >= v);
    if (after) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

namespace internal {
#if EMBER_WITH_CUDA
void searchsorted_cuda(const Tensor& seq, const Tensor& values, bool right, const Tensor& out);
#endif
}  // namespace internal

}  // namespace ember::ops
