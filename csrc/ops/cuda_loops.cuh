// Building blocks of ember's elementwise CUDA kernels (copy, fill, index; the
// math of issue 6 reuses them): launch geometry, vector types for 16-byte
// loads and stores, and the offsets of an IterLayout's operands for a linear
// index.
#pragma once

#include <cstdint>

#include "runtime/stream.hpp"
#include "tensor/iter.hpp"

namespace ember::ops::cuda_loops {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over `n` items: enough to fill the GPU, few
// enough that each thread loops a little.
inline unsigned blocks_for(int64_t n, int per_thread = 1) {
  const int64_t items = (n + per_thread - 1) / per_thread;
  int64_t b = (items + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  return static_cast<unsigned>(b > 65535 * 8 ? 65535 * 8 : b);
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// Byte offsets of each operand of `it` for the element with linear index `i`
// (dimension 0 the fastest).
template <int N>
__device__ __forceinline__ void offsets(const IterLayout<N>& it, int64_t i, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
  for (int d = 0; d < it.ndim; ++d) {
    const int64_t size = it.shape[d];
    const int64_t q = i / size;
    const int64_t r = i - q * size;
    i = q;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += r * it.strides[k][d];
  }
}

__device__ __forceinline__ int64_t global_id() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t grid_size() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Division by a fixed 32-bit divisor with a multiply and a shift (Granlund
// and Montgomery): valid for dividends below 2^31, which the 32-bit index path
// guarantees.
struct FastDivmod {
  uint32_t divisor = 1, magic = 0, shift = 0;
  FastDivmod() = default;
  explicit FastDivmod(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, magic) + n) >> shift;
  }
};

// Byte offsets of N operands for a linear index, from a layout's shape and
// strides: 32-bit fast division when every index fits in 31 bits, 64-bit
// division otherwise.
template <int N>
struct OffsetCalc {
  int ndim = 0;
  bool index32 = true;
  int64_t shape[kMaxIterDims] = {};
  FastDivmod div[kMaxIterDims];
  int64_t strides[N][kMaxIterDims] = {};

  OffsetCalc() = default;
  template <int M>
  explicit OffsetCalc(const IterLayout<M>& it) : ndim(it.ndim), index32(it.numel < (int64_t(1) << 31)) {
    static_assert(N <= M, "an offset calculator takes the first N operands of a layout");
    for (int d = 0; d < ndim; ++d) {
      shape[d] = it.shape[d];
      if (index32) div[d] = FastDivmod(static_cast<uint32_t>(it.shape[d]));
      for (int k = 0; k < N; ++k) strides[k][d] = it.strides[k][d];
    }
  }

  __device__ __forceinline__ void get(int64_t i, int64_t (&off)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    if (index32) {
      uint32_t r = static_cast<uint32_t>(i);
      for (int d = 0; d < ndim; ++d) {
        const uint32_t q = div[d].div(r);
        const int64_t m = r - q * div[d].divisor;
        r = q;
#pragma unroll
        for (int k = 0; k < N; ++k) off[k] += m * strides[k][d];
      }
      return;
    }
    for (int d = 0; d < ndim; ++d) {
      const int64_t q = i / shape[d];
      const int64_t m = i - q * shape[d];
      i = q;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += m * strides[k][d];
    }
  }
};

}  // namespace ember::ops::cuda_loops
