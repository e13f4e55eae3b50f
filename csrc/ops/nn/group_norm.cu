// group_norm on the GPU (see group_norm.hpp for the plan). Kernels read T
// (float16/bfloat16/float32/float64) and accumulate in A (float, or double for
// double data). One block per (sample, group) row of L = D * S contiguous
// values; rows whose channel planes are whole 16-byte vectors are read and
// written as vectors of V elements (V = 1 otherwise).
#include <algorithm>
#include <cstdint>

#include "ops/cuda_loops.cuh"
#include "ops/elementwise.hpp"
#include "ops/nn/group_norm.hpp"
#include "ops/nn/norm_math.hpp"
#include "ops/nn/norm_reduce.cuh"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using cuda_loops::FastDivmod;
using norm_math::Acc;

using norm_cuda::block_sum2;
using norm_cuda::rsqrt_acc;
using norm_cuda::warp_sum;

template <typename T, int V>
struct alignas(sizeof(T) * V) GnVec {
  T v[V];
};

template <typename T>
inline const T* cptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <typename T>
inline T* mptr(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

int gn_threads(int64_t LV) {
  if (LV >= 4096) return 512;
  if (LV >= 1024) return 256;
  if (LV >= 256) return 128;
  if (LV >= 64) return 64;
  return 32;
}

// Forward: row = blockIdx.x = n * G + g; L = D * S values; SV = S / V vectors
// per channel plane (div_sv divides by it).
template <typename T, typename A, int V>
__global__ void gn_fwd_kernel(const T* __restrict__ x, const A* __restrict__ w,
                              const A* __restrict__ b, T* __restrict__ y, A* __restrict__ mean,
                              A* __restrict__ rstd, int64_t G, int64_t D, int64_t L,
                              FastDivmod div_sv, A eps) {
  using Vec = GnVec<T, V>;
  const int64_t row = blockIdx.x;
  const int64_t g = row % G;
  const Vec* xr = reinterpret_cast<const Vec*>(x + row * L);
  const uint32_t LV = static_cast<uint32_t>(L / V);
  const A pivot = static_cast<A>(x[row * L]);
  A s1 = 0, s2 = 0;
  for (uint32_t j = threadIdx.x; j < LV; j += blockDim.x) {
    const Vec v = xr[j];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const A d = static_cast<A>(v.v[k]) - pivot;
      s1 += d;
      s2 += d * d;
    }
  }
  block_sum2(s1, s2);
  const A n = static_cast<A>(L);
  const A dm = s1 / n;
  A var = s2 / n - dm * dm;
  var = var > A(0) ? var : A(0);
  const A mu = pivot + dm;
  const A r = rsqrt_acc(var + eps);
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
  Vec* yr = reinterpret_cast<Vec*>(y + row * L);
  const int64_t c0 = g * D;
  for (uint32_t j = threadIdx.x; j < LV; j += blockDim.x) {
    const int64_t c = c0 + div_sv.div(j);
    const A sc = r * (w != nullptr ? w[c] : A(1));
    const A sh = (b != nullptr ? b[c] : A(0)) - mu * sc;
    const Vec v = xr[j];
    Vec o;
#pragma unroll
    for (int k = 0; k < V; ++k) o.v[k] = T(static_cast<A>(v.v[k]) * sc + sh);
    yr[j] = o;
  }
}

