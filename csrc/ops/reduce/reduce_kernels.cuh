// The CUDA reduction kernels (see reduce_plan.hpp for the two shapes) and
// their runner, included by reduce_arith.cu and reduce_minmax.cu.
//
// - inner_kernel<TX>: TX threads (a warp, or a block of 256) reduce one row
//   segment; coalesced, with 16-byte vector loads when the row is contiguous.
//   A row splits into S segments (grid.y) when there are too few rows to fill
//   the GPU or a row is long: each thread then folds at most kSerial vectors
//   (so float32 sums stay accurate: the rest is a tree).
// - column_kernel: blocks of 32 column groups x 8 row lanes; each warp reads
//   32 neighbouring elements of a row, or 32 vectors of 2-4 (16 bytes for
//   float) when the columns are aligned; the 8 lanes combine in shared memory.
// - finish_kernel: when S > 1, one warp per output combines the S partial
//   results from the workspace and writes the output.
// Everything runs on the current stream; the workspace comes from the caching
// allocator and is freed in stream order. Nothing waits on the host.
#pragma once

#include <algorithm>
#include <cstring>

#include "ops/cuda_loops.cuh"
#include "ops/reduce/reduce_dispatch.hpp"
#include "ops/reduce/reduce_plan.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::reduce_cuda {

using namespace cuda_loops;

constexpr int kSerial = 64;  // vector loads a thread folds before the tree

template <typename T>
__device__ __forceinline__ T shfl_down(T v, int offset) {
  constexpr int W = (sizeof(T) + 3) / 4;
  uint32_t w[W] = {};
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], offset);
  memcpy(&v, w, sizeof(T));
  return v;
}

template <typename Op>
__device__ __forceinline__ typename Op::acc_t warp_reduce(const Op& op, typename Op::acc_t a) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) a = op.combine(a, shfl_down(a, off));
  return a;
}

struct InnerArgs {
  OffsetCalc<1> kept;  // byte offset of row o's first element
  const char* data;
  int64_t rows, len, stride;  // stride in elements
  int64_t seg_len;            // elements per segment (a multiple of the vector width)
  int segs;
  void* workspace;            // segs > 1: rows * segs accumulators
  ReduceOutputs outs;
};

template <int TX, typename Op, typename In>
__global__ void inner_kernel(Op op, InnerArgs a) {
  using Acc = typename Op::acc_t;
  using C = typename Op::compute_t;
  constexpr int TY = 256 / TX;
  constexpr int V = 16 / sizeof(In) < 8 ? 16 / sizeof(In) : 8;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * TY + ty;
  const int seg = blockIdx.y;
  Acc acc = op.identity();
  if (row < a.rows) {
    int64_t off[1];
    a.kept.get(row, off);
    const In* x = reinterpret_cast<const In*>(a.data + off[0]);
    const int64_t lo = seg * a.seg_len;
    const int64_t hi = lo + a.seg_len < a.len ? lo + a.seg_len : a.len;
    if (a.stride == 1) {
      // Scalar head up to a 16-byte boundary, vectors, scalar tail.
      const uintptr_t addr = reinterpret_cast<uintptr_t>(x + lo);
      int64_t head = addr % 16 == 0 ? 0 : (16 - addr % 16) / sizeof(In);
      if (addr % sizeof(In) != 0 || head > hi - lo) head = hi - lo;
      for (int64_t i = lo + tx; i < lo + head; i += TX) acc = op.fold(acc, convert<C>(x[i]), i);
      const int64_t vstart = lo + head;
      const int64_t nv = (hi - vstart) / V;
      const Vec<In, V>* xv = reinterpret_cast<const Vec<In, V>*>(x + vstart);
#pragma unroll 4
      for (int64_t j = tx; j < nv; j += TX) {
        const Vec<In, V> v = xv[j];
#pragma unroll
        for (int e = 0; e < V; ++e) acc = op.fold(acc, convert<C>(v.v[e]), vstart + j * V + e);
      }
      for (int64_t i = vstart + nv * V + tx; i < hi; i += TX) acc = op.fold(acc, convert<C>(x[i]), i);
    } else {
      for (int64_t i = lo + tx; i < hi; i += TX) acc = op.fold(acc, convert<C>(x[i * a.stride]), i);
    }
  }
  acc = warp_reduce(op, acc);
  if (TX > 32) {
    __shared__ Acc warps[TX / 32];
    if (tx % 32 == 0) warps[tx / 32] = acc;
    __syncthreads();
    if (tx >= 32) return;
    acc = tx < TX / 32 ? warps[tx] : op.identity();
    acc = warp_reduce(op, acc);
  }
  if (tx != 0 || row >= a.rows) return;
  if (a.segs == 1) {
    write_result(a.outs, row, op.project(acc));
  } else {
    static_cast<Acc*>(a.workspace)[row * a.segs + seg] = acc;
  }
}

