// GradScaler's kernels (ops/optim/amp.hpp): the multi-tensor unscale-and-check
// (optim_multi_tensor.cuh's launch, depth 1) and the one-thread scale update.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ops/optim/amp.hpp"
#include "ops/optim/optim_multi_tensor.cuh"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using internal::kChunkSize;
using mta::kBlockThreads;
using mta::kIlp;
using mta::NoScalars;
using mta::TensorListMeta;

template <typename T>
using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;

struct UnscaleArgs {
  float* found_inf;
  const float* inv_scale;
};

template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    unscale_kernel(TensorListMeta<1, NoScalars> m, UnscaleArgs a) {
  using A = Acc<T>;
  const int t = m.block_to_tensor[blockIdx.x];
  const int64_t begin = static_cast<int64_t>(m.block_to_chunk[blockIdx.x]) * kChunkSize;
  const int64_t end = begin + kChunkSize < m.sizes[t] ? begin + kChunkSize : m.sizes[t];
  T* g = static_cast<T*>(m.addresses[0][t]);
  const A inv = static_cast<A>(*a.inv_scale);
  const bool scale = *a.inv_scale != 1.0f;
  bool bad = false;
  for (int64_t base = begin + threadIdx.x; base < end; base += kBlockThreads * kIlp) {
#pragma unroll
    for (int u = 0; u < kIlp; ++u) {
      const int64_t j = base + static_cast<int64_t>(u) * kBlockThreads;
      if (j >= end) break;
      const A v = static_cast<A>(g[j]);
      bad |= !isfinite(v);
      if (scale) g[j] = static_cast<T>(v * inv);
    }
  }
  if (bad) *a.found_inf = 1.0f;  // every writer writes the same value
}

__global__ void update_scale_kernel(float* scale, int32_t* tracker, const float* found_inf,
                                    double growth, double backoff, int64_t interval) {
  if (*found_inf != 0.0f) {
    *scale = static_cast<float>(static_cast<double>(*scale) * backoff);
    *tracker = 0;
    return;
  }
  const int64_t successful = static_cast<int64_t>(*tracker) + 1;
  if (successful == interval) {
    const float grown = static_cast<float>(static_cast<double>(*scale) * growth);
    if (isfinite(grown)) *scale = grown;
    *tracker = 0;
  } else {
    *tracker = static_cast<int32_t>(successful);
  }
}

}  // namespace

namespace internal {

void amp_unscale_cuda(const std::vector<Tensor>& grads, float* found_inf, const float* inv_scale) {
  if (grads.empty()) return;
  const std::vector<std::vector<Tensor>> lists{grads};
  const std::vector<NoScalars> none;
  const UnscaleArgs args{found_inf, inv_scale};
  dispatch_floating(
      grads[0].dtype(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        mta::apply<1>(lists, none, args, unscale_kernel<T>);
      },
      [] { throw TypeError("_amp_foreach_non_finite_check_and_unscale_: floating gradients only"); });
}

void amp_update_scale_cuda(float* scale, int32_t* growth_tracker, const float* found_inf,
                           double growth_factor, double backoff_factor, int64_t growth_interval,
                           int device) {
  cuda::DeviceGuard guard(device);
  cudaStream_t stream = cuda::current_stream(device).handle();
  update_scale_kernel<<<1, 1, 0, stream>>>(scale, growth_tracker, found_inf, growth_factor,
                                           backoff_factor, growth_interval);
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace internal

}  // namespace ember::ops
