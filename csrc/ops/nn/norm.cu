// layer_norm and batch_norm on the GPU (see norm.hpp for the plan). Every
// kernel reads T (float16/bfloat16/float32/float64) and accumulates in A
// (float, or double for double data); per-row/per-channel parameters and
// statistics are A arrays.
#include <algorithm>
#include <cstdint>

#include "ops/cuda_loops.cuh"
#include "ops/elementwise.hpp"
#include "ops/nn/norm.hpp"
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

template <typename T>
__device__ __forceinline__ T to_t_acc(typename Acc<T>::type v) {
  return T(v);
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, true); });
}

template <typename T>
inline const T* cptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <typename T>
inline T* mptr(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

int sm_count(int dev) { return std::max(1, cuda::get_device_properties(dev).multi_processor_count); }

// ---- layer_norm -----------------------------------------------------------------

// Shared-memory row cache of the forward pass: rows up to this many bytes.
constexpr int64_t kRowCacheBytes = 32 * 1024;

int ln_threads(int64_t N) {
  if (N >= 4096) return 512;
  if (N >= 1024) return 256;
  if (N >= 256) return 128;
  if (N >= 64) return 64;
  return 32;
}

// One block per row: mean, then the variance around it (two passes over the
// row, the second from shared memory when the row fits), then the output.
// Each thread reads back only the elements it cached: no barrier needed.
// Rows whose length and address allow it are read and written as 16-byte
// vectors of V elements (V = 1: element by element).
template <typename T, int V>
struct alignas(sizeof(T) * V) LnVec {
  T v[V];
};

template <typename T, typename A, int V>
__global__ void ln_fwd_kernel(const T* __restrict__ x, const A* __restrict__ w,
                              const A* __restrict__ b, T* __restrict__ y, A* __restrict__ mean,
                              A* __restrict__ rstd, int64_t N, A eps, bool cache) {
  using Vec = LnVec<T, V>;
  extern __shared__ __align__(16) unsigned char ln_smem[];
  Vec* buf = reinterpret_cast<Vec*>(ln_smem);
  const int64_t row = blockIdx.x;
  const Vec* xr = reinterpret_cast<const Vec*>(x + row * N);
  const int64_t NV = N / V;
  A s = 0, unused = 0;
  for (int64_t j = threadIdx.x; j < NV; j += blockDim.x) {
    const Vec v = xr[j];
    if (cache) buf[j] = v;
#pragma unroll
    for (int k = 0; k < V; ++k) s += static_cast<A>(v.v[k]);
  }
  block_sum2(s, unused);
  const A mu = s / static_cast<A>(N);
  const Vec* src = cache ? buf : xr;
  A q = 0;
  for (int64_t j = threadIdx.x; j < NV; j += blockDim.x) {
    const Vec v = src[j];
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const A d = static_cast<A>(v.v[k]) - mu;
      q += d * d;
    }
  }
  block_sum2(q, unused);
  const A r = rsqrt_acc(q / static_cast<A>(N) + eps);
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
  Vec* yr = reinterpret_cast<Vec*>(y + row * N);
  for (int64_t j = threadIdx.x; j < NV; j += blockDim.x) {
    const Vec v = src[j];
    Vec o;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int64_t e = j * V + k;
      A a = (static_cast<A>(v.v[k]) - mu) * r;
      if (w != nullptr) a *= w[e];
      if (b != nullptr) a += b[e];
      o.v[k] = to_t_acc<T>(a);
    }
    yr[j] = o;
  }
}

