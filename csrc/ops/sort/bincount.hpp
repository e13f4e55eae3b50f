// torch.bincount's core (histc and histogram count through it too): out[b] =
// the number (or the summed weights) of the elements of `idx` equal to b, for
// b in [0, nbins); indices outside that range are skipped (histc's values
// outside [min, max]). The Python layer checks torch's rules (1-D,
// non-negative, integral) and picks nbins.
//
// idx: contiguous int64; weights: undefined (int64 counts) or a contiguous
// float32/float64 tensor of idx's numel (counts of its dtype). CPU: one pass;
// GPU: atomics (the order of floating additions is unspecified, as torch's).
#pragma once

#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor bincount(const Tensor& idx, const Tensor& weights, int64_t nbins);

namespace internal {
#if EMBER_WITH_CUDA
void bincount_cuda(const Tensor& idx, const Tensor& weights, const Tensor& out);
#endif
}  // namespace internal

}  // namespace ember::ops
