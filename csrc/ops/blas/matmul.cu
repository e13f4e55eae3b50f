// The two elementwise pieces the products need before issue 6's math exists:
// out *= beta (addmm with an empty inner dimension) and the outer product.
// Both run on the current stream of the tensor's device.
#include "ops/cuda_loops.cuh"
#include "ops/blas/matmul.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

template <typename T>
__global__ void scale_kernel(IterLayout<1> it, double beta) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t off[1];
    offsets<1>(it, i, off);
    T* p = reinterpret_cast<T*>(it.data[0] + off[0]);
    *p = static_cast<T>(static_cast<float>(*p) * static_cast<float>(beta));
  }
}

template <>
__global__ void scale_kernel<double>(IterLayout<1> it, double beta) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t off[1];
    offsets<1>(it, i, off);
    double* p = reinterpret_cast<double*>(it.data[0] + off[0]);
    *p *= beta;
  }
}

template <typename T>
__device__ __forceinline__ T mul(T x, T y) {
  return x * y;
}
template <>
__device__ __forceinline__ bool mul(bool x, bool y) {
  return x && y;
}
template <>
__device__ __forceinline__ Half mul(Half x, Half y) {
  return Half(static_cast<float>(x) * static_cast<float>(y));
}
template <>
__device__ __forceinline__ BFloat16 mul(BFloat16 x, BFloat16 y) {
  return BFloat16(static_cast<float>(x) * static_cast<float>(y));
}

// out is contiguous [m, n].
template <typename T>
__global__ void outer_kernel(T* out, const T* a, int64_t sa, const T* b, int64_t sb, int64_t m,
                             int64_t n) {
  const int64_t total = m * n;
  for (int64_t i = global_id(); i < total; i += grid_size()) {
    const int64_t r = i / n, c = i - r * n;
    out[i] = mul<T>(a[r * sa], b[c * sb]);
  }
}

}  // namespace

namespace internal {

void scale_cuda(const Tensor& out, double beta) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const IterLayout<1> it = make_iter<1>(out.sizes(), {&out});
  dispatch_floating(
      out.dtype(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        scale_kernel<T><<<blocks_for(it.numel, 4), kThreads, 0, stream>>>(it, beta);
      },
      [&] { throw Error(detail::str("scale_cuda: unsupported dtype ", dtype_name(out.dtype()))); });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void outer_cuda(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    outer_kernel<T><<<blocks_for(out.numel(), 4), kThreads, 0, stream>>>(
        static_cast<T*>(out.data_ptr()), static_cast<const T*>(a.data_ptr()), a.stride(0),
        static_cast<const T*>(b.data_ptr()), b.stride(0), a.size(0), b.size(0));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