// dx of one row per block: rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w.
template <typename T, typename A>
__global__ void ln_bwd_dx_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                                 const A* __restrict__ mean, const A* __restrict__ rstd,
                                 const A* __restrict__ w, T* __restrict__ dx, int64_t N) {
  const int64_t row = blockIdx.x;
  const T* xr = x + row * N;
  const T* gr = dy + row * N;
  const A mu = mean[row], r = rstd[row];
  A sg = 0, sgx = 0;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const A g = static_cast<A>(gr[j]) * (w != nullptr ? w[j] : A(1));
    sg += g;
    sgx += g * (static_cast<A>(xr[j]) - mu) * r;
  }
  block_sum2(sg, sgx);
  const A c1 = sg / static_cast<A>(N), c2 = sgx / static_cast<A>(N);
  T* dr = dx + row * N;
  for (int64_t j = threadIdx.x; j < N; j += blockDim.x) {
    const A g = static_cast<A>(gr[j]) * (w != nullptr ? w[j] : A(1));
    const A xh = (static_cast<A>(xr[j]) - mu) * r;
    dr[j] = to_t_acc<T>(r * (g - c1 - xh * c2));
  }
}

constexpr int kColX = 32, kColY = 8;

// Partial column sums of dy * xhat and dy over one slice of rows: block
// (32, 8) covers 32 columns; blockIdx.y picks the slice. Writes pw/pb[slice][col].
template <typename T, typename A>
__global__ void ln_bwd_dwdb_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                                   const A* __restrict__ mean, const A* __restrict__ rstd,
                                   int64_t M, int64_t N, int64_t rows_per_slice,
                                   A* __restrict__ pw, A* __restrict__ pb) {
  __shared__ A tw[kColY][kColX + 1], tb[kColY][kColX + 1];
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kColX + threadIdx.x;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * rows_per_slice;
  const int64_t r1 = M < r0 + rows_per_slice ? M : r0 + rows_per_slice;
  A sw = 0, sb = 0;
  if (j < N) {
    for (int64_t i = r0 + threadIdx.y; i < r1; i += kColY) {
      const A g = static_cast<A>(dy[i * N + j]);
      sw += g * (static_cast<A>(x[i * N + j]) - mean[i]) * rstd[i];
      sb += g;
    }
  }
  tw[threadIdx.y][threadIdx.x] = sw;
  tb[threadIdx.y][threadIdx.x] = sb;
  __syncthreads();
  if (threadIdx.y == 0 && j < N) {
#pragma unroll
    for (int k = 1; k < kColY; ++k) {
      sw += tw[k][threadIdx.x];
      sb += tb[k][threadIdx.x];
    }
    if (pw != nullptr) pw[blockIdx.y * N + j] = sw;
    if (pb != nullptr) pb[blockIdx.y * N + j] = sb;
  }
}

// Sums `slices` partial rows of length N into out (out may be null).
template <typename A>
__global__ void sum_slices_kernel(const A* __restrict__ part, int64_t slices, int64_t N,
                                  A* __restrict__ out) {
  for (int64_t j = cuda_loops::global_id(); j < N; j += cuda_loops::grid_size()) {
    A s = 0;
    for (int64_t k = 0; k < slices; ++k) s += part[k * N + j];
    out[j] = s;
  }
}

