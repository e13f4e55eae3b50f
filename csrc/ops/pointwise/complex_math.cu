// The transcendental unary functions of complex values on the GPU (sqrt,
// rsqrt, exp, log, log2, log10, sin, cos, tan, sinh, cosh, tanh, sigmoid):
// complex_functors.hpp through the elementwise CUDA runner, compiled apart
// from complex_arith.cu so that the two build in parallel.
#include "ops/elementwise.cuh"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/complex_functors.hpp"

namespace ember::ops::internal {

void unary_complex_math_cuda(UnaryOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_unary_complex_math(op, it, r);
}

}  // namespace ember::ops::internal
