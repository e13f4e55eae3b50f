// The GPU kernels of ops/nn/conv.hpp: im2col and col2im (one thread per
// element, the index arithmetic of conv_kernels.hpp) and the direct kernels
// for a small reduction C/G*kh*kw <= kDirectK: forward (one thread per
// output pixel computes up to kFwdOut output channels from the receptive
// field it holds in registers) and grad_weight/grad_bias (a GEMM over pixel
// tiles staged in shared memory, 4 channels x 8 taps of accumulators per
// thread, added into a float32/float64 buffer with one atomic per value and
// block). Both run on the current stream of the device.
#include <algorithm>

#include "ops/nn/conv.hpp"
#include "ops/nn/conv_kernels.hpp"
#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/fill/fill.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;
using internal::ConvGeom;

constexpr int kDirectK = 32;  // largest C/G*kh*kw of the direct kernels
constexpr int kFwdOut = 16;   // output channels per thread, forward

template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  ember::dispatch_floating(t, f, [t] {
    throw Error(detail::str("conv2d: unsupported dtype ", dtype_name(t)));
  });
}

template <typename T>
__global__ void im2col_kernel(const T* in, T* col, ConvGeom g, int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size()) col[i] = conv_detail::im2col_at(in, g, i);
}

template <typename T>
__global__ void col2im_kernel(const T* col, T* gi, ConvGeom g, int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size()) gi[i] = conv_detail::col2im_at(col, g, i);
}

// The receptive field, one packed word per r < K: the channel (bits 16..31)
// and the kernel tap's row (8..15) and column (0..7) displacement -- one
// register per tap when the compiler keeps them across the pixel loop.
struct Taps {
  uint32_t tap[kDirectK];
};

__device__ __forceinline__ void load_taps(Taps& t, const ConvGeom& g, int K) {
  for (int r = threadIdx.x; r < K; r += blockDim.x) {
    const int khw = int(g.kh * g.kw);
    const int c = r / khw, rem = r - c * khw;
    const int k = rem / int(g.kw), j = rem - k * int(g.kw);
    t.tap[r] = (uint32_t(c) << 16) | (uint32_t(k * g.dh) << 8) | uint32_t(j * g.dw);
  }
}

// The input value of tap `tap` for the window at (h0, w0), 0 outside.
template <typename T, typename A>
__device__ __forceinline__ A tap_value(const T* base, const ConvGeom& g, uint32_t tap, int64_t h0,
                                       int64_t w0) {
  const int64_t h = h0 + ((tap >> 8) & 0xffu), w = w0 + (tap & 0xffu);
  if (h < 0 || h >= g.H || w < 0 || w >= g.W) return A(0);
  return A(base[(int64_t(tap >> 16) * g.H + h) * g.W + w]);
}

// Taps fit the packing: displacements below 256, fewer than 65536 channels.
bool taps_fit(const ConvGeom& g, int64_t Cg) {
  return (g.kh - 1) * g.dh < 256 && (g.kw - 1) * g.dw < 256 && Cg < 65536;
}

// out[n, o, p] for kFwdOut channels o of one group, one pixel per thread.
// grid.x covers N * P pixels, grid.y the (group, channel block) pairs.
template <typename T>
__global__ void __launch_bounds__(kThreads) conv_direct_kernel(
    const T* __restrict__ in, const T* __restrict__ w, const T* __restrict__ bias,
    T* __restrict__ out, ConvGeom g, int Cg, int Og, int O, int64_t N) {
  using A = typename conv_detail::Acc<T>::type;
  __shared__ Taps taps;
  __shared__ __align__(16) A ws[kFwdOut][kDirectK];
  __shared__ A bs[kFwdOut];
  const int K = Cg * int(g.kh * g.kw);
  const int blocks_per_group = (Og + kFwdOut - 1) / kFwdOut;
  const int grp = blockIdx.y / blocks_per_group;
  const int o_first = (blockIdx.y - grp * blocks_per_group) * kFwdOut;
  const int o0 = grp * Og + o_first;
  const int count = min(kFwdOut, Og - o_first);
  load_taps(taps, g, K);
  for (int t = threadIdx.x; t < kFwdOut * kDirectK; t += blockDim.x) {
    const int oo = t / kDirectK, r = t - oo * kDirectK;
    ws[oo][r] = (oo < count && r < K) ? A(w[int64_t(o0 + oo) * K + r]) : A(0);
  }
  if (threadIdx.x < kFwdOut)
    bs[threadIdx.x] = (bias && int(threadIdx.x) < count) ? A(bias[o0 + threadIdx.x]) : A(0);
  __syncthreads();
  const int64_t P = g.OH * g.OW;
  const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= N * P) return;
  const int64_t n = t / P, p = t - n * P;
  const int64_t oh = p / g.OW, ow = p - oh * g.OW;
  const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  const T* base = in + (n * g.C + int64_t(grp) * Cg) * g.H * g.W;
  A x[kDirectK];
