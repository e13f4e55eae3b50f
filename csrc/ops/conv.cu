// The GPU kernels of ops/conv.hpp: im2col and col2im (one thread per
// element, the index arithmetic of conv_kernels.hpp) and the direct kernels
// for a small reduction C/G*kh*kw <= kDirectK: forward (one thread per
// output pixel computes up to kFwdOut output channels from the receptive
// field it holds in registers) and grad_weight/grad_bias (one thread
// accumulates kWgradOut channels x C/G*kh*kw products over a strided range
// of pixels; warps reduce with shuffles and add into a float32/float64
// buffer with atomics). Both run on the current stream of the device.
#include <algorithm>

#include "ops/conv.hpp"
#include "ops/conv_kernels.hpp"
#include "ops/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/fill.hpp"
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
constexpr int kWgradOut = 2;  // output channels per thread, grad_weight

template <typename F>
void dispatch_floating(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: return f(TypeTag<double>{});
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    default: break;
  }
  throw Error(detail::str("conv2d: unsupported dtype ", dtype_name(t)));
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

template <typename A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) v += __shfl_down_sync(0xffffffffu, v, s);
  return v;
}

// gw[o, r] += sum over pixels of grad_out[n, o, p] * x_r(n, p) (and gb[o] +=
// grad_out[n, o, p]) for kWgradOut channels o of one group. grid.x strides
// over the N * P pixels, grid.y covers the (group, channel block) pairs.
template <typename T, typename A>
__global__ void __launch_bounds__(kThreads) conv_wgrad_kernel(
    const T* __restrict__ go, const T* __restrict__ in, A* gw, A* gb, ConvGeom g, int Cg,
    int Og, int O, int64_t N) {
  __shared__ Taps taps;
  const int K = Cg * int(g.kh * g.kw);
  const int blocks_per_group = (Og + kWgradOut - 1) / kWgradOut;
  const int grp = blockIdx.y / blocks_per_group;
  const int o_first = (blockIdx.y - grp * blocks_per_group) * kWgradOut;
  const int o0 = grp * Og + o_first;
  const int count = min(kWgradOut, Og - o_first);
  load_taps(taps, g, K);
  __syncthreads();
  A acc[kWgradOut][kDirectK];
  A bacc[kWgradOut];
#pragma unroll
  for (int oo = 0; oo < kWgradOut; ++oo) {
    bacc[oo] = A(0);
#pragma unroll
    for (int r = 0; r < kDirectK; ++r) acc[oo][r] = A(0);
  }
  const int64_t P = g.OH * g.OW;
  const int64_t total = N * P;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t n = t / P, p = t - n * P;
    const int64_t oh = p / g.OW, ow = p - oh * g.OW;
    const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
    const T* base = in + (n * g.C + int64_t(grp) * Cg) * g.H * g.W;
    const T* gp = go + (n * O + o0) * P + p;
    A gv[kWgradOut];
#pragma unroll
    for (int oo = 0; oo < kWgradOut; ++oo) {
      gv[oo] = oo < count ? A(gp[int64_t(oo) * P]) : A(0);
      bacc[oo] += gv[oo];
    }
#pragma unroll
    for (int r = 0; r < kDirectK; ++r) {
      if (r < K) {
        const A xv = tap_value<T, A>(base, g, taps.tap[r], h0, w0);
#pragma unroll
        for (int oo = 0; oo < kWgradOut; ++oo) acc[oo][r] += gv[oo] * xv;
      }
    }
  }
  const bool lane0 = (threadIdx.x & 31) == 0;
#pragma unroll
  for (int oo = 0; oo < kWgradOut; ++oo) {
#pragma unroll
    for (int r = 0; r < kDirectK; ++r) {
      if (r < K) {
        const A v = warp_sum(acc[oo][r]);
        if (lane0 && oo < count) atomicAdd(gw + int64_t(o0 + oo) * K + r, v);
      }
    }
    const A b = warp_sum(bacc[oo]);
    if (gb && lane0 && oo < count) atomicAdd(gb + o0 + oo, b);
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

int sm_count(int dev) {
  int n = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

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
  const int64_t gy = groups * ((Og + kWgradOut - 1) / kWgradOut);
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
  const int64_t want = int64_t(sm_count(dev)) * 8;
  const int64_t gx = std::max<int64_t>(
      1, std::min<int64_t>((pixels + kThreads - 1) / kThreads, std::max<int64_t>(1, want / gy)));
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
