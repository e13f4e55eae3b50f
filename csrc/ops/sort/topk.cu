// torch.topk's radix select on the GPU (see topk.hpp). Keys are sort_keys.hpp's
// widened to 64 bits; the element width (1, 2, 4, 8 bytes) is a run-time
// switch inside the kernels (uniform), so each kernel is instantiated once.
// The select state (the digits picked so far, how many of the elements
// matching them are still to take, the histogram) lives on the device.
#include <algorithm>
#include <cstdint>

#include "ops/sort/sort_keys.hpp"
#include "ops/sort/topk.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::internal {

namespace {

using u64 = unsigned long long;
constexpr int kSelThreads = 256;  // every kernel below assumes 256 threads (8 warps)

struct SelectState {
  u64 prefix;          // the key's digits picked so far (bits under `mask`)
  u64 mask;
  unsigned int k_rem;  // elements matching prefix still to take (k at first)
  unsigned int pad;
  unsigned int hist[256];
};

template <typename U>
__device__ __forceinline__ u64 key_as(const void* x, int64_t e, sort_keys::Kind kind, bool bf16,
                                      bool largest) {
  return u64(sort_keys::key<U>(static_cast<const U*>(x)[e], kind, bf16, largest));
}

// The key of element e (largest: inverted, so the k largest values are always
// the k smallest keys).
__device__ __forceinline__ u64 key_at(const void* x, int64_t e, int width, sort_keys::Kind kind,
                                      bool bf16, bool largest) {
  if (width == 1) return key_as<uint8_t>(x, e, kind, bf16, largest);
  if (width == 2) return key_as<uint16_t>(x, e, kind, bf16, largest);
  if (width == 4) return key_as<uint32_t>(x, e, kind, bf16, largest);
  return key_as<uint64_t>(x, e, kind, bf16, largest);
}

__device__ __forceinline__ void copy_elem(const void* x, int64_t src, void* out, int64_t dst,
                                          int width) {
  if (width == 1) {
    static_cast<uint8_t*>(out)[dst] = static_cast<const uint8_t*>(x)[src];
  } else if (width == 2) {
    static_cast<uint16_t*>(out)[dst] = static_cast<const uint16_t*>(x)[src];
  } else if (width == 4) {
    static_cast<uint32_t*>(out)[dst] = static_cast<const uint32_t*>(x)[src];
  } else {
    static_cast<uint64_t*>(out)[dst] = static_cast<const uint64_t*>(x)[src];
  }
}

__global__ void select_init_kernel(SelectState* st, unsigned int k) {
  st->hist[threadIdx.x] = 0;
  if (threadIdx.x == 0) {
    st->prefix = 0;
    st->mask = 0;
    st->k_rem = k;
  }
}

// The histogram of digit (key >> shift) & 255 of the elements whose higher
// digits equal the prefix picked so far (block histogram in shared memory,
// then added to the global one).
__global__ void __launch_bounds__(kSelThreads)
    radix_hist_kernel(const void* x, int64_t n, int width, sort_keys::Kind kind, bool bf16,
                      bool largest, int shift, SelectState* st) {
  __shared__ unsigned int sh[256];
  sh[threadIdx.x] = 0;
  __syncthreads();
  const u64 prefix = st->prefix, mask = st->mask;
  const int64_t stride = int64_t(gridDim.x) * kSelThreads;
  for (int64_t e = int64_t(blockIdx.x) * kSelThreads + threadIdx.x; e < n; e += stride) {
    const u64 k = key_at(x, e, width, kind, bf16, largest);
    if ((k & mask) == prefix) atomicAdd(&sh[unsigned(k >> shift) & 255u], 1u);
  }
  __syncthreads();
  const unsigned int c = sh[threadIdx.x];
  if (c != 0) atomicAdd(&st->hist[threadIdx.x], c);
}

// One block of 256 threads: the digit d whose bin holds the k_rem-th key
// (count below d < k_rem <= count up to d): prefix gets d, k_rem loses the
// count below d; the histogram is zeroed for the next digit.
__global__ void __launch_bounds__(kSelThreads) radix_pick_kernel(int shift, SelectState* st) {
  __shared__ unsigned int c[256];
  const int t = threadIdx.x;
  const unsigned int h = st->hist[t];
  c[t] = h;
  __syncthreads();
  for (int off = 1; off < 256; off <<= 1) {
    const unsigned int v = t >= off ? c[t - off] : 0u;
    __syncthreads();
    c[t] += v;
    __syncthreads();
  }
  const unsigned int k = st->k_rem;
  const unsigned int below = c[t] - h;
  __syncthreads();  // every thread has read k_rem before the one below changes it
  if (below < k && k <= c[t]) {
    st->prefix |= u64(t) << shift;
    st->mask |= u64(0xFF) << shift;
    st->k_rem = k - below;
  }
  st->hist[t] = 0;
}

// Sum of v over the block (256 threads); every thread gets it. `red` holds 8.
__device__ __forceinline__ unsigned int block_sum(unsigned int v, unsigned int* red) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, off);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned int s = 0;
#pragma unroll
  for (int w = 0; w < kSelThreads / 32; ++w) s += red[w];
  __syncthreads();
  return s;
}

