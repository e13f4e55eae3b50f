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

// The histogram of digit (key >> shift) & 255 of the elements whose higher
// digits equal the prefix picked so far (block histogram in shared memory,
// then added to the global one). Block b reads chunk [b * chunk, (b + 1) *
// chunk). The last digit's pass (shift 0; `below` given) also keeps each
// block's own histogram (chist[b * 256 + d]) and how many of its keys are
// below the prefix in their higher digits (below[b]), from which
// select_counts_kernel derives each chunk's counts below and equal to the k-th
// key without another pass over the input.
__global__ void __launch_bounds__(kSelThreads)
    radix_hist_kernel(const void* x, int64_t n, int width, sort_keys::Kind kind, bool bf16,
                      bool largest, int shift, int64_t chunk, SelectState* st,
                      unsigned int* chist, unsigned int* below) {
  __shared__ unsigned int sh[256];
  __shared__ unsigned int red[kSelThreads / 32];
  sh[threadIdx.x] = 0;
  __syncthreads();
  const u64 prefix = st->prefix, mask = st->mask;
  const int64_t lo = int64_t(blockIdx.x) * chunk, hi = lo + chunk < n ? lo + chunk : n;
  unsigned int under = 0;
  // Four loads in flight per thread, then their bins. The loop is uniform over
  // the block (warp votes below need every lane); lanes of a warp adding to the
  // same bin are aggregated (one shared atomic per distinct bin: the top digit
  // of typical data falls in a few bins, whose atomics would else serialise).
  const unsigned int lane = threadIdx.x & 31u;
  for (int64_t b0 = lo; b0 < hi; b0 += 4 * kSelThreads) {
    u64 k[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int64_t e = b0 + int64_t(u) * kSelThreads + threadIdx.x;
      k[u] = e < hi ? key_at(x, e, width, kind, bf16, largest) : 0ull;
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const bool in = b0 + int64_t(u) * kSelThreads + threadIdx.x < hi;
      const u64 high = k[u] & mask;
      const bool hit = in && high == prefix;
      under += (in && high < prefix) ? 1u : 0u;
      const unsigned int active = __ballot_sync(0xFFFFFFFFu, hit);
      if (hit) {
        const unsigned int bin = unsigned(k[u] >> shift) & 255u;
        const unsigned int peers = __match_any_sync(active, bin);
        if (lane == unsigned(__ffs(peers) - 1)) atomicAdd(&sh[bin], unsigned(__popc(peers)));
      }
    }
  }
  __syncthreads();
  const unsigned int c = sh[threadIdx.x];
  if (c != 0) atomicAdd(&st->hist[threadIdx.x], c);
  if (below != nullptr) {
    chist[int64_t(blockIdx.x) * 256 + threadIdx.x] = c;
    under = block_sum(under, red);
    if (threadIdx.x == 0) below[blockIdx.x] = under;
  }
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

// Block b: how many keys of chunk b are below the k-th key T (cnt[b]) and
// equal to it (cnt[blocks + b]), from the last pass's chunk histogram: those
// below in their higher digits plus those of the last digit below T's.
__global__ void __launch_bounds__(kSelThreads)
    select_counts_kernel(const SelectState* st, const unsigned int* chist,
                         const unsigned int* below, unsigned int* cnt) {
  __shared__ unsigned int red[kSelThreads / 32];
  const unsigned int d = unsigned(st->prefix & 0xFFu);
  const unsigned int v = chist[int64_t(blockIdx.x) * 256 + threadIdx.x];
  const unsigned int lt = block_sum(threadIdx.x < d ? v : 0u, red);
  const unsigned int eq = block_sum(threadIdx.x == d ? v : 0u, red);
  if (threadIdx.x == 0) {
    cnt[blockIdx.x] = below[blockIdx.x] + lt;
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
  // What this chunk contributes: all its keys below T, and its keys equal to T
  // while fewer than k_rem came before. A chunk with none returns at once, the
  // others once they have written theirs (uniform: run_* are block totals).
  const unsigned int my_eq = cnt[gridDim.x + blockIdx.x];
  const unsigned int want_eq =
      run_eq >= k_rem ? 0u : (my_eq < k_rem - run_eq ? my_eq : k_rem - run_eq);
  const unsigned int end_lt = run_lt + cnt[blockIdx.x], end_eq = run_eq + want_eq;
  if (run_lt >= end_lt && want_eq == 0) return;
  const int64_t lo = int64_t(blockIdx.x) * chunk, hi = lo + chunk < n ? lo + chunk : n;
  // Groups of four tiles: four loads in flight per thread; a group without a
  // candidate is skipped whole (its counts add nothing).
  for (int64_t b0 = lo; b0 < hi; b0 += 4 * kSelThreads) {
    unsigned int f[4];
    unsigned int any = 0;
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int64_t e = b0 + int64_t(u) * kSelThreads + t;
      f[u] = 0;
      if (e < hi) {
        const u64 key = key_at(x, e, width, kind, bf16, largest);
        f[u] = key < T ? 1u : (key == T ? 0x10000u : 0u);
      }
      any |= f[u];
    }
    if (__syncthreads_or(any != 0) == 0) continue;
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const int64_t e = b0 + int64_t(u) * kSelThreads + t;
      unsigned int incl = f[u];
      for (int off = 1; off < 32; off <<= 1) {
        const unsigned int v = __shfl_up_sync(0xFFFFFFFFu, incl, off);
        if (lane >= off) incl += v;
      }
      if (lane == 31) red[warp] = incl;
      __syncthreads();
      unsigned int before = 0, total = 0;
#pragma unroll
      for (int w = 0; w < kSelThreads / 32; ++w) {
        const unsigned int sum = red[w];
        before += w < warp ? sum : 0u;
        total += sum;
      }
      __syncthreads();  // red is rewritten by the next tile
      const unsigned int excl = before + incl - f[u];
      if (f[u] == 1u) {
        const unsigned int pos = run_lt + (excl & 0xFFFFu);
        copy_elem(x, e, out, pos, width);
        out_idx[pos] = e;
      } else if (f[u] == 0x10000u) {
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
    if (run_lt >= end_lt && run_eq >= end_eq) break;
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
  // One allocation: the state, cnt (2 x blocks), below (blocks), chist (256 x blocks).
  const Tensor scratch = Tensor::empty({int64_t(sizeof(SelectState)) + 259 * blocks * 4 + 16},
                                       ScalarType::UInt8, dev);
  SelectState* st = static_cast<SelectState*>(scratch.data_ptr());
  unsigned int* cnt = reinterpret_cast<unsigned int*>(static_cast<char*>(scratch.data_ptr()) +
                                                      sizeof(SelectState));
  unsigned int* below = cnt + 2 * blocks;
  unsigned int* chist = below + blocks;
  const void* x = xc.data_ptr();
  const unsigned grid = unsigned(blocks);
  select_init_kernel<<<1, 256, 0, stream>>>(st, unsigned(k));
  EMBER_KERNEL_LAUNCH_CHECK();
  for (int shift = width * 8 - 8; shift >= 0; shift -= 8) {
    const bool last = shift == 0;
    radix_hist_kernel<<<grid, kSelThreads, 0, stream>>>(x, n, width, kind, bf16, largest, shift,
                                                         chunk, st, last ? chist : nullptr,
                                                         last ? below : nullptr);
    EMBER_KERNEL_LAUNCH_CHECK();
    radix_pick_kernel<<<1, kSelThreads, 0, stream>>>(shift, st);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  select_counts_kernel<<<grid, kSelThreads, 0, stream>>>(st, chist, below, cnt);
  EMBER_KERNEL_LAUNCH_CHECK();
  select_write_kernel<<<grid, kSelThreads, 0, stream>>>(
      x, n, width, kind, bf16, largest, chunk, st, cnt, unsigned(k), values.data_ptr(),
      static_cast<int64_t*>(indices.data_ptr()));
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace ember::ops::internal
