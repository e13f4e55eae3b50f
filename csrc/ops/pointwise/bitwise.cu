// Bitwise ops on the GPU: bitwise_functors.hpp through the elementwise CUDA
// runner (int64 compute: one flat kernel per integer/bool storage type).
#include "ops/pointwise/bitwise.hpp"
#include "ops/pointwise/bitwise_functors.hpp"
#include "ops/elementwise.cuh"

namespace ember::ops::internal {

void bitwise_cuda(BitwiseOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_bitwise(op, r);
}

void bitwise_not_cuda(const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_bitwise_not(it, r);
}

}  // namespace ember::ops::internal
