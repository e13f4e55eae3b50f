// torch.cummax / cummin on the GPU: one thread per line (cum_extreme.hpp).
#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/sort/cum_extreme.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

template <typename T, typename C>
__global__ void cum_extreme_kernel(const T* in, int64_t lines, int64_t n, int64_t inner,
                                   bool is_max, T* out, int64_t* idx) {
  for (int64_t r = cuda_loops::global_id(); r < lines; r += cuda_loops::grid_size()) {
    const int64_t o = r / inner, i = r - o * inner;
    const int64_t base = o * n * inner + i;
    C best = C(in[base]);
    T best_t = in[base];
    int64_t at = 0;
    for (int64_t j = 0; j < n; ++j) {
      const T vt = in[base + j * inner];
      const C v = C(vt);
      if (takes_extreme<C>(v, best, is_max)) {
        best = v;
        best_t = vt;
        at = j;
      }
      out[base + j * inner] = best_t;
      idx[base + j * inner] = at;
    }
  }
}

}  // namespace

namespace internal {

void cum_extreme_cuda(bool is_max, const Tensor& xc, const LinePlan& p, const Tensor& values,
                      const Tensor& indices) {
  const int dev = xc.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t lines = p.outer * p.inner;
  dispatch(xc.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value,
                                 float, T>;
    cum_extreme_kernel<T, C><<<cuda_loops::blocks_for(lines), cuda_loops::kThreads, 0, stream>>>(
        static_cast<const T*>(xc.data_ptr()), lines, p.n, p.inner, is_max,
        static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
