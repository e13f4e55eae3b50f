// Comparisons and logical ops on the GPU: compare_functors.hpp through the
// elementwise CUDA runner (flat kernels write bool).
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/compare_functors.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/elementwise.cuh"

namespace ember::ops::internal {

void compare_cuda(CompareOp op, const ElementwiseIter& it) {
  if (is_complex(it.common)) return compare_complex_cuda(op, it);
  CudaRunner r{it};
  dispatch_compare(op, it, r);
}

}  // namespace ember::ops::internal
