// torch.searchsorted on the GPU: one thread per value, a binary search in its
// line (search.hpp).
#include "ops/cuda_loops.cuh"
#include "ops/sort/search.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

template <typename T>
__global__ void searchsorted_kernel(const T* seq, int64_t len, const T* v, int64_t total,
                                    int64_t m, bool right, int64_t* out64, int32_t* out32) {
  for (int64_t k = cuda_loops::global_id(); k < total; k += cuda_loops::grid_size()) {
    const int64_t r = k / m;
    const int64_t pos = sorted_bound<T>(seq + r * len, len, v[k], right);
    if (out32) {
      out32[k] = static_cast<int32_t>(pos);
    } else {
      out64[k] = pos;
    }
  }
}

}  // namespace

namespace internal {

void searchsorted_cuda(const Tensor& seq, const Tensor& values, bool right, const Tensor& out) {
  const int dev = values.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t len = seq.sizes().back();
  const int64_t m = seq.dim() > 1 ? values.sizes().back() : values.numel();
  const int64_t total = values.numel();
  const bool i32 = out.dtype() == ScalarType::Int32;
  dispatch(seq.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    searchsorted_kernel<T><<<cuda_loops::blocks_for(total), cuda_loops::kThreads, 0, stream>>>(
        static_cast<const T*>(seq.data_ptr()), len, static_cast<const T*>(values.data_ptr()),
        total, m, right, i32 ? nullptr : static_cast<int64_t*>(out.data_ptr()),
        i32 ? static_cast<int32_t*>(out.data_ptr()) : nullptr);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
