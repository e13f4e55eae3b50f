// neg, abs, sign, square, relu, rounding, nan_to_num and the predicates on
// the GPU: unary_functors.hpp through the elementwise CUDA runner.
#include "ops/elementwise.cuh"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/unary.hpp"
#include "ops/pointwise/unary_functors.hpp"

namespace ember::ops::internal {

void unary_basic_cuda(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args) {
  if (is_complex(it.common)) return unary_complex_cuda(op, it);
  CudaRunner r{it};
  dispatch_unary_basic(op, it, args, r);
}

}  // namespace ember::ops::internal
