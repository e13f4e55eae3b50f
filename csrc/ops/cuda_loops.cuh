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

}  // namespace ember::ops::cuda_loops
