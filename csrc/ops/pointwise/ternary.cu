// where, clamp, lerp, addcmul, addcdiv on the GPU: ternary_functors.hpp
// through the elementwise CUDA runner.
#include "ops/elementwise.cuh"
#include "ops/pointwise/ternary.hpp"
#include "ops/pointwise/ternary_functors.hpp"
#include "ops/pointwise/complex.hpp"

namespace ember::ops::internal {

void ternary_cuda(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& args) {
  if (is_complex(it.common)) return ternary_complex_cuda(op, it);
  CudaRunner r{it};
  dispatch_ternary(op, it, args, r);
}

}  // namespace ember::ops::internal
