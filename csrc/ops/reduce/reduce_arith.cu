// sum, prod, mean, var/std, norm, logsumexp, all, any on the GPU.
#include "ops/reduce/reduce_kernels.cuh"

namespace ember::ops::internal {

void reduce_arith_cuda(const ReducePlan& plan, const ReduceParams& p, const ReduceOutputs& o) {
  reduce_cuda::Runner r{plan, o};
  dispatch_reduce_arith(p, r);
}

}  // namespace ember::ops::internal