template <typename T>
void ln_fwd_launch(const Tensor& xt, const Tensor& wt, const Tensor& bt, const Tensor& yt,
                   const Tensor& mt, const Tensor& rt, int64_t N, double eps, cudaStream_t st) {
  using A = typename Acc<T>::type;
  const int64_t M = xt.numel() / N;
  EMBER_CHECK(M <= 0x7FFFFFFF, "layer_norm: too many rows (", M, ")");
  const bool cache = N * static_cast<int64_t>(sizeof(T)) <= kRowCacheBytes;
  const size_t smem = cache ? static_cast<size_t>(N) * sizeof(T) : 0;
  constexpr int V = 16 / sizeof(T) > 8 ? 8 : static_cast<int>(16 / sizeof(T));
  const bool vec = N % V == 0 &&
                   reinterpret_cast<uintptr_t>(xt.data_ptr()) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(yt.data_ptr()) % 16 == 0;
  const int threads = ln_threads(vec ? N / V : N);
  if (vec) {
    ln_fwd_kernel<T, A, V><<<static_cast<unsigned>(M), threads, smem, st>>>(
        cptr<T>(xt), cptr<A>(wt), cptr<A>(bt), mptr<T>(yt), mptr<A>(mt), mptr<A>(rt), N,
        static_cast<A>(eps), cache);
  } else {
    ln_fwd_kernel<T, A, 1><<<static_cast<unsigned>(M), threads, smem, st>>>(
        cptr<T>(xt), cptr<A>(wt), cptr<A>(bt), mptr<T>(yt), mptr<A>(mt), mptr<A>(rt), N,
        static_cast<A>(eps), cache);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

template <typename T>
void ln_bwd_launch(const Tensor& dyt, const Tensor& xt, const Tensor& mt, const Tensor& rt,
                   const Tensor& wt, const Tensor& dxt, const Tensor& dwt, const Tensor& dbt,
                   int64_t N, cudaStream_t st, int dev) {
  using A = typename Acc<T>::type;
  const int64_t M = xt.numel() / N;
  EMBER_CHECK(M <= 0x7FFFFFFF, "layer_norm: too many rows (", M, ")");
  if (dxt.defined()) {
    ln_bwd_dx_kernel<T, A><<<static_cast<unsigned>(M), ln_threads(N), 0, st>>>(
        cptr<T>(dyt), cptr<T>(xt), cptr<A>(mt), cptr<A>(rt), cptr<A>(wt), mptr<T>(dxt), N);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  if (!dwt.defined() && !dbt.defined()) return;
  const int64_t col_blocks = (N + kColX - 1) / kColX;
  EMBER_CHECK(col_blocks <= 0x7FFFFFFF, "layer_norm: normalized size too large (", N, ")");
  int64_t slices = std::max<int64_t>(1, (4 * sm_count(dev)) / std::max<int64_t>(col_blocks, 1));
  slices = std::min<int64_t>({slices, (M + 63) / 64, 65535});
  slices = std::max<int64_t>(slices, 1);
  const int64_t rows_per_slice = (M + slices - 1) / slices;
  slices = (M + rows_per_slice - 1) / rows_per_slice;
  const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(slices));
  const dim3 block(kColX, kColY);
  if (slices == 1) {
    ln_bwd_dwdb_kernel<T, A><<<grid, block, 0, st>>>(cptr<T>(dyt), cptr<T>(xt), cptr<A>(mt),
                                                      cptr<A>(rt), M, N, rows_per_slice,
                                                      mptr<A>(dwt), mptr<A>(dbt));
    EMBER_KERNEL_LAUNCH_CHECK();
    return;
  }
  const ScalarType acc = norm_acc_dtype(xt.dtype());
  const Tensor pw = dwt.defined() ? Tensor::empty({slices, N}, acc, xt.device()) : Tensor();
  const Tensor pb = dbt.defined() ? Tensor::empty({slices, N}, acc, xt.device()) : Tensor();
  ln_bwd_dwdb_kernel<T, A><<<grid, block, 0, st>>>(cptr<T>(dyt), cptr<T>(xt), cptr<A>(mt),
                                                    cptr<A>(rt), M, N, rows_per_slice,
                                                    mptr<A>(pw), mptr<A>(pb));
  EMBER_KERNEL_LAUNCH_CHECK();
  const unsigned nb = cuda_loops::blocks_for(N);
  if (dwt.defined()) {
    sum_slices_kernel<A><<<nb, cuda_loops::kThreads, 0, st>>>(cptr<A>(pw), slices, N, mptr<A>(dwt));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  if (dbt.defined()) {
    sum_slices_kernel<A><<<nb, cuda_loops::kThreads, 0, st>>>(cptr<A>(pb), slices, N, mptr<A>(dbt));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
}

// ---- batch_norm -----------------------------------------------------------------

constexpr int kBnThreads = 256;

// Partial sums over the values of channel blockIdx.x (input viewed as
// (N, C, S)), split over gridDim.y blocks. kGrad false: sum(x - pivot) and
// sum((x - pivot)^2), pivot = x[0, c, 0]; kGrad true: sum(dy) and
// sum(dy * (x - mean[c])). Writes part[c][slice][2].
template <typename T, typename A, bool kGrad>
__global__ void __launch_bounds__(kBnThreads)
    bn_sums_kernel(const T* __restrict__ x, const T* __restrict__ dy, const A* __restrict__ mean,
                   int64_t N, int64_t C, int64_t S, A* __restrict__ part) {
  const int64_t c = blockIdx.x;
  const A k = kGrad ? mean[c] : static_cast<A>(x[c * S]);
  const int64_t total = N * S;
  const int64_t stride = static_cast<int64_t>(gridDim.y) * blockDim.x;
  int64_t j = static_cast<int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  // (n, s) of j, advanced by stride without dividing in the loop.
  int64_t n = j / S, s = j - n * S;
  const int64_t step_n = stride / S, step_s = stride - step_n * S;
  A s1 = 0, s2 = 0;
  for (; j < total; j += stride) {
    const int64_t off = (n * C + c) * S + s;
    const A d = static_cast<A>(x[off]) - k;
    if (kGrad) {
      const A g = static_cast<A>(dy[off]);
      s1 += g;
      s2 += g * d;
    } else {
      s1 += d;
      s2 += d * d;
    }
    n += step_n;
    s += step_s;
    if (s >= S) {
      s -= S;
      ++n;
    }
  }
  block_sum2(s1, s2);
  if (threadIdx.x == 0) {
    A* p = part + (c * gridDim.y + blockIdx.y) * 2;
    p[0] = s1;
    p[1] = s2;
  }
}

// One thread per channel: combines the partial sums (in double) and
// computes the statistics, the running-statistics update and the affine map.
template <typename T, typename A>
__global__ void bn_fwd_finalize_kernel(const A* __restrict__ part, int64_t slices,
                                       const T* __restrict__ x, int64_t S, int64_t C,
                                       int64_t count, const A* __restrict__ w,
                                       const A* __restrict__ b, A* rm, A* rv, double momentum,
                                       double eps, A* __restrict__ mean, A* __restrict__ invstd,
                                       A* __restrict__ scale, A* __restrict__ shift) {
  for (int64_t c = cuda_loops::global_id(); c < C; c += cuda_loops::grid_size()) {
    norm_math::ChannelAffine<A> ch;
    if (part != nullptr) {
      double s1 = 0.0, s2 = 0.0;
      for (int64_t k = 0; k < slices; ++k) {
        s1 += static_cast<double>(part[(c * slices + k) * 2]);
        s2 += static_cast<double>(part[(c * slices + k) * 2 + 1]);
      }
      // The pivot exactly as the sums kernel rounded it.
      const double pivot = static_cast<double>(static_cast<A>(x[c * S]));
      ch = norm_math::bn_train_channel<A>(s1, s2, pivot, count, w ? w + c : nullptr,
                                          b ? b + c : nullptr, rm ? rm + c : nullptr,
                                          rv ? rv + c : nullptr, momentum, eps);
    } else {
      ch = norm_math::bn_eval_channel<A>(rm[c], rv[c], w ? w + c : nullptr, b ? b + c : nullptr,
                                         eps);
    }
    mean[c] = ch.mean;
    invstd[c] = ch.invstd;
    scale[c] = ch.scale;
    shift[c] = ch.shift;
  }
}

template <typename A>
__global__ void bn_bwd_finalize_kernel(const A* __restrict__ part, int64_t slices, int64_t C,
                                       int64_t count, const A* __restrict__ mean,
                                       const A* __restrict__ invstd, const A* __restrict__ w,
                                       bool training, A* __restrict__ k1, A* __restrict__ k2,
                                       A* __restrict__ k3, A* __restrict__ dw,
                                       A* __restrict__ db) {
  for (int64_t c = cuda_loops::global_id(); c < C; c += cuda_loops::grid_size()) {
    double sdy = 0.0, sdyx = 0.0;
    for (int64_t k = 0; k < slices; ++k) {
      sdy += static_cast<double>(part[(c * slices + k) * 2]);
      sdyx += static_cast<double>(part[(c * slices + k) * 2 + 1]);
    }
    const auto g = norm_math::bn_backward_channel<A>(sdy, sdyx, mean[c], invstd[c],
                                                    w ? w + c : nullptr, count, training);
    k1[c] = g.k1;
    k2[c] = g.k2;
    k3[c] = g.k3;
    if (dw != nullptr) dw[c] = g.dw;
    if (db != nullptr) db[c] = g.db;
  }
}

// out = (a - ma[c]) * k1[c] + (b - mb[c]) * k2[c] + k3[c] over an (N, C, S)
// tensor; ma and b (with mb, k2) may be null.
template <typename T, typename A>
struct BnElemArgs {
  const T* a;
  const A* ma;
  const A* k1;
  const T* b;
  const A* mb;
  const A* k2;
  const A* k3;
  T* out;
};

template <typename T, typename A>
__global__ void __launch_bounds__(cuda_loops::kThreads)
    bn_elem_kernel(BnElemArgs<T, A> p, int64_t numel, int64_t C, int64_t S, FastDivmod div_s,
                   FastDivmod div_c, bool index32) {
  for (int64_t i = cuda_loops::global_id(); i < numel; i += cuda_loops::grid_size()) {
    int64_t c;
    if (index32) {
      const uint32_t plane = div_s.div(static_cast<uint32_t>(i));
      c = plane - div_c.div(plane) * div_c.divisor;
    } else {
      c = (i / S) % C;
    }
    A v = (static_cast<A>(p.a[i]) - (p.ma != nullptr ? p.ma[c] : A(0))) * p.k1[c] + p.k3[c];
    if (p.b != nullptr) v += (static_cast<A>(p.b[i]) - p.mb[c]) * p.k2[c];
    p.out[i] = to_t_acc<T>(v);
  }
}

template <typename T, typename A>
void bn_elem_launch(const BnElemArgs<T, A>& p, int64_t numel, int64_t C, int64_t S,
                    cudaStream_t st) {
  const bool index32 = numel < (int64_t(1) << 31);
  const FastDivmod ds(index32 ? static_cast<uint32_t>(S) : 1u);
  const FastDivmod dc(index32 ? static_cast<uint32_t>(C) : 1u);
  bn_elem_kernel<T, A><<<cuda_loops::blocks_for(numel, 4), cuda_loops::kThreads, 0, st>>>(
      p, numel, C, S, ds, dc, index32);
  EMBER_KERNEL_LAUNCH_CHECK();
}

// Blocks per channel for the sums kernel: enough blocks in all to fill the GPU.
int64_t bn_slices(int64_t N, int64_t C, int64_t S, int dev) {
  const int64_t per_channel = N * S;
  int64_t slices = std::max<int64_t>(1, (8 * sm_count(dev) + C - 1) / C);
  slices = std::min<int64_t>(slices, (per_channel + kBnThreads * 8 - 1) / (kBnThreads * 8));
  return std::max<int64_t>(1, std::min<int64_t>(slices, 65535));
}

template <typename T>
void bn_fwd_launch(const internal::BnFwdArgs& a, cudaStream_t st, int dev) {
  using A = typename Acc<T>::type;
  const ScalarType acc = norm_acc_dtype(a.x.dtype());
  EMBER_CHECK(a.C <= 0x7FFFFFFF, "batch_norm: too many channels (", a.C, ")");
  const Tensor scale = Tensor::empty({a.C}, acc, a.x.device());
  const Tensor shift = Tensor::empty({a.C}, acc, a.x.device());
  Tensor part;
  int64_t slices = 0;
  if (a.training) {
    slices = bn_slices(a.N, a.C, a.S, dev);
    part = Tensor::empty({a.C, slices, 2}, acc, a.x.device());
    const dim3 grid(static_cast<unsigned>(a.C), static_cast<unsigned>(slices));
    bn_sums_kernel<T, A, false><<<grid, kBnThreads, 0, st>>>(cptr<T>(a.x), nullptr, nullptr, a.N,
                                                             a.C, a.S, mptr<A>(part));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  bn_fwd_finalize_kernel<T, A><<<cuda_loops::blocks_for(a.C), cuda_loops::kThreads, 0, st>>>(
      cptr<A>(part), slices, cptr<T>(a.x), a.S, a.C, a.N * a.S, cptr<A>(a.w), cptr<A>(a.b),
      mptr<A>(a.rm), mptr<A>(a.rv), a.momentum, a.eps, mptr<A>(a.mean), mptr<A>(a.invstd),
      mptr<A>(scale), mptr<A>(shift));
  EMBER_KERNEL_LAUNCH_CHECK();
  BnElemArgs<T, A> p{cptr<T>(a.x), cptr<A>(a.mean), cptr<A>(scale), nullptr, nullptr, nullptr,
                     cptr<A>(shift), mptr<T>(a.y)};
  bn_elem_launch(p, a.x.numel(), a.C, a.S, st);
}

template <typename T>
void bn_bwd_launch(const internal::BnBwdArgs& a, cudaStream_t st, int dev) {
  using A = typename Acc<T>::type;
  const ScalarType acc = norm_acc_dtype(a.x.dtype());
  EMBER_CHECK(a.C <= 0x7FFFFFFF, "batch_norm: too many channels (", a.C, ")");
  const int64_t slices = bn_slices(a.N, a.C, a.S, dev);
  const Tensor part = Tensor::empty({a.C, slices, 2}, acc, a.x.device());
  const Tensor k = Tensor::empty({3, a.C}, acc, a.x.device());
  A* k1 = mptr<A>(k);
  A* k2 = k1 + a.C;
  A* k3 = k2 + a.C;
  const dim3 grid(static_cast<unsigned>(a.C), static_cast<unsigned>(slices));
  bn_sums_kernel<T, A, true><<<grid, kBnThreads, 0, st>>>(cptr<T>(a.x), cptr<T>(a.dy),
                                                          cptr<A>(a.mean), a.N, a.C, a.S,
                                                          mptr<A>(part));
  EMBER_KERNEL_LAUNCH_CHECK();
  bn_bwd_finalize_kernel<A><<<cuda_loops::blocks_for(a.C), cuda_loops::kThreads, 0, st>>>(
      cptr<A>(part), slices, a.C, a.N * a.S, cptr<A>(a.mean), cptr<A>(a.invstd), cptr<A>(a.w),
      a.training, k1, k2, k3, mptr<A>(a.dw), mptr<A>(a.db));
  EMBER_KERNEL_LAUNCH_CHECK();
  if (!a.dx.defined()) return;
  BnElemArgs<T, A> p{cptr<T>(a.dy), nullptr, k1, a.training ? cptr<T>(a.x) : nullptr,
                     cptr<A>(a.mean), k2, k3, mptr<T>(a.dx)};
  bn_elem_launch(p, a.x.numel(), a.C, a.S, st);
}

}  // namespace

namespace internal {

void layer_norm_fwd_cuda(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                         const Tensor& mean, const Tensor& rstd, int64_t N, double eps) {
  const int dev = x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(x.dtype(), "layer_norm", [&](auto tag) {
    ln_fwd_launch<typename decltype(tag)::type>(x, w, b, y, mean, rstd, N, eps, st);
  });
}

void layer_norm_bwd_cuda(const Tensor& dy, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& w, const Tensor& dx, const Tensor& dw,
                         const Tensor& db, int64_t N) {
  const int dev = x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(x.dtype(), "layer_norm_backward", [&](auto tag) {
    ln_bwd_launch<typename decltype(tag)::type>(dy, x, mean, rstd, w, dx, dw, db, N, st, dev);
  });
}

void batch_norm_fwd_cuda(const BnFwdArgs& a) {
  const int dev = a.x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.x.dtype(), "batch_norm",
                    [&](auto tag) { bn_fwd_launch<typename decltype(tag)::type>(a, st, dev); });
}

void batch_norm_bwd_cuda(const BnBwdArgs& a) {
  const int dev = a.x.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.x.dtype(), "batch_norm_backward",
                    [&](auto tag) { bn_bwd_launch<typename decltype(tag)::type>(a, st, dev); });
}

}  // namespace internal

}  // namespace ember::ops
