// where, clamp, lerp, addcmul, addcdiv on the GPU: ternary_functors.hpp
// through the elementwise CUDA runner.
#include "ops/elementwise.cuh"
#include "ops/pointwise/ternary.hpp"
#include "ops/pointwise/ternary_functors.hpp"

namespace ember::ops::internal {

void ternary_cuda(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& args) {
  CudaRunner r{it};
  dispatch_ternary(op, it, args, r);
}

}  // namespace ember::ops::internal
