// GPU copies with dtype conversion: one kernel template over (dst, src) C++
// types. Contiguous operands take a vectorised grid-stride loop (4 elements
// per load/store); anything else computes offsets from the merged layout.
// Same-dtype copies move raw bits (4 instantiations by element size), so the
// file instantiates 94 type pairs x 2 kernels.
#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/convert.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

constexpr int kVec = 4;

template <typename D, typename S>
__global__ void convert_contiguous_kernel(D* __restrict__ dst, const S* __restrict__ src,
                                          int64_t n, bool aligned) {
  const int64_t start = global_id(), step = grid_size();
  int64_t tail = 0;
  if (aligned) {
    const int64_t nv = n / kVec;
    auto* dv = reinterpret_cast<Vec<D, kVec>*>(dst);
    const auto* sv = reinterpret_cast<const Vec<S, kVec>*>(src);
    for (int64_t j = start; j < nv; j += step) {
      const Vec<S, kVec> in = sv[j];
      Vec<D, kVec> out;
#pragma unroll
      for (int k = 0; k < kVec; ++k) out.v[k] = convert<D, S>(in.v[k]);
      dv[j] = out;
    }
    tail = nv * kVec;
  }
  for (int64_t j = tail + start; j < n; j += step) dst[j] = convert<D, S>(src[j]);
}

template <typename D, typename S>
__global__ void convert_strided_kernel(IterLayout<2> it) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t off[2];
    offsets<2>(it, i, off);
    *reinterpret_cast<D*>(it.data[0] + off[0]) =
        convert<D, S>(*reinterpret_cast<const S*>(it.data[1] + off[1]));
  }
}

template <typename D, typename S>
void launch(const IterLayout<2>& it, cudaStream_t stream) {
  if (it.is_contiguous({int64_t(sizeof(D)), int64_t(sizeof(S))})) {
    auto* d = reinterpret_cast<D*>(it.data[0]);
    const auto* s = reinterpret_cast<const S*>(it.data[1]);
    const bool aligned = reinterpret_cast<uintptr_t>(d) % sizeof(Vec<D, kVec>) == 0 &&
                         reinterpret_cast<uintptr_t>(s) % sizeof(Vec<S, kVec>) == 0;
    convert_contiguous_kernel<D, S>
        <<<blocks_for(it.numel, kVec), kThreads, 0, stream>>>(d, s, it.numel, aligned);
  } else {
    convert_strided_kernel<D, S><<<blocks_for(it.numel, 4), kThreads, 0, stream>>>(it);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace

namespace internal {

void copy_cuda_same_device(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const int dev = dst.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  if (same_dense_layout(dst, src)) {
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), dst.nbytes(),
                                     cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const IterLayout<2> it = make_iter<2>(dst.sizes(), {&dst, &src});
  if (dst.dtype() == src.dtype()) {
    dispatch_bits(dst.itemsize(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      launch<T, T>(it, stream);
    });
    return;
  }
  dispatch(dst.dtype(), [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    dispatch(src.dtype(), [&](auto stag) {
      using S = typename decltype(stag)::type;
      if constexpr (!std::is_same<D, S>::value) launch<D, S>(it, stream);
    });
  });
}

}  // namespace internal

}  // namespace ember::ops
