// The GPU kernels of ops/nn/pool.hpp: one thread per output element (forward)
// or per input element (the gathering backward), the bodies of
// conv_kernels.hpp, on the current stream of the tensors' device.
#include "ops/nn/conv_kernels.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/nn/pool.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;
using internal::PoolGeom;
using internal::PoolKind;

template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  ember::dispatch_floating(t, f, [t] {
    throw Error(detail::str("pooling: unsupported dtype ", dtype_name(t)));
  });
}

template <typename T>
__global__ void pool_forward_kernel(PoolKind kind, const T* x, PoolGeom g, T* out, int64_t* ind,
                                    int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size())
    conv_detail::pool_forward_at(kind, x, g, i, out, ind);
}

template <typename T>
__global__ void pool_backward_kernel(PoolKind kind, const T* grad, const int64_t* ind, PoolGeom g,
                                     T* gi, int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size())
    gi[i] = conv_detail::pool_backward_at(kind, grad, ind, g, i);
}

}  // namespace

namespace internal {

void pool_forward_cuda(PoolKind kind, const Tensor& x, const Tensor& out, const Tensor& indices,
                       const PoolGeom& g) {
  if (out.numel() == 0) return;
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  dispatch_floating(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_forward_kernel<T><<<blocks_for(out.numel()), kThreads, 0, stream>>>(
        kind, static_cast<const T*>(x.data_ptr()), g, static_cast<T*>(out.data_ptr()),
        indices.defined() ? static_cast<int64_t*>(indices.data_ptr()) : nullptr, out.numel());
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void pool_backward_cuda(PoolKind kind, const Tensor& grad, const Tensor& indices,
                        const Tensor& grad_in, const PoolGeom& g) {
  if (grad_in.numel() == 0) return;
  const int dev = grad_in.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  dispatch_floating(grad.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_backward_kernel<T><<<blocks_for(grad_in.numel()), kThreads, 0, stream>>>(
        kind, static_cast<const T*>(grad.data_ptr()),
        indices.defined() ? static_cast<const int64_t*>(indices.data_ptr()) : nullptr, g,
        static_cast<T*>(grad_in.data_ptr()), grad_in.numel());
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