// Backward, one block per row: per channel of the group, sum(dy) and
// sum(dy * xhat) (written to part[n * C + c][2] for the parameter gradients);
// then dx = rstd * (dy * w - mean(dy * w) - xhat * mean(dy * w * xhat)).
// kWarp false: the whole block reduces each channel plane in turn (large
// planes); kWarp true: one warp per channel plane, the sums in shared memory
// (many small planes: no block-wide barrier per channel).
template <typename T, typename A, int V, bool kWarp>
__global__ void gn_bwd_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                              const A* __restrict__ mean, const A* __restrict__ rstd,
                              const A* __restrict__ w, T* __restrict__ dx, A* __restrict__ part,
                              int64_t G, int64_t D, int64_t S, FastDivmod div_sv) {
  using Vec = GnVec<T, V>;
  const int64_t row = blockIdx.x;
  const int64_t g = row % G;
  const int64_t L = D * S;
  const A mu = mean[row], r = rstd[row];
  const Vec* xr = reinterpret_cast<const Vec*>(x + row * L);
  const Vec* gr = reinterpret_cast<const Vec*>(dy + row * L);
  const int64_t SV = S / V;
  const int64_t c0 = g * D;
  A* prow = part != nullptr ? part + ((row / G) * G * D + c0) * 2 : nullptr;
  A sg = 0, sgx = 0;
  if constexpr (kWarp) {
    extern __shared__ __align__(16) unsigned char gn_smem[];
    A* sums = reinterpret_cast<A*>(gn_smem);  // [D][2]
    const int lane = threadIdx.x & 31;
    const int64_t nw = blockDim.x >> 5;
    for (int64_t d = threadIdx.x >> 5; d < D; d += nw) {
      A s1 = 0, s2 = 0;
      for (int64_t j = d * SV + lane; j < (d + 1) * SV; j += 32) {
        const Vec xv = xr[j], gv = gr[j];
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A gk = static_cast<A>(gv.v[k]);
          s1 += gk;
          s2 += gk * (static_cast<A>(xv.v[k]) - mu);
        }
      }
      s1 = warp_sum(s1);
      s2 = warp_sum(s2);
      if (lane == 0) {
        sums[2 * d] = s1;
        sums[2 * d + 1] = s2 * r;
      }
    }
    __syncthreads();
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
      const A s1 = sums[2 * d], s2 = sums[2 * d + 1];
      const A wv = w != nullptr ? w[c0 + d] : A(1);
      sg += s1 * wv;
      sgx += s2 * wv;
      if (prow != nullptr) {
        prow[2 * d] = s1;
        prow[2 * d + 1] = s2;
      }
    }
    block_sum2(sg, sgx);
  } else {
    for (int64_t d = 0; d < D; ++d) {
      A s1 = 0, s2 = 0;
      for (int64_t j = d * SV + threadIdx.x; j < (d + 1) * SV; j += blockDim.x) {
        const Vec xv = xr[j], gv = gr[j];
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const A gk = static_cast<A>(gv.v[k]);
          s1 += gk;
          s2 += gk * (static_cast<A>(xv.v[k]) - mu);
        }
      }
      block_sum2(s1, s2);
      s2 *= r;
      const A wv = w != nullptr ? w[c0 + d] : A(1);
      sg += s1 * wv;
      sgx += s2 * wv;
      if (threadIdx.x == 0 && prow != nullptr) {
        prow[2 * d] = s1;
        prow[2 * d + 1] = s2;
      }
    }
  }
  if (dx == nullptr) return;
  const A inv_l = A(1) / static_cast<A>(L);
  const A k1 = sg * inv_l, k2 = sgx * inv_l;
  Vec* dr = reinterpret_cast<Vec*>(dx + row * L);
  const uint32_t LV = static_cast<uint32_t>(L / V);
  for (uint32_t j = threadIdx.x; j < LV; j += blockDim.x) {
    const int64_t c = c0 + div_sv.div(j);
    const A wv = w != nullptr ? w[c] : A(1);
    const Vec xv = xr[j], gv = gr[j];
    Vec o;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const A xh = (static_cast<A>(xv.v[k]) - mu) * r;
      o.v[k] = T(r * (static_cast<A>(gv.v[k]) * wv - k1 - xh * k2));
    }
    dr[j] = o;
  }
}

// dweight[c] = sum_n part[n][c][1], dbias[c] = sum_n part[n][c][0].
template <typename A>
__global__ void gn_param_grad_kernel(const A* __restrict__ part, int64_t N, int64_t C,
                                     A* __restrict__ dw, A* __restrict__ db) {
  for (int64_t c = cuda_loops::global_id(); c < C; c += cuda_loops::grid_size()) {
    A s1 = 0, s2 = 0;
    for (int64_t n = 0; n < N; ++n) {
      s1 += part[(n * C + c) * 2];
      s2 += part[(n * C + c) * 2 + 1];
    }
    if (dw != nullptr) dw[c] = s2;
    if (db != nullptr) db[c] = s1;
  }
}

template <typename T>
constexpr int vec_width() {
  return 16 / sizeof(T) > 8 ? 8 : static_cast<int>(16 / sizeof(T));
}

template <typename T>
bool can_vectorize(const internal::GnArgs& a, std::initializer_list<const Tensor*> ts) {
  constexpr int V = vec_width<T>();
  if (a.S % V != 0) return false;
  for (const Tensor* t : ts) {
    if (t->defined() && reinterpret_cast<uintptr_t>(t->data_ptr()) % 16 != 0) return false;
  }
  return true;
}

