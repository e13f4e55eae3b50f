// Short lines on the GPU: one block per line, cub::BlockRadixSort (see
// sort_block.hpp). Block shapes (threads x items per thread) chosen at run
// time by the line length: five for 32-bit keys (32x4, 128x4, 128x8, 256x8,
// 256x16), three for 64-bit keys (32x4, 128x8, 256x16); one instantiation each
// (the width of an 8/16/32-bit element is a run-time switch inside the kernel,
// uniform across the block), to keep the compile time small.
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>

#include <algorithm>
#include <cstdint>

#include "ops/sort/sort_block.hpp"
#include "ops/sort/sort_keys.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::internal {

namespace {

template <typename U>
__device__ __forceinline__ uint32_t load_key_as(const void* x, int64_t e, sort_keys::Kind kind,
                                                bool bf16, bool descending) {
  return uint32_t(sort_keys::key<U>(static_cast<const U*>(x)[e], kind, bf16, descending));
}

// The key of element e of x (elements of `width` bytes: 1, 2 or 4 for 32-bit
// keys, 8 for 64-bit keys).
template <typename KeyT>
__device__ __forceinline__ KeyT load_key(const void* x, int64_t e, int width,
                                         sort_keys::Kind kind, bool bf16, bool descending) {
  if constexpr (sizeof(KeyT) == 8) {
    return sort_keys::key<uint64_t>(static_cast<const uint64_t*>(x)[e], kind, bf16, descending);
  }
  if (width == 1) return load_key_as<uint8_t>(x, e, kind, bf16, descending);
  if (width == 2) return load_key_as<uint16_t>(x, e, kind, bf16, descending);
  return load_key_as<uint32_t>(x, e, kind, bf16, descending);
}

template <typename U>
__device__ __forceinline__ void store_as(const void* x, int64_t src, void* out, int64_t dst,
                                         uint32_t key, sort_keys::Kind kind, bool descending) {
  const U k = U(key);
  // Exact keys invert to their bits; a float's zero and NaN keys are read
  // again from the input so -0.0 and NaN payloads survive.
  static_cast<U*>(out)[dst] = sort_keys::key_is_exact<U>(k, kind, descending)
                                  ? sort_keys::value_of_key<U>(k, kind, descending)
                                  : static_cast<const U*>(x)[src];
}

template <typename KeyT>
__device__ __forceinline__ void store_value(const void* x, int64_t src, void* out, int64_t dst,
                                            KeyT key, int width, sort_keys::Kind kind,
                                            bool descending) {
  if constexpr (sizeof(KeyT) == 8) {
    const uint64_t k = key;
    static_cast<uint64_t*>(out)[dst] = sort_keys::key_is_exact<uint64_t>(k, kind, descending)
                                           ? sort_keys::value_of_key<uint64_t>(k, kind, descending)
                                           : static_cast<const uint64_t*>(x)[src];
    return;
  }
  if (width == 1) {
    store_as<uint8_t>(x, src, out, dst, key, kind, descending);
  } else if (width == 2) {
    store_as<uint16_t>(x, src, out, dst, key, kind, descending);
  } else {
    store_as<uint32_t>(x, src, out, dst, key, kind, descending);
  }
}

// Line r = (o, i) of the [outer, n, inner] view per block (grid-stride over
// lines). The keys are loaded striped (position it * THREADS + t in thread t's
// item it: a warp's loads are contiguous for inner == 1), then exchanged
// through shared memory so thread t holds positions t * ITEMS .. t * ITEMS +
// ITEMS - 1 (the blocked arrangement, whose order BlockRadixSort keeps among
// equal keys: stable); positions >= n are padding with the all-ones key, which sort after
// every real element (real keys of a w-byte dtype are below 2^(8w); equal
// all-ones keys keep the padding, which comes last, last). The sort leaves
// sorted rank it * THREADS + t in thread t's item it (striped), so the writes
// of a warp are contiguous for inner == 1.
template <typename KeyT, int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    block_sort_kernel(const void* x, int64_t lines, int n, int64_t inner, int width,
                      sort_keys::Kind kind, bool bf16, bool descending, void* out,
                      int64_t* out_idx) {
  using Sort = cub::BlockRadixSort<KeyT, THREADS, ITEMS, int>;
  using Exchange = cub::BlockExchange<KeyT, THREADS, ITEMS>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Exchange::TempStorage exchange;
  } tmp;
  for (int64_t r = blockIdx.x; r < lines; r += gridDim.x) {
    const int64_t o = r / inner, i = r - o * inner;
    const int64_t base = o * int64_t(n) * inner + i;
    KeyT keys[ITEMS];
    int vals[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int j = it * THREADS + int(threadIdx.x);
      keys[it] = j < n ? load_key<KeyT>(x, base + int64_t(j) * inner, width, kind, bf16,
                                        descending)
                       : KeyT(~KeyT(0));
    }
    Exchange(tmp.exchange).StripedToBlocked(keys, keys);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) vals[it] = int(threadIdx.x) * ITEMS + it;
    __syncthreads();  // the exchange's storage becomes the sort's
    Sort(tmp.sort).SortBlockedToStriped(keys, vals, 0, width * 8);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int p = it * THREADS + int(threadIdx.x);
      if (p < n) {
        const int64_t dst = base + int64_t(p) * inner;
        store_value<KeyT>(x, base + int64_t(vals[it]) * inner, out, dst, keys[it], width, kind,
                    descending);
        out_idx[dst] = vals[it];
      }
    }
    __syncthreads();  // tmp is reused by the block's next line
  }
}

