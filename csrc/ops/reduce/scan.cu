// cumsum and cumprod on the GPU (see scan.hpp): scan_lines_kernel<TX> for
// lines along a contiguous dim (a warp or a block of 256 per line, chunk by
// chunk with a running carry), scan_strided_kernel (a thread per line) for
// anything else. The current stream; every launch checked.
#include "ops/cuda_loops.cuh"
#include "ops/reduce/scan.hpp"
#include "ops/reduce/scan_functors.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/stream.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

struct ScanArgs {
  OffsetCalc<2> kept;
  char* out;
  const char* in;
  int64_t lines, len, in_stride, out_stride;
};

// Inclusive scan over the 32 lanes of a warp.
template <typename C, typename F>
__device__ __forceinline__ C warp_scan(const F& f, C v) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const C o = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v = f(o, v);
  }
  return v;
}

// F's operation (ScanF) in the carry's type Acc.
template <typename Acc, typename F>
struct AccOp;
template <typename Acc, typename C, bool PROD>
struct AccOp<Acc, ScanF<C, PROD>> {
  static __device__ __forceinline__ Acc apply(Acc a, Acc b) { return ScanF<Acc, PROD>{}(a, b); }
};

template <int TX, typename F, typename In>
__global__ void scan_lines_kernel(F f, ScanArgs a) {
  using C = compute_t<In>;
  using Out = scan_out_t<In>;
  constexpr int TY = 256 / TX;
  constexpr int W = TX / 32;
  __shared__ C warp_tot[TY][W];
  const int tx = threadIdx.x, ty = threadIdx.y, lane = tx % 32, warp = tx / 32;
  // Every thread of a block walks the same line groups, so barriers match.
  const int64_t groups = (a.lines + TY - 1) / TY;
  for (int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const int64_t line = g * TY + ty;
    const bool active = line < a.lines;
    int64_t off[2] = {0, 0};
    if (active) a.kept.get(line, off);
    const In* in = reinterpret_cast<const In*>(a.in + off[1]);
    Out* out = reinterpret_cast<Out*>(a.out + off[0]);
    // The running carry between chunks: in double for a float compute type
    // (float32, float16, bfloat16), so that a long line adds no rounding error
    // per chunk (each output is rounded once from carry + its chunk's prefix).
    using Acc = std::conditional_t<std::is_same<C, float>::value, double, C>;
    Acc carry = Acc(f.identity());
    for (int64_t c = 0; c < a.len; c += TX) {
      const int64_t i = c + tx;
      const bool here = active && i < a.len;
      C v = warp_scan(f, here ? convert<C>(in[i]) : f.identity());
      if (W > 1) {
        if (lane == 31) warp_tot[ty][warp] = v;
        __syncthreads();
        if (warp == 0) {
          const C t = warp_scan(f, lane < W ? warp_tot[ty][lane] : f.identity());
          if (lane < W) warp_tot[ty][lane] = t;
        }
        __syncthreads();
        if (warp > 0) v = f(warp_tot[ty][warp - 1], v);
      }
      const C chunk_tot = W > 1 ? warp_tot[ty][W - 1] : __shfl_sync(0xffffffffu, v, 31);
      const Acc r = AccOp<Acc, F>::apply(carry, Acc(v));
      if (here) out[i] = convert<Out>(C(r));
      carry = AccOp<Acc, F>::apply(carry, Acc(chunk_tot));  // the chunk's total
      if (W > 1) __syncthreads();
    }
  }
}

template <typename F, typename In>
__global__ void scan_strided_kernel(F f, ScanArgs a) {
  using C = compute_t<In>;
  using Out = scan_out_t<In>;
  for (int64_t line = global_id(); line < a.lines; line += grid_size()) {
    int64_t off[2];
    a.kept.get(line, off);
    const In* in = reinterpret_cast<const In*>(a.in + off[1]);
    Out* out = reinterpret_cast<Out*>(a.out + off[0]);
    C acc = f.identity();
    for (int64_t i = 0; i < a.len; ++i) {
      acc = f(acc, convert<C>(in[i * a.in_stride]));
      out[i * a.out_stride] = convert<Out>(acc);
    }
  }
}

struct CudaScan {
  const ScanPlan& p;
  cudaStream_t stream;
  template <typename In, typename F>
  void run(const F& f) {
    // float16/bfloat16 accumulate in float (their compute type): rounding every
    // partial result to the dtype (what torch's CPU scan does) did not match
    // torch's CUDA scans, whose order and accumulation differ by path (the GPU
    // tests compare with them).
    launch<In>(f);
  }
  template <typename In, typename F>
  void launch(const F& f) {
    ScanArgs a{OffsetCalc<2>(p.kept), p.kept.data[0], p.kept.data[1], p.lines, p.len,
               p.in_stride, p.out_stride};
    if (p.in_stride == 1 && p.out_stride == 1) {
      const bool wide = p.len > 512;
      const int TY = wide ? 1 : 8;
      const int64_t blocks = std::min<int64_t>((p.lines + TY - 1) / TY, 65535 * 16);
      if (wide) {
        scan_lines_kernel<256, F, In><<<static_cast<unsigned>(blocks), dim3(256, 1), 0, stream>>>(f, a);
      } else {
        scan_lines_kernel<32, F, In><<<static_cast<unsigned>(blocks), dim3(32, 8), 0, stream>>>(f, a);
      }
    } else {
      scan_strided_kernel<F, In><<<blocks_for(p.lines), kThreads, 0, stream>>>(f, a);
    }
    EMBER_KERNEL_LAUNCH_CHECK();
  }
};

}  // namespace

namespace internal {

void scan_cuda(ScanOp op, const ScanPlan& p, ScalarType in, ScalarType, int device) {
  cuda::DeviceGuard guard(device);
  CudaScan r{p, cuda::current_stream(device).handle()};
  dispatch_scan(op, in, r);
}

}  // namespace internal

}  // namespace ember::ops