struct ColumnArgs {
  OffsetCalc<1> kept;  // byte offset of output o's first element
  const char* data;
  int64_t outputs, cols, colblocks, len, stride;  // stride in elements
  int64_t seg_len;
  int segs;
  bool vec;  // each thread reads column_vec<In>() neighbouring columns with one load
  void* workspace;
  ReduceOutputs outs;
};

// Columns a thread covers with one vector load: 16 bytes for 4- and 8-byte types
// (8 for 2-byte ones, 4 for bytes); each warp row read is then 128-512 contiguous bytes.
template <typename In>
constexpr int column_vec() { return sizeof(In) == 8 ? 2 : 4; }

template <typename In, int V>
struct alignas(sizeof(In) * V) ColumnVec {
  In v[V];
};

// Folds rows [lo, hi) of this thread's lane (ty, ty + 8, ...) into acc[0..V).
// Loads of U rows are issued before their folds (the fold order is unchanged):
// enough bytes in flight per thread to reach bandwidth.
template <int V, typename Op, typename In, typename Acc>
__device__ __forceinline__ void column_fold(const Op& op, const In* x, int64_t stride, int64_t lo,
                                            int64_t hi, int ty, Acc (&acc)[V]) {
  using C = typename Op::compute_t;
  using Vec = ColumnVec<In, V>;
  constexpr int U = V == 1 ? 8 : 4;
  int64_t r = lo + ty;
  for (; r + 8 * (U - 1) < hi; r += 8 * U) {
    Vec v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = *reinterpret_cast<const Vec*>(x + (r + 8 * u) * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int c = 0; c < V; ++c) acc[c] = op.fold(acc[c], convert<C>(v[u].v[c]), r + 8 * u);
    }
  }
  for (; r < hi; r += 8) {
    const Vec v = *reinterpret_cast<const Vec*>(x + r * stride);
#pragma unroll
    for (int c = 0; c < V; ++c) acc[c] = op.fold(acc[c], convert<C>(v.v[c]), r);
  }
}

