// The activations on the GPU: activation_functors.hpp through the elementwise
// CUDA runner (vectorised flat kernels for contiguous inputs of one dtype, so
// a forward or backward pass is one read and one write at memory bandwidth).
#include "ops/elementwise.cuh"
#include "ops/pointwise/activation.hpp"
#include "ops/pointwise/activation_functors.hpp"

namespace ember::ops::internal {

void activation_cuda(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& args,
                     bool backward, bool from_output) {
  CudaRunner r{it};
  dispatch_activation(op, it, args, backward, from_output, r);
}

}  // namespace ember::ops::internal
