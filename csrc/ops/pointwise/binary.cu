// The arithmetic binary ops on the GPU: binary_functors.hpp's functors through
// the elementwise CUDA runner (3 flat kernels for float, 1 for double, 6 for
// bool and the integers, plus one dynamic kernel per compute type, per op).
#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/binary_functors.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/elementwise.cuh"

namespace ember::ops::internal {

void binary_cuda(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args) {
  if (is_complex(it.common)) return binary_complex_cuda(op, it, args.alpha);
  CudaRunner r{it};
  dispatch_binary(op, it, args, r);
}

}  // namespace ember::ops::internal