#pragma unroll
  for (int r = 0; r < kDirectK; ++r)
    x[r] = r < K ? tap_value<T, A>(base, g, taps.tap[r], h0, w0) : A(0);
  T* o = out + (n * O + o0) * P + p;
  for (int oo = 0; oo < count; ++oo) {
    A acc = bs[oo];
#pragma unroll
    for (int r = 0; r < kDirectK; ++r) acc += ws[oo][r] * x[r];
    o[int64_t(oo) * P] = T(acc);
  }
}


// gw[o, r] += sum over pixels of grad_out[n, o, p] * x_r(n, p) (and gb[o] +=
// grad_out[n, o, p]): a GEMM of [64 channels x pixels] by [pixels x K taps]
// with a tiny result and a huge inner dimension. A block owns up to 64
// channels of one group (grid.y) and walks tiles of kTM pixels (grid.x
// strides over them): each tile of grad_out (64 x kTM) and of the implicit
// im2col matrix (K x kTM) is staged in shared memory; each thread keeps a
// 4-channel x 8-tap block of accumulators over its quarter of the tile's
// pixels. The four quarters are summed in shared memory at the end and added
// into gw/gb with one atomic per value and block.
constexpr int kWgOc = 64;  // channels per block
template <typename A>
constexpr int wgrad_tile() { return sizeof(A) == 8 ? 32 : 64; }

