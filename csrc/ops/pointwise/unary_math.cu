// The floating unary functions on the GPU (sqrt, exp, log, trig, erf,
// sigmoid, gelu, silu, ...): unary_functors.hpp through the elementwise CUDA
// runner; float and double compute types only. The rarely used ones
// (unary_math_is_jit) are compiled at first use instead (unary_jit.cpp).
#include "ops/elementwise.cuh"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/unary.hpp"
#include "ops/pointwise/unary_functors.hpp"

namespace ember::ops::internal {

void unary_math_cuda(UnaryOp op, const ElementwiseIter& it, const UnaryArgs&) {
  if (is_complex(it.common)) return unary_complex_cuda(op, it);
  if (unary_math_is_jit(op)) return unary_math_jit(op, it);
  CudaRunner r{it};
  dispatch_unary_math</*kRare=*/false>(op, it, r);
}

}  // namespace ember::ops::internal
