// torch.cummax / cummin on the GPU (cum_extreme.hpp): lines along the innermost
// dim take a warp each (each lane V neighbouring elements, the lanes' running
// extremes combined with shuffles, a carry from chunk to chunk); lines along a
// strided dim one thread each (neighbouring threads read neighbouring elements).
#include <algorithm>
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

// A running extreme and where it was taken; at < 0: nothing yet (an empty segment).
template <typename C>
struct Best {
  C v;
  int64_t at;
};

// The extreme of segment a followed by segment b: b's where takes_extreme says so
// (a NaN, or >= / <= a's), a's otherwise. Associative, so the warp may combine
// its lanes' segments in any grouping.
template <typename C>
__device__ __forceinline__ Best<C> combine(const Best<C>& a, const Best<C>& b, bool is_max) {
  if (b.at < 0) return a;
  if (a.at < 0) return b;
  return takes_extreme<C>(b.v, a.v, is_max) ? b : a;
}

// Shuffles of C (types narrower than 32 bits travel as int).
template <typename C>
__device__ __forceinline__ C shfl_up_c(C v, int off) {
  if constexpr (sizeof(C) < 4) {
    return C(__shfl_up_sync(0xffffffffu, int(v), off));
  } else {
    return __shfl_up_sync(0xffffffffu, v, off);
  }
}
template <typename C>
__device__ __forceinline__ C shfl_c(C v, int lane) {
  if constexpr (sizeof(C) < 4) {
    return C(__shfl_sync(0xffffffffu, int(v), lane));
  } else {
    return __shfl_sync(0xffffffffu, v, lane);
  }
}

template <int V, typename T, typename C>
__global__ void cum_extreme_rows_kernel(const T* __restrict__ in, int64_t lines, int64_t n,
                                        bool is_max, T* __restrict__ out,
                                        int64_t* __restrict__ idx) {
  const int lane = threadIdx.x & 31;
  const int64_t wpb = blockDim.x / 32;
  for (int64_t line = int64_t(blockIdx.x) * wpb + threadIdx.x / 32; line < lines;
       line += int64_t(gridDim.x) * wpb) {
    const T* src = in + line * n;
    T* dst = out + line * n;
    int64_t* di = idx + line * n;
    Best<C> carry{C(0), -1};
    for (int64_t c = 0; c < n; c += 32 * V) {
      const int64_t b = c + int64_t(lane) * V;
      T x[V];
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if (b + e < n) x[e] = src[b + e];
      }
      Best<C> run[V];
      Best<C> r{C(0), -1};
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if (b + e < n) r = combine(r, Best<C>{C(x[e]), b + e}, is_max);
        run[e] = r;
      }
      // inclusive scan of the lanes' segments
      Best<C> t = r;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        Best<C> o;
        o.v = shfl_up_c(t.v, off);
        o.at = __shfl_up_sync(0xffffffffu, t.at, off);
        if (lane >= off) t = combine(o, t, is_max);
      }
      Best<C> before;
      before.v = shfl_up_c(t.v, 1);
      before.at = __shfl_up_sync(0xffffffffu, t.at, 1);
      const Best<C> prefix = lane == 0 ? carry : combine(carry, before, is_max);
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if (b + e < n) {
          const Best<C> res = combine(prefix, run[e], is_max);
          // the element itself where it was taken (exact bits: -0.0, NaN payloads)
          dst[b + e] = res.at == b + e ? x[e] : T(res.v);
          di[b + e] = res.at;
        }
      }
      Best<C> total;
      total.v = shfl_c(t.v, 31);
      total.at = __shfl_sync(0xffffffffu, t.at, 31);
      carry = combine(carry, total, is_max);
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
    if (p.inner == 1) {  // along the innermost dim: a warp per line
      constexpr int kWarps = cuda_loops::kThreads / 32;
      const int64_t blocks = std::min<int64_t>((lines + kWarps - 1) / kWarps, 65535 * 8);
      cum_extreme_rows_kernel<8, T, C>
          <<<static_cast<unsigned>(blocks), cuda_loops::kThreads, 0, stream>>>(
              static_cast<const T*>(xc.data_ptr()), lines, p.n, is_max,
              static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
      EMBER_KERNEL_LAUNCH_CHECK();
      return;
    }
    cum_extreme_kernel<T, C><<<cuda_loops::blocks_for(lines), cuda_loops::kThreads, 0, stream>>>(
        static_cast<const T*>(xc.data_ptr()), lines, p.n, p.inner, is_max,
        static_cast<T*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