// Block b (chunk [b * chunk, (b + 1) * chunk)): how many of its elements have a
// key below the k-th key T (cnt[b]) and equal to it (cnt[blocks + b]).
__global__ void __launch_bounds__(kSelThreads)
    select_count_kernel(const void* x, int64_t n, int width, sort_keys::Kind kind, bool bf16,
                        bool largest, int64_t chunk, const SelectState* st, unsigned int* cnt) {
  __shared__ unsigned int red[kSelThreads / 32];
  const u64 T = st->prefix;
  const int64_t lo = int64_t(blockIdx.x) * chunk, hi = lo + chunk < n ? lo + chunk : n;
  unsigned int lt = 0, eq = 0;
  for (int64_t e = lo + threadIdx.x; e < hi; e += kSelThreads) {
    const u64 k = key_at(x, e, width, kind, bf16, largest);
    lt += k < T ? 1u : 0u;
    eq += k == T ? 1u : 0u;
  }
  lt = block_sum(lt, red);
  eq = block_sum(eq, red);
  if (threadIdx.x == 0) {
    cnt[blockIdx.x] = lt;
    cnt[gridDim.x + blockIdx.x] = eq;
  }
}

// Block b writes, in input order, its elements with a key below T at
// (those of earlier blocks) + rank, and those equal to T whose rank among all
// equal ones (in input order) is below k_rem at k - k_rem + that rank. Tiles of
// 256 elements; a block-wide exclusive scan of (below, equal) flags packed in
// one word (each at most 256 per tile).
__global__ void __launch_bounds__(kSelThreads)
    select_write_kernel(const void* x, int64_t n, int width, sort_keys::Kind kind, bool bf16,
                        bool largest, int64_t chunk, const SelectState* st,
                        const unsigned int* cnt, unsigned int k, void* out, int64_t* out_idx) {
  __shared__ unsigned int red[kSelThreads / 32];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const u64 T = st->prefix;
  const unsigned int k_rem = st->k_rem, lt_total = k - k_rem;
  unsigned int a = 0, b = 0;
  for (unsigned int j = t; j < blockIdx.x; j += kSelThreads) {
    a += cnt[j];
    b += cnt[gridDim.x + j];
  }
  unsigned int run_lt = block_sum(a, red), run_eq = block_sum(b, red);
  if (run_lt >= lt_total && run_eq >= k_rem) return;  // uniform: nothing left to take
  const int64_t lo = int64_t(blockIdx.x) * chunk, hi = lo + chunk < n ? lo + chunk : n;
  for (int64_t start = lo; start < hi; start += kSelThreads) {
    const int64_t e = start + t;
    u64 key = 0;
    unsigned int f = 0;
    if (e < hi) {
      key = key_at(x, e, width, kind, bf16, largest);
      f = key < T ? 1u : (key == T ? 0x10000u : 0u);
    }
    unsigned int incl = f;
    for (int off = 1; off < 32; off <<= 1) {
      const unsigned int v = __shfl_up_sync(0xFFFFFFFFu, incl, off);
      if (lane >= off) incl += v;
    }
    if (lane == 31) red[warp] = incl;
    __syncthreads();
    unsigned int before = 0, total = 0;
#pragma unroll
    for (int w = 0; w < kSelThreads / 32; ++w) {
      const unsigned int s = red[w];
      before += w < warp ? s : 0u;
      total += s;
    }
    __syncthreads();  // red is rewritten by the next tile
    const unsigned int excl = before + incl - f;
    if (f == 1u) {
      const unsigned int pos = run_lt + (excl & 0xFFFFu);
      copy_elem(x, e, out, pos, width);
      out_idx[pos] = e;
    } else if (f == 0x10000u) {
      const unsigned int r = run_eq + (excl >> 16);
      if (r < k_rem) {
        const unsigned int pos = lt_total + r;
        copy_elem(x, e, out, pos, width);
        out_idx[pos] = e;
      }
    }
    run_lt += total & 0xFFFFu;
    run_eq += total >> 16;
  }
}

}  // namespace

