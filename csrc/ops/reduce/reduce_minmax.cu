// amax, amin, argmax, argmin and max/min with indices on the GPU.
#include "ops/reduce/reduce_kernels.cuh"

namespace ember::ops::internal {

void reduce_minmax_cuda(const ReducePlan& plan, const ReduceParams& p, const ReduceOutputs& o) {
  reduce_cuda::Runner r{plan, o};
  dispatch_reduce_minmax(p, r);
}

}  // namespace ember::ops::internal
