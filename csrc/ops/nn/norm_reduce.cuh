// Block reductions shared by the normalisation kernels (norm.cu: layer/batch norm,
// group_norm.cu): warp and block sums of two accumulators, and 1/sqrt in the
// accumulation type.
#pragma once

namespace ember::ops::norm_cuda {

template <typename A>
__device__ __forceinline__ A warp_sum(A v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sums a and b over a 1-D block (blockDim.x a multiple of 32, at most 1024);
// every thread gets the totals. Safe to call repeatedly.
template <typename A>
__device__ __forceinline__ void block_sum2(A& a, A& b) {
  __shared__ A sa[32], sb[32];
  a = warp_sum(a);
  b = warp_sum(b);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // earlier readers of sa/sb are done
  if (lane == 0) {
    sa[warp] = a;
    sb[warp] = b;
  }
  __syncthreads();
  const int nw = (blockDim.x + 31) >> 5;
  a = lane < nw ? sa[lane] : A(0);
  b = lane < nw ? sb[lane] : A(0);
  a = warp_sum(a);
  b = warp_sum(b);
}

template <typename A>
__device__ __forceinline__ A rsqrt_acc(A v) {
  return A(1) / sqrt(v);
}
template <>
__device__ __forceinline__ float rsqrt_acc<float>(float v) {
  return rsqrtf(v);
}

}  // namespace ember::ops::norm_cuda