template <typename T>
void gn_fwd_launch(const internal::GnArgs& a, cudaStream_t st) {
  using A = typename Acc<T>::type;
  constexpr int V = vec_width<T>();
  const int64_t rows = a.N * a.G, L = a.D * a.S;
  EMBER_CHECK(rows <= 0x7FFFFFFF && L < (int64_t(1) << 31),
              "group_norm: input too large for one kernel (", rows, " rows of ", L, ")");
  if (can_vectorize<T>(a, {&a.x, &a.y})) {
    gn_fwd_kernel<T, A, V><<<static_cast<unsigned>(rows), gn_threads(L / V), 0, st>>>(
        cptr<T>(a.x), cptr<A>(a.w), cptr<A>(a.b), mptr<T>(a.y), mptr<A>(a.mean),
        mptr<A>(a.rstd), a.G, a.D, L, FastDivmod(static_cast<uint32_t>(a.S / V)),
        static_cast<A>(a.eps));
  } else {
    gn_fwd_kernel<T, A, 1><<<static_cast<unsigned>(rows), gn_threads(L), 0, st>>>(
        cptr<T>(a.x), cptr<A>(a.w), cptr<A>(a.b), mptr<T>(a.y), mptr<A>(a.mean),
        mptr<A>(a.rstd), a.G, a.D, L, FastDivmod(static_cast<uint32_t>(a.S)),
        static_cast<A>(a.eps));
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

template <typename T>
void gn_bwd_launch(const internal::GnArgs& a, cudaStream_t st) {
  using A = typename Acc<T>::type;
  constexpr int V = vec_width<T>();
  const int64_t rows = a.N * a.G, L = a.D * a.S, C = a.G * a.D;
  EMBER_CHECK(rows <= 0x7FFFFFFF && L < (int64_t(1) << 31),
              "group_norm: input too large for one kernel (", rows, " rows of ", L, ")");
  const bool params = a.dw.defined() || a.db.defined();
  const Tensor part = params ? Tensor::empty({a.N, C, 2}, norm_acc_dtype(a.x.dtype()),
                                             a.x.device())
                             : Tensor();
  // Small channel planes (many per row): a warp per plane, its sums in shared memory.
  // Large ones: the whole block reduces each plane (threads by the plane's size).
  const bool vec = can_vectorize<T>(a, {&a.x, &a.dy, &a.dx});
  const int64_t SV = vec ? a.S / V : a.S;
  const size_t smem = static_cast<size_t>(a.D) * 2 * sizeof(A);
  const bool warp = SV <= 256 && smem <= 32 * 1024 && a.D > 1;
  const FastDivmod div_sv(static_cast<uint32_t>(SV));
  const unsigned grid = static_cast<unsigned>(rows);
  const int threads = warp ? std::max(gn_threads(L / (vec ? V : 1)), 128) : gn_threads(SV * 4);
  const size_t sm = warp ? smem : 0;
#define EMBER_GN_BWD(VV, WW)                                                                \
  gn_bwd_kernel<T, A, VV, WW><<<grid, threads, sm, st>>>(                                  \
      cptr<T>(a.dy), cptr<T>(a.x), cptr<A>(a.mean), cptr<A>(a.rstd), cptr<A>(a.w),          \
      mptr<T>(a.dx), mptr<A>(part), a.G, a.D, a.S, div_sv)
  if (vec) {
    if (warp) {
      EMBER_GN_BWD(V, true);
    } else {
      EMBER_GN_BWD(V, false);
    }
  } else {
    if (warp) {
      EMBER_GN_BWD(1, true);
    } else {
      EMBER_GN_BWD(1, false);
    }
  }
#undef EMBER_GN_BWD
  EMBER_KERNEL_LAUNCH_CHECK();
  if (!params) return;
  gn_param_grad_kernel<A><<<cuda_loops::blocks_for(C), cuda_loops::kThreads, 0, st>>>(
      cptr<A>(part), a.N, C, mptr<A>(a.dw), mptr<A>(a.db));
  EMBER_KERNEL_LAUNCH_CHECK();
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, true); });
}

}  // namespace

namespace internal {

void group_norm_fwd_cuda(const GnArgs& a) {
  const int dev = a.x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.x.dtype(), "group_norm",
                    [&](auto tag) { gn_fwd_launch<typename decltype(tag)::type>(a, st); });
}

void group_norm_bwd_cuda(const GnArgs& a) {
  const int dev = a.x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.x.dtype(), "group_norm_backward",
                    [&](auto tag) { gn_bwd_launch<typename decltype(tag)::type>(a, st); });
}

}  // namespace internal

}  // namespace ember::ops