template <typename T, typename A>
__global__ void __launch_bounds__(kThreads, 2) conv_wgrad_kernel(
    const T* __restrict__ go, const T* __restrict__ in, A* gw, A* gb, ConvGeom g, int Cg,
    int Og, int O, int64_t N) {
  constexpr int TM = wgrad_tile<A>();
  __shared__ Taps taps;
  __shared__ A gs[kWgOc][TM + 1];
  __shared__ A xs[kDirectK][TM + 1];
  __shared__ int64_t pix_n[TM], pix_p[TM], pix_h0[TM], pix_w0[TM];
  const int K = Cg * int(g.kh * g.kw);
  const int blocks_per_group = (Og + kWgOc - 1) / kWgOc;
  const int grp = blockIdx.y / blocks_per_group;
  const int o_first = (blockIdx.y - grp * blocks_per_group) * kWgOc;
  const int o0 = grp * Og + o_first;
  const int count = min(kWgOc, Og - o_first);
  load_taps(taps, g, K);
  const int tid = threadIdx.x;
  const int pg = tid / 64, lane = tid % 64;  // pixel quarter; 64 threads cover the result
  const int og = lane / 4, kg = lane % 4;    // channels og*4.., taps kg*8..
  A acc[4][8];
  A bacc[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    bacc[j] = A(0);
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[j][i] = A(0);
  }
  const int64_t P = g.OH * g.OW;
  const int64_t total = N * P;
  const int64_t tiles = (total + TM - 1) / TM;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t m0 = tile * TM;
    __syncthreads();  // the previous tile is consumed; taps are loaded
    if (tid < TM) {
      const int64_t m = m0 + tid;
      const int64_t n = m / P, p = m - n * P;
      const int64_t oh = p / g.OW, ow = p - oh * g.OW;
      pix_n[tid] = m < total ? n : -1;
      pix_p[tid] = p;
      pix_h0[tid] = oh * g.sh - g.ph;
      pix_w0[tid] = ow * g.sw - g.pw;
    }
    __syncthreads();
    // All of a thread's loads of the tile are issued before any is stored
    // (registers first): the loads' latencies overlap.
    constexpr int GL = kWgOc * TM / kThreads, XL = kDirectK * TM / kThreads;
    A greg[GL], xreg[XL];
#pragma unroll
    for (int it = 0; it < GL; ++it) {
      const int e = tid + it * kThreads;
      const int oc = e / TM, px = e - oc * TM;
      const int64_t n = pix_n[px];
      greg[it] = (oc < count && n >= 0) ? A(go[(n * O + o0 + oc) * P + pix_p[px]]) : A(0);
    }
#pragma unroll
    for (int it = 0; it < XL; ++it) {
      const int e = tid + it * kThreads;
      const int r = e / TM, px = e - r * TM;
      const int64_t n = pix_n[px];
      A v = A(0);
      if (r < K && n >= 0) {
        const T* base = in + (n * g.C + int64_t(grp) * Cg) * g.H * g.W;
        v = tap_value<T, A>(base, g, taps.tap[r], pix_h0[px], pix_w0[px]);
      }
      xreg[it] = v;
    }
#pragma unroll
    for (int it = 0; it < GL; ++it) {
      const int e = tid + it * kThreads;
      gs[e / TM][e % TM] = greg[it];
    }
#pragma unroll
    for (int it = 0; it < XL; ++it) {
      const int e = tid + it * kThreads;
      xs[e / TM][e % TM] = xreg[it];
    }
    __syncthreads();
    constexpr int Q = TM / 4;  // pixels per quarter
#pragma unroll 4
    for (int q = 0; q < Q; ++q) {
      const int px = pg * Q + q;
      A gv[4], xv[8];
#pragma unroll
      for (int j = 0; j < 4; ++j) gv[j] = gs[og * 4 + j][px];
#pragma unroll
      for (int i = 0; i < 8; ++i) xv[i] = xs[kg * 8 + i][px];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        bacc[j] += gv[j];
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[j][i] += gv[j] * xv[i];
      }
    }
  }
  // Sum the four quarters: quarters 1..3 in turn hand their values to quarter 0.
  __shared__ A red[64 * 36];  // 64 threads x (32 + 4) values
  for (int from = 1; from < 4; ++from) {
    __syncthreads();
    if (pg == from) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        red[lane * 36 + 32 + j] = bacc[j];
#pragma unroll
        for (int i = 0; i < 8; ++i) red[lane * 36 + j * 8 + i] = acc[j][i];
      }
    }
    __syncthreads();
    if (pg == 0) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        bacc[j] += red[lane * 36 + 32 + j];
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[j][i] += red[lane * 36 + j * 8 + i];
      }
    }
  }
  if (pg != 0) return;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int oc = og * 4 + j;
    if (oc >= count) continue;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int r = kg * 8 + i;
      if (r < K) atomicAdd(gw + int64_t(o0 + oc) * K + r, acc[j][i]);
    }
    if (gb && kg == 0) atomicAdd(gb + o0 + oc, bacc[j]);
  }
}

struct Launch {
  int dev;
  cudaStream_t stream;
};

Launch launch_on(const Tensor& t) {
  const int dev = t.device().index;
  return {dev, cuda::current_stream(dev).handle()};
}

int sm_count(int dev) { return cuda::get_device_properties(dev).multi_processor_count; }

}  // namespace

