// The special functions on the GPU (lgamma, digamma, polygamma, erfinv, the
// Bessel functions, igamma, zeta, ...).
//
// Every op goes through the elementwise machinery's dynamic kernel only (one
// kernel per function and compute type, loads and stores converted at run
// time), not its per-dtype vectorised kernels: these functions are rarely hot
// and compute-bound (series, continued fractions, recurrences), so the
// vectorised copies would buy little and cost ~3x the kernels -- this file was
// the slowest of the build to compile with them.
#include "ops/elementwise.cuh"
#include "ops/pointwise/special.hpp"
#include "ops/pointwise/special_functors.hpp"

namespace ember::ops::internal {

namespace {

struct DynamicOnlyRunner {
  const ElementwiseIter& it;
  template <typename C, int NIN, typename F>
  void run(const F& f) {
    if (it.numel() == 0) return;
    const int dev = it.out.device().index;
    cuda::DeviceGuard guard(dev);
    cudaStream_t stream = cuda::current_stream(dev).handle();
    C byval[NIN];
    for (int k = 0; k < NIN; ++k) byval[k] = it.by_value[k + 1] ? it.value[k + 1].to<C>() : C{};
    cuda_detail::launch_dynamic<C, NIN>(it, f, byval, stream);
  }
};

}  // namespace

void special_cuda(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args) {
  DynamicOnlyRunner r{it};
  dispatch_special(op, it, args, r);
}

}  // namespace ember::ops::internal