template <int V, typename Op, typename In>
__device__ __forceinline__ void column_body(const Op& op, const ColumnArgs& a) {
  using Acc = typename Op::acc_t;
  __shared__ Acc lanes[8][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t cb = blockIdx.x % a.colblocks, outer = blockIdx.x / a.colblocks;
  const int64_t j = (cb * 32 + tx) * V;  // first column of this thread
  const int64_t o = outer * a.cols + j;
  const int seg = blockIdx.y;
  Acc acc[V];
#pragma unroll
  for (int c = 0; c < V; ++c) acc[c] = op.identity();
  if (j < a.cols) {
    int64_t off[1];
    a.kept.get(o, off);
    const In* x = reinterpret_cast<const In*>(a.data + off[0]);
    const int64_t lo = seg * a.seg_len;
    const int64_t hi = lo + a.seg_len < a.len ? lo + a.seg_len : a.len;
    column_fold<V>(op, x, a.stride, lo, hi, ty, acc);
  }
#pragma unroll
  for (int c = 0; c < V; ++c) {
    if (c > 0) __syncthreads();  // lanes[0] of the previous column has been read
    lanes[ty][tx] = acc[c];
    __syncthreads();
    if (ty == 0 && j < a.cols) {
#pragma unroll
      for (int w = 4; w > 0; w /= 2) {
        for (int k = 0; k < w; ++k) lanes[k][tx] = op.combine(lanes[k][tx], lanes[k + w][tx]);
      }
      const Acc r = lanes[0][tx];
      if (a.segs == 1) {
        write_result(a.outs, o + c, op.project(r));
      } else {
        static_cast<Acc*>(a.workspace)[(o + c) * a.segs + seg] = r;
      }
    }
  }
}

template <typename Op, typename In>
__global__ void column_kernel(Op op, ColumnArgs a) {
  if (a.vec) {
    column_body<column_vec<In>(), Op, In>(op, a);
  } else {
    column_body<1, Op, In>(op, a);
  }
}

template <typename Op>
__global__ void finish_kernel(Op op, const typename Op::acc_t* ws, int64_t outputs, int segs,
                              ReduceOutputs outs) {
  using Acc = typename Op::acc_t;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * 8 + threadIdx.y;
  if (o >= outputs) return;
  Acc acc = op.identity();
  for (int s = threadIdx.x; s < segs; s += 32) acc = op.combine(acc, ws[o * segs + s]);
  acc = warp_reduce(op, acc);
  if (threadIdx.x == 0) write_result(outs, o, op.project(acc));
}

inline int sm_count(int dev) { return cuda::get_device_properties(dev).multi_processor_count; }

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Runner {
  const ReducePlan& plan;
  ReduceOutputs outs;

  template <typename In, typename Op>
  void run(const Op& op) {
    using Acc = typename Op::acc_t;
    const int dev = plan.input.device().index;
    cuda::DeviceGuard guard(dev);
    cudaStream_t stream = cuda::current_stream(dev).handle();
    const int64_t M = plan.outputs, R = plan.reduced;
    const int64_t want_blocks = int64_t(sm_count(dev)) * 4;
    Tensor workspace;
    auto alloc = [&](int64_t n) {
      workspace = Tensor::empty({n * int64_t(sizeof(Acc))}, ScalarType::UInt8, plan.input.device());
      return workspace.data_ptr();
    };
    int segs = 1;
    if (plan.kind == ReducePlan::Inner) {
      constexpr int V = 16 / sizeof(In) < 8 ? 16 / sizeof(In) : 8;
      const bool wide = R >= 2048 || M < want_blocks;
      const int TX = wide ? 256 : 32, TY = 256 / TX;
      const int64_t row_blocks = ceil_div(M, TY);
      const int64_t per_seg_min = int64_t(TX) * V;  // one vector per thread
      int64_t s = ceil_div(R, per_seg_min * kSerial);
      const int64_t fill = ceil_div(want_blocks, row_blocks);
      s = std::max(s, std::min(fill, ceil_div(R, per_seg_min)));
      s = std::min<int64_t>(std::max<int64_t>(s, 1), 65535);
      InnerArgs a{OffsetCalc<1>(plan.kept), plan.kept.data[0], M, R, plan.stride_r,
                  ceil_div(ceil_div(R, s), V) * V, 0, nullptr, outs};
      segs = static_cast<int>(ceil_div(R, std::max<int64_t>(a.seg_len, 1)));
      if (segs < 1) segs = 1;
      a.segs = segs;
      if (segs > 1) a.workspace = alloc(M * segs);
      const dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(segs));
      if (wide) {
        inner_kernel<256, Op, In><<<grid, dim3(256, 1), 0, stream>>>(op, a);
      } else {
        inner_kernel<32, Op, In><<<grid, dim3(32, 8), 0, stream>>>(op, a);
      }
    } else {
      const int64_t N = plan.kept.shape[0];
      // Vector loads along the columns when every column group starts aligned.
      constexpr int V = column_vec<In>();
      const int64_t vbytes = int64_t(sizeof(In)) * V;
      bool vec = N % V == 0 && plan.stride_r % V == 0 &&
                 reinterpret_cast<uintptr_t>(plan.kept.data[0]) % vbytes == 0;
      for (int d = 1; d < plan.kept.ndim && vec; ++d) vec = plan.kept.strides[0][d] % vbytes == 0;
      const int64_t colblocks = ceil_div(N, int64_t(32) * (vec ? V : 1));
      const int64_t blocks = colblocks * (M / N);
      int64_t s = ceil_div(R, int64_t(8) * kSerial);
      s = std::max(s, std::min(ceil_div(want_blocks, blocks), ceil_div(R, 8)));
      s = std::min<int64_t>(std::max<int64_t>(s, 1), 65535);
      ColumnArgs a{OffsetCalc<1>(plan.kept), plan.kept.data[0], M, N, colblocks, R,
                   plan.stride_r, ceil_div(R, s), 0, vec, nullptr, outs};
      segs = static_cast<int>(ceil_div(R, std::max<int64_t>(a.seg_len, 1)));
      if (segs < 1) segs = 1;
      a.segs = segs;
      if (segs > 1) a.workspace = alloc(M * segs);
      const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(segs));
      column_kernel<Op, In><<<grid, dim3(32, 8), 0, stream>>>(op, a);
    }
    EMBER_KERNEL_LAUNCH_CHECK();
    if (segs > 1) {
      finish_kernel<Op><<<static_cast<unsigned>(ceil_div(M, 8)), dim3(32, 8), 0, stream>>>(
          op, static_cast<const Acc*>(workspace.data_ptr()), M, segs, outs);
      EMBER_KERNEL_LAUNCH_CHECK();
    }
  }
};

}  // namespace ember::ops::reduce_cuda
