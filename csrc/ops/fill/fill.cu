// GPU fills: a constant (zeros use cudaMemsetAsync), and the arange/linspace
// sequences. One kernel template per dtype; contiguous tensors take a
// vectorised grid-stride loop.
#include <cstring>

#include "ops/fill/affine.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/fill/fill.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace internal {
ArangeParams arange_params_for_cuda(const Scalar& start, const Scalar& step);
}

namespace {

using namespace cuda_loops;

constexpr int kVec = 4;

template <typename T>
__global__ void fill_contiguous_kernel(T* __restrict__ out, int64_t n, T value, bool aligned) {
  const int64_t start = global_id(), step = grid_size();
  int64_t tail = 0;
  if (aligned) {
    Vec<T, kVec> v;
#pragma unroll
    for (int k = 0; k < kVec; ++k) v.v[k] = value;
    auto* ov = reinterpret_cast<Vec<T, kVec>*>(out);
    const int64_t nv = n / kVec;
    for (int64_t j = start; j < nv; j += step) ov[j] = v;
    tail = nv * kVec;
  }
  for (int64_t j = tail + start; j < n; j += step) out[j] = value;
}

template <typename T>
__global__ void fill_strided_kernel(IterLayout<1> it, T value) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t off[1];
    offsets<1>(it, i, off);
    *reinterpret_cast<T*>(it.data[0] + off[0]) = value;
  }
}

template <typename T>
__global__ void arange_kernel(T* out, int64_t stride, int64_t n, ArangeParams p) {
  for (int64_t i = global_id(); i < n; i += grid_size()) out[i * stride] = arange_value<T>(p, i);
}

template <typename T>
__global__ void linspace_kernel(T* out, int64_t stride, LinspaceParams p) {
  for (int64_t i = global_id(); i < p.n; i += grid_size()) {
    out[i * stride] = linspace_value<T>(p, i);
  }
}

}  // namespace

namespace internal {

void fill_cuda(const Tensor& t, const Scalar& v) {
  const int dev = t.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = v.to<T>();
    const T zero{};
    if (t.is_contiguous()) {
      if (std::memcmp(&value, &zero, sizeof(T)) == 0) {
        EMBER_CUDA_CHECK(cudaMemsetAsync(t.data_ptr(), 0, t.nbytes(), stream));
        return;
      }
      auto* out = static_cast<T*>(t.data_ptr());
      const bool aligned = reinterpret_cast<uintptr_t>(out) % sizeof(Vec<T, kVec>) == 0;
      fill_contiguous_kernel<T>
          <<<blocks_for(t.numel(), kVec), kThreads, 0, stream>>>(out, t.numel(), value, aligned);
    } else {
      const IterLayout<1> it = make_iter<1>(t.sizes(), {&t});
      fill_strided_kernel<T><<<blocks_for(t.numel(), 4), kThreads, 0, stream>>>(it, value);
    }
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void arange_fill_cuda(const Tensor& out, const Scalar& start, const Scalar& step) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const ArangeParams p = arange_params_for_cuda(start, step);
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    arange_kernel<T><<<blocks_for(out.numel(), 4), kThreads, 0, stream>>>(
        static_cast<T*>(out.data_ptr()), out.strides()[0], out.numel(), p);
    EMBER_KERNEL_LAUNCH_CHECK();
  }, "arange_cuda");
}

void linspace_fill_cuda(const Tensor& out, double start, double end) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t n = out.numel();
  const LinspaceParams p{start, end, n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0, n};
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    linspace_kernel<T><<<blocks_for(n, 4), kThreads, 0, stream>>>(
        static_cast<T*>(out.data_ptr()), out.strides()[0], p);
    EMBER_KERNEL_LAUNCH_CHECK();
  }, "linspace_cuda");
}

}  // namespace internal

}  // namespace ember::ops
