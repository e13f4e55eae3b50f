// torch.bincount on the GPU: one atomic add per element (bincount.hpp).
#include "ops/cuda_loops.cuh"
#include "ops/sort/bincount.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

__device__ __forceinline__ void add_to(int64_t* p, const int64_t*, int64_t) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), 1ull);
}
__device__ __forceinline__ void add_to(float* p, const float* w, int64_t k) { atomicAdd(p, w[k]); }
__device__ __forceinline__ void add_to(double* p, const double* w, int64_t k) { atomicAdd(p, w[k]); }

template <typename W>
__global__ void bincount_kernel(const int64_t* ix, const W* w, int64_t n, W* out, int64_t nbins) {
  for (int64_t k = cuda_loops::global_id(); k < n; k += cuda_loops::grid_size()) {
    const int64_t b = ix[k];
    if (b >= 0 && b < nbins) add_to(out + b, w, k);
  }
}

template <typename W>
void launch(const Tensor& idx, const Tensor& weights, const Tensor& out, cudaStream_t stream) {
  const int64_t n = idx.numel();
  bincount_kernel<W><<<cuda_loops::blocks_for(n), cuda_loops::kThreads, 0, stream>>>(
      static_cast<const int64_t*>(idx.data_ptr()),
      weights.defined() ? static_cast<const W*>(weights.data_ptr()) : nullptr, n,
      static_cast<W*>(out.data_ptr()), out.numel());
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace

namespace internal {

void bincount_cuda(const Tensor& idx, const Tensor& weights, const Tensor& out) {
  const int dev = idx.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  switch (out.dtype()) {
    case ScalarType::Float32: return launch<float>(idx, weights, out, stream);
    case ScalarType::Float64: return launch<double>(idx, weights, out, stream);
    default: return launch<int64_t>(idx, weights, out, stream);
  }
}

}  // namespace internal

}  // namespace ember::ops
