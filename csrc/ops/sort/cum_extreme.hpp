// torch.cummax / torch.cummin: running extreme along a dim and the index
// where it was last taken. torch's rule: a NaN is taken (and propagates: only
// a later NaN moves the index), and an element equal to the running extreme
// moves the index to itself (cummax uses >=, cummin <=).
//
// Results are contiguous, of x's shape and dtype (indices int64). One running
// extreme per line (sort.hpp's LinePlan): lines over the thread pool on the
// CPU, one GPU thread per line (a single very long line is therefore serial
// on the GPU).
#pragma once

#include <utility>

#include "ops/sort/sort.hpp"
#include "tensor/half.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

std::pair<Tensor, Tensor> cum_extreme(bool is_max, const Tensor& x, int64_t dim);

// The step both devices run: true when v replaces the running extreme `best`.
template <typename C>
EMBER_HD_INLINE bool takes_extreme(C v, C best, bool is_max) {
  if (v != v) return true;        // NaN (never for integers)
  if (best != best) return false;  // a NaN stays
  return is_max ? v >= best : v <= best;
}

namespace internal {
#if EMBER_WITH_CUDA
void cum_extreme_cuda(bool is_max, const Tensor& xc, const LinePlan& p, const Tensor& values,
                      const Tensor& indices);
#endif
}  // namespace internal

}  // namespace ember::ops