template <typename KeyT, int THREADS, int ITEMS>
void launch(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
            const Tensor& indices, cudaStream_t stream) {
  const int64_t lines = p.lines();
  const unsigned grid = unsigned(std::min<int64_t>(lines, int64_t(1) << 30));
  block_sort_kernel<KeyT, THREADS, ITEMS><<<grid, THREADS, 0, stream>>>(
      xc.data_ptr(), lines, int(p.n), p.inner, int(xc.itemsize()),
      sort_keys::kind_of(xc.dtype()), xc.dtype() == ScalarType::BFloat16, descending,
      values.data_ptr(), static_cast<int64_t*>(indices.data_ptr()));
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace

void sort_block_cuda(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
                     const Tensor& indices) {
  EMBER_CHECK(p.n >= 1 && p.n <= kBlockSortMax, "sort_block_cuda: lines of 1 to ",
              kBlockSortMax, " elements");
  const int dev_index = xc.device().index;
  cuda::DeviceGuard guard(dev_index);
  cudaStream_t stream = cuda::current_stream(dev_index).handle();
  if (xc.itemsize() == 8) {  // 64-bit keys: three shapes
    if (p.n <= 128) {
      launch<uint64_t, 32, 4>(xc, p, descending, values, indices, stream);
    } else if (p.n <= 1024) {
      launch<uint64_t, 128, 8>(xc, p, descending, values, indices, stream);
    } else {
      launch<uint64_t, 256, 16>(xc, p, descending, values, indices, stream);
    }
  } else if (p.n <= 128) {
    launch<uint32_t, 32, 4>(xc, p, descending, values, indices, stream);  // one warp per line
  } else if (p.n <= 512) {
    launch<uint32_t, 128, 4>(xc, p, descending, values, indices, stream);
  } else if (p.n <= 1024) {
    launch<uint32_t, 128, 8>(xc, p, descending, values, indices, stream);
  } else if (p.n <= 2048) {
    launch<uint32_t, 256, 8>(xc, p, descending, values, indices, stream);
  } else {
    launch<uint32_t, 256, 16>(xc, p, descending, values, indices, stream);
  }
}

}  // namespace ember::ops::internal
