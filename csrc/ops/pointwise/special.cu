// The special functions on the GPU: special_functors.hpp through the
// elementwise CUDA runner (compiled ahead of time: float and double compute
// types, int64 for gcd/lcm).
#include "ops/elementwise.cuh"
#include "ops/pointwise/special.hpp"
#include "ops/pointwise/special_functors.hpp"

namespace ember::ops::internal {

void special_cuda(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args) {
  CudaRunner r{it};
  dispatch_special(op, it, args, r);
}

}  // namespace ember::ops::internal