void topk_candidates_cuda(const Tensor& xc, int64_t k, bool largest, const Tensor& values,
                          const Tensor& indices) {
  const int64_t n = xc.numel();
  const Device dev = xc.device();
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  const int width = int(xc.itemsize());
  const sort_keys::Kind kind = sort_keys::kind_of(xc.dtype());
  const bool bf16 = xc.dtype() == ScalarType::BFloat16;
  // Chunks of whole tiles, at most 1024 of them (one block each).
  int64_t blocks = std::min<int64_t>(1024, (n + kSelThreads - 1) / kSelThreads);
  const int64_t chunk = ((n + blocks - 1) / blocks + kSelThreads - 1) / kSelThreads * kSelThreads;
  blocks = (n + chunk - 1) / chunk;
  const Tensor scratch =
      Tensor::empty({int64_t(sizeof(SelectState)) + 2 * blocks * 4 + 16}, ScalarType::UInt8, dev);
  SelectState* st = static_cast<SelectState*>(scratch.data_ptr());
  unsigned int* cnt = reinterpret_cast<unsigned int*>(static_cast<char*>(scratch.data_ptr()) +
                                                      sizeof(SelectState));
  const void* x = xc.data_ptr();
  const unsigned hist_blocks = unsigned(std::min<int64_t>(1024, (n + kSelThreads - 1) / kSelThreads));
  select_init_kernel<<<1, 256, 0, stream>>>(st, unsigned(k));
  EMBER_KERNEL_LAUNCH_CHECK();
  for (int shift = width * 8 - 8; shift >= 0; shift -= 8) {
    radix_hist_kernel<<<hist_blocks, kSelThreads, 0, stream>>>(x, n, width, kind, bf16, largest,
                                                                shift, st);
    EMBER_KERNEL_LAUNCH_CHECK();
    radix_pick_kernel<<<1, kSelThreads, 0, stream>>>(shift, st);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  select_count_kernel<<<unsigned(blocks), kSelThreads, 0, stream>>>(x, n, width, kind, bf16,
                                                                     largest, chunk, st, cnt);
  EMBER_KERNEL_LAUNCH_CHECK();
  select_write_kernel<<<unsigned(blocks), kSelThreads, 0, stream>>>(
      x, n, width, kind, bf16, largest, chunk, st, cnt, unsigned(k), values.data_ptr(),
      static_cast<int64_t*>(indices.data_ptr()));
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace ember::ops::internal
