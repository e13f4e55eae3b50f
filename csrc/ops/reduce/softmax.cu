// softmax's exp(x - lse) step on the GPU (elementwise CUDA runner).
#include "ops/elementwise.cuh"
#include "ops/reduce/softmax.hpp"
#include "ops/reduce/softmax_functors.hpp"

namespace ember::ops::internal {

void exp_diff_cuda(const ElementwiseIter& it, bool log) {
  CudaRunner r{it};
  dispatch_exp_diff(it, log, r);
}

}  // namespace ember::ops::internal