namespace internal {

void im2col_cuda(const Tensor& input, const Tensor& col, const ConvGeom& g) {
  if (col.numel() == 0) return;
  cuda::DeviceGuard guard(col.device().index);
  const Launch l = launch_on(col);
  dispatch_floating(col.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    im2col_kernel<T><<<blocks_for(col.numel(), 4), kThreads, 0, l.stream>>>(
        static_cast<const T*>(input.data_ptr()), static_cast<T*>(col.data_ptr()), g, col.numel());
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void col2im_cuda(const Tensor& col, const Tensor& grad_in, const ConvGeom& g) {
  if (grad_in.numel() == 0) return;
  cuda::DeviceGuard guard(col.device().index);
  const Launch l = launch_on(col);
  dispatch_floating(col.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    col2im_kernel<T><<<blocks_for(grad_in.numel(), 4), kThreads, 0, l.stream>>>(
        static_cast<const T*>(col.data_ptr()), static_cast<T*>(grad_in.data_ptr()), g,
        grad_in.numel());
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

bool conv2d_direct_cuda(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const Tensor& out, const ConvGeom& g, int64_t groups) {
  const int64_t O = weight.size(0), Og = O / groups, Cg = weight.size(1);
  const int64_t K = Cg * g.kh * g.kw;
  const int64_t pixels = input.size(0) * g.OH * g.OW;
  const int64_t gy = groups * ((Og + kFwdOut - 1) / kFwdOut);
  const int64_t gx = (pixels + kThreads - 1) / kThreads;
  if (K <= 0 || K > kDirectK || gy > 65535 || gx > 0x7fffffff || Og == 0 || !taps_fit(g, Cg))
    return false;
  cuda::DeviceGuard guard(out.device().index);
  const Launch l = launch_on(out);
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv_direct_kernel<T><<<dim3(unsigned(gx), unsigned(gy)), kThreads, 0, l.stream>>>(
        static_cast<const T*>(input.data_ptr()), static_cast<const T*>(weight.data_ptr()),
        bias.defined() ? static_cast<const T*>(bias.data_ptr()) : nullptr,
        static_cast<T*>(out.data_ptr()), g, int(Cg), int(Og), int(O), input.size(0));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
  return true;
}

bool conv2d_weight_grad_direct_cuda(const Tensor& grad_out, const Tensor& input,
                                    const Tensor& gw, const Tensor& gb, const ConvGeom& g,
                                    int64_t groups) {
  const int64_t O = gw.size(0), Og = O / groups, Cg = gw.size(1);
  const int64_t K = Cg * g.kh * g.kw;
  const int64_t pixels = input.size(0) * g.OH * g.OW;
  const int64_t gy = groups * ((Og + kWgOc - 1) / kWgOc);
  if (K <= 0 || K > kDirectK || gy > 65535 || Og == 0 || pixels == 0 || !taps_fit(g, Cg))
    return false;
  const int dev = gw.device().index;
  cuda::DeviceGuard guard(dev);
  const Launch l = launch_on(gw);
  // Accumulators in float32 (float64): gw/gb themselves when they have that dtype.
  const ScalarType acc_t = gw.dtype() == ScalarType::Float64 ? ScalarType::Float64
                                                              : ScalarType::Float32;
  const bool direct = gw.dtype() == acc_t;
  const Tensor wacc = direct ? gw : Tensor::empty(gw.sizes(), acc_t, gw.device());
  const Tensor bacc = !gb.defined() ? Tensor()
                      : direct      ? gb
                                    : Tensor::empty(gb.sizes(), acc_t, gb.device());
  zero_(wacc);
  if (bacc.defined()) zero_(bacc);
  // About three resident blocks per SM in all; each block walks many pixel tiles
  // (the fewer blocks, the fewer atomics at the end).
  const int64_t want = int64_t(sm_count(dev)) * 3;
  const int64_t tiles = (pixels + 31) / 32;
  const int64_t gx = std::max<int64_t>(1, std::min<int64_t>(tiles, std::max<int64_t>(1, want / gy)));
  dispatch_floating(gw.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = typename conv_detail::Acc<T>::type;
    conv_wgrad_kernel<T, A><<<dim3(unsigned(gx), unsigned(gy)), kThreads, 0, l.stream>>>(
        static_cast<const T*>(grad_out.data_ptr()), static_cast<const T*>(input.data_ptr()),
        static_cast<A*>(wacc.data_ptr()), bacc.defined() ? static_cast<A*>(bacc.data_ptr()) : nullptr,
        g, int(Cg), int(Og), int(O), input.size(0));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
  if (!direct) {
    copy_(gw, wacc);
    if (gb.defined()) copy_(gb, bacc);
  }
  return true;
}

}  // namespace internal

}  // namespace ember::ops
