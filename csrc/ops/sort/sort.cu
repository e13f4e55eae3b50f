// torch.sort on the GPU: CUB's DeviceRadixSort::SortPairs on sort_keys.hpp's
// unsigned keys (see sort.hpp). The only CUB in ember besides nothing: radix
// sort is instantiated twice (uint32 and uint64 keys, int64 values, int
// counts) to keep this file's compile time small; every dtype, both orders
// and every line count map onto those two.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/sort/sort.hpp"
#include "ops/sort/sort_block.hpp"
#include "ops/sort/sort_keys.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/sync_debug.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using cuda_loops::blocks_for;
using cuda_loops::global_id;
using cuda_loops::grid_size;
using cuda_loops::kThreads;

// keys[e] = (line << shift) | key(x at line e / n, position e % n); vals[e] = e.
template <typename U, typename K>
__global__ void make_keys_kernel(const U* x, int64_t total, int64_t n, int64_t inner,
                                 sort_keys::Kind kind, bool bf16, bool descending, int shift,
                                 K* keys, int64_t* vals) {
  for (int64_t e = global_id(); e < total; e += grid_size()) {
    const int64_t r = e / n, j = e - r * n;
    const int64_t o = r / inner, i = r - o * inner;
    K k = K(sort_keys::key<U>(x[(o * n + j) * inner + i], kind, bf16, descending));
    if (shift < int(sizeof(K) * 8)) k |= K(r) << shift;
    keys[e] = k;
    vals[e] = e;
  }
}

// The second pass of 64-bit keys: each element's line.
__global__ void line_keys_kernel(const int64_t* vals, int64_t total, int64_t n, uint64_t* keys) {
  for (int64_t p = global_id(); p < total; p += grid_size()) keys[p] = uint64_t(vals[p] / n);
}

// One line: keys[e] = key(x[e]) - offset; vals[e] = e (when vals is given).
template <typename U, typename K>
__global__ void flat_keys_kernel(const U* x, int64_t total, sort_keys::Kind kind, bool bf16,
                                 bool descending, U offset, K* keys, int64_t* vals) {
  for (int64_t e = global_id(); e < total; e += grid_size()) {
    keys[e] = K(U(sort_keys::key<U>(x[e], kind, bf16, descending) - offset));
    if (vals != nullptr) vals[e] = e;
  }
}

// One line: the value of each sorted key (its inverse; read from the input at
// the sorted index only for a float's zero and NaN keys, so -0.0 and NaN
// payloads survive). keys may alias out (same width: in place).
template <typename U, typename K>
__global__ void flat_finish_kernel(const U* x, const K* keys, const int64_t* idx, int64_t total,
                                   sort_keys::Kind kind, bool descending, U* out) {
  for (int64_t p = global_id(); p < total; p += grid_size()) {
    const U k = U(keys[p]);
    out[p] = sort_keys::key_is_exact<U>(k, kind, descending)
                 ? sort_keys::value_of_key<U>(k, kind, descending)
                 : x[idx[p]];
  }
}

// Segment offsets of `lines` lines of n elements: off[r] = r * n.
__global__ void offsets_kernel(int64_t lines, int64_t n, int* off) {
  for (int64_t r = global_id(); r <= lines; r += grid_size()) off[r] = int(r * n);
}

// Sorted position p holds element e of the same line: values from the input,
// the index along the dim.
template <typename U>
__global__ void finish_kernel(const U* x, const int64_t* vals, int64_t total, int64_t n,
                              int64_t inner, U* out, int64_t* out_idx) {
  for (int64_t p = global_id(); p < total; p += grid_size()) {
    const int64_t e = vals[p];
    const int64_t r = p / n, jo = p - r * n, ji = e - r * n;
    const int64_t o = r / inner, i = r - o * inner;
    const int64_t base = o * n * inner + i;
    out[base + jo * inner] = x[base + ji * inner];
    out_idx[base + jo * inner] = ji;
  }
}

// unique: flags[i] = 1 where a run of equal keys starts (each NaN its own run:
// NaNs are never equal), summed in place into run numbers (1-based) by CUB.
template <typename K>
__global__ void run_flags_kernel(const K* keys, int64_t n, bool nan_distinct, K nan_key,
                                 int64_t* flags) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    const K k = keys[i];
    flags[i] = (i == 0 || k != keys[i - 1] || (nan_distinct && k == nan_key)) ? 1 : 0;
  }
}

// unique of integers: the smallest and largest key (range[0], range[1]; set
// to all-ones and zero before), so the sort covers only the bits they differ in.
template <typename U>
__global__ void key_range_kernel(const U* x, int64_t n, sort_keys::Kind kind,
                                 unsigned long long* range) {
  unsigned long long lo = ~0ull, hi = 0;
  for (int64_t e = global_id(); e < n; e += grid_size()) {
    const unsigned long long k = sort_keys::key<U>(x[e], kind, false, false);
    lo = k < lo ? k : lo;
    hi = k > hi ? k : hi;
  }
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned long long l = __shfl_down_sync(0xFFFFFFFFu, lo, off);
    const unsigned long long h = __shfl_down_sync(0xFFFFFFFFu, hi, off);
    lo = l < lo ? l : lo;
    hi = h > hi ? h : hi;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&range[0], lo);
    atomicMax(&range[1], hi);
  }
}

// unique: each run's value (its first element: from the input through perm,
// from the key itself for keys-only sorts, or the input in place), the end of
// each run, and each element's run number at its input position.
template <typename U, typename K>
__global__ void unique_scatter_kernel(const U* x, const K* keys, const int64_t* perm,
                                      const int64_t* ids, int64_t n, sort_keys::Kind kind,
                                      bool from_keys, U offset, U* values, int64_t* ends,
                                      int64_t* inverse) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    const int64_t r = ids[i] - 1;
    if (i == 0 || ids[i - 1] != ids[i]) {
      values[r] = from_keys ? sort_keys::value_of_key<U>(U(U(keys[i]) + offset), kind, false)
                            : x[perm != nullptr ? perm[i] : i];
    }
    if (ends != nullptr && (i == n - 1 || ids[i + 1] != ids[i])) ends[r] = i + 1;
    if (inverse != nullptr) inverse[perm != nullptr ? perm[i] : i] = r;
  }
}

__global__ void run_counts_kernel(const int64_t* ends, int64_t count, int64_t* counts) {
  for (int64_t r = global_id(); r < count; r += grid_size()) {
    counts[r] = ends[r] - (r > 0 ? ends[r - 1] : 0);
  }
}

// Lines at least this long, few enough for their number to fit beside a
// 32-bit key in 64 bits, are one radix sort of 64-bit line-tagged keys rather
// than a segmented sort (which gives each long segment few blocks).
constexpr int64_t kLongLine = int64_t(1) << 16;

int bits_for(int64_t v) {  // bits needed for the values 0..v
  int b = 0;
  while (b < 63 && (int64_t(1) << b) <= v) ++b;
  return b;
}

int bits_for_u64(uint64_t v) {  // bits needed for the values 0..v
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

// unique of int32/int64 inputs at least this long first reads the keys' range
// (one more host synchronisation) and sorts only its bits.
constexpr int64_t kNarrowUnique = int64_t(1) << 16;

// One radix sort of (keys, vals) over bits [0, end_bit); returns the buffers
// holding the result (CUB ping-pongs between the two of each pair).
template <typename K>
void radix_pairs(cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<int64_t>& vals, int total,
                 int end_bit, const Device& dev, cudaStream_t stream) {
  size_t bytes = 0;
  EMBER_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, total, 0, end_bit, stream));
  const Tensor ws =
      Tensor::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::UInt8, dev);
  EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.data_ptr(), bytes, keys, vals, total, 0,
                                                   end_bit, stream));
}

// CUB's two-phase call: the size query, then the call with scratch from the
// caching allocator (freed, stream-ordered, when ws goes out of scope).
template <typename F>
void with_temp(const Device& dev, F&& call) {
  size_t bytes = 0;
  EMBER_CUDA_CHECK(call(static_cast<void*>(nullptr), bytes));
  const Tensor ws = Tensor::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::UInt8, dev);
  EMBER_CUDA_CHECK(call(ws.data_ptr(), bytes));
}

// One line of any dtype: one SortPairs over the key's own bits (32-bit keys for
// 8/16/32-bit dtypes), indices straight into `indices`, sorted keys into
// `values` itself when of the key's width, then inverted in place.
template <typename U, typename K>
void sort_flat(const Tensor& xc, bool descending, const Tensor& values, const Tensor& indices,
               cudaStream_t stream) {
  const int64_t total = xc.numel();
  const Device dev = xc.device();
  const sort_keys::Kind kind = sort_keys::kind_of(xc.dtype());
  const bool in_place = sizeof(U) == sizeof(K);
  const int64_t kbytes = (total * int64_t(sizeof(K)) + 15) / 16 * 16;
  const Tensor scratch =
      Tensor::empty({(in_place ? 1 : 2) * kbytes + total * 8}, ScalarType::UInt8, dev);
  char* base = static_cast<char*>(scratch.data_ptr());
  K* kin = reinterpret_cast<K*>(base);
  K* kout = in_place ? static_cast<K*>(values.data_ptr()) : reinterpret_cast<K*>(base + kbytes);
  int64_t* vin = reinterpret_cast<int64_t*>(base + (in_place ? 1 : 2) * kbytes);
  int64_t* vout = static_cast<int64_t*>(indices.data_ptr());
  const U* x = static_cast<const U*>(xc.data_ptr());
  flat_keys_kernel<U, K><<<blocks_for(total), kThreads, 0, stream>>>(
      x, total, kind, xc.dtype() == ScalarType::BFloat16, descending, U(0), kin, vin);
  EMBER_KERNEL_LAUNCH_CHECK();
  const int n = int(total), end_bit = int(sizeof(U) * 8);
  with_temp(dev, [&](void* tmp, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, 0, end_bit,
                                           stream);
  });
  flat_finish_kernel<U, K><<<blocks_for(total), kThreads, 0, stream>>>(
      x, kout, vout, total, kind, descending, static_cast<U*>(values.data_ptr()));
  EMBER_KERNEL_LAUNCH_CHECK();
}

// Many lines of an 8/16/32-bit dtype whose line number does not fit beside the
// key in 32 bits: one stable segmented sort of 32-bit keys (no line bits).
template <typename U>
const int64_t* sort_segments(const Tensor& xc, const LinePlan& p, bool descending,
                             Tensor& scratch, cudaStream_t stream) {
  const int64_t total = xc.numel(), lines = p.lines();
  const Device dev = xc.device();
  const int64_t kbytes = (total * 4 + 15) / 16 * 16;
  const int64_t obytes = ((lines + 1) * 4 + 15) / 16 * 16;
  scratch = Tensor::empty({2 * kbytes + obytes + 2 * total * 8}, ScalarType::UInt8, dev);
  char* base = static_cast<char*>(scratch.data_ptr());
  uint32_t* k0 = reinterpret_cast<uint32_t*>(base);
  uint32_t* k1 = reinterpret_cast<uint32_t*>(base + kbytes);
  int* off = reinterpret_cast<int*>(base + 2 * kbytes);
  int64_t* v0 = reinterpret_cast<int64_t*>(base + 2 * kbytes + obytes);
  int64_t* v1 = v0 + total;
  make_keys_kernel<U, uint32_t><<<blocks_for(total), kThreads, 0, stream>>>(
      static_cast<const U*>(xc.data_ptr()), total, p.n, p.inner, sort_keys::kind_of(xc.dtype()),
      xc.dtype() == ScalarType::BFloat16, descending, 32, k0, v0);
  EMBER_KERNEL_LAUNCH_CHECK();
  offsets_kernel<<<blocks_for(lines + 1), kThreads, 0, stream>>>(lines, p.n, off);
  EMBER_KERNEL_LAUNCH_CHECK();
  with_temp(dev, [&](void* tmp, size_t& bytes) {
    return cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, k0, k1, v0, v1, total, lines,
                                                     off, off + 1, stream);
  });
  return v1;
}

template <typename U, typename K>
const int64_t* sort_lines(const Tensor& xc, const LinePlan& p, bool descending, bool with_line,
                          Tensor& scratch, cudaStream_t stream) {
  const int64_t total = xc.numel();
  const Device dev = xc.device();
  const int kbits = int(sizeof(U) * 8);
  const int shift = with_line ? kbits : int(sizeof(K) * 8);
  const int end_bit = with_line ? kbits + bits_for(p.lines() - 1) : kbits;
  // keys: 2 x total K; vals: 2 x total int64 (one allocation).
  const int64_t kbytes = (total * int64_t(sizeof(K)) + 15) / 16 * 16;
  scratch = Tensor::empty({2 * kbytes + 2 * total * 8}, ScalarType::UInt8, dev);
  char* base = static_cast<char*>(scratch.data_ptr());
  K* k0 = reinterpret_cast<K*>(base);
  K* k1 = reinterpret_cast<K*>(base + kbytes);
  int64_t* v0 = reinterpret_cast<int64_t*>(base + 2 * kbytes);
  int64_t* v1 = v0 + total;
  make_keys_kernel<U, K><<<blocks_for(total), kThreads, 0, stream>>>(
      static_cast<const U*>(xc.data_ptr()), total, p.n, p.inner, sort_keys::kind_of(xc.dtype()),
      xc.dtype() == ScalarType::BFloat16, descending, shift, k0, v0);
  EMBER_KERNEL_LAUNCH_CHECK();
  cub::DoubleBuffer<K> keys(k0, k1);
  cub::DoubleBuffer<int64_t> vals(v0, v1);
  radix_pairs<K>(keys, vals, int(total), end_bit, dev, stream);
  return vals.Current();
}

// unique of keys offset by `offset` (0, or the smallest key of an integer
// input), sorted over bits [0, end_bit).
template <typename U, typename K>
std::tuple<Tensor, Tensor, Tensor> unique_keys(const Tensor& xc, bool sorted, bool want_inverse,
                                               bool want_counts, uint64_t offset, int end_bit,
                                               cudaStream_t stream) {
  const int64_t n = xc.numel();
  const Device dev = xc.device();
  const sort_keys::Kind kind = sort_keys::kind_of(xc.dtype());
  // Integers come back from their keys exactly: sort the keys alone unless the
  // inverse needs the permutation. Floats keep the first element of each run
  // (-0.0 or +0.0, NaN payloads), read through the permutation.
  const bool keys_only = sorted && !want_inverse && kind != sort_keys::Kind::Float;
  const bool with_perm = sorted && !keys_only;
  const int64_t kbytes = (n * int64_t(sizeof(K)) + 15) / 16 * 16;
  const Tensor scratch = Tensor::empty({2 * kbytes + (with_perm ? 3 : 1) * n * 8},
                                       ScalarType::UInt8, dev);
  char* base = static_cast<char*>(scratch.data_ptr());
  K* k0 = reinterpret_cast<K*>(base);
  K* k1 = reinterpret_cast<K*>(base + kbytes);
  int64_t* ids = reinterpret_cast<int64_t*>(base + 2 * kbytes);
  int64_t* v0 = ids + n;
  int64_t* v1 = v0 + n;
  const U* x = static_cast<const U*>(xc.data_ptr());
  flat_keys_kernel<U, K><<<blocks_for(n), kThreads, 0, stream>>>(
      x, n, kind, xc.dtype() == ScalarType::BFloat16, false, U(offset), k0,
      with_perm ? v0 : nullptr);
  EMBER_KERNEL_LAUNCH_CHECK();
  const K* keys = k0;
  const int64_t* perm = nullptr;
  const int ni = int(n);
  if (with_perm) {
    with_temp(dev, [&](void* tmp, size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, k0, k1, v0, v1, ni, 0, end_bit,
                                             stream);
    });
    keys = k1;
    perm = v1;
  } else if (sorted) {
    with_temp(dev, [&](void* tmp, size_t& bytes) {
      return cub::DeviceRadixSort::SortKeys(tmp, bytes, k0, k1, ni, 0, end_bit, stream);
    });
    keys = k1;
  }
  run_flags_kernel<K><<<blocks_for(n), kThreads, 0, stream>>>(
      keys, n, kind == sort_keys::Kind::Float, K(U(~U(0))), ids);
  EMBER_KERNEL_LAUNCH_CHECK();
  with_temp(dev, [&](void* tmp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(tmp, bytes, ids, ids, ni, stream);
  });
  // The (last) host synchronisation: the number of runs sizes the results.
  cuda::note_host_sync("unique: the number of distinct values sizes the result");
  int64_t count = 0;
  EMBER_CUDA_CHECK(
      cudaMemcpyAsync(&count, ids + n - 1, sizeof(count), cudaMemcpyDeviceToHost, stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  Tensor values = Tensor::empty({count}, xc.dtype(), dev);
  Tensor inverse = Tensor::empty({want_inverse ? n : 0}, ScalarType::Int64, dev);
  Tensor counts = Tensor::empty({want_counts ? count : 0}, ScalarType::Int64, dev);
  Tensor ends = Tensor::empty({want_counts ? count : 0}, ScalarType::Int64, dev);
  unique_scatter_kernel<U, K><<<blocks_for(n), kThreads, 0, stream>>>(
      x, keys, perm, ids, n, kind, keys_only, U(offset), static_cast<U*>(values.data_ptr()),
      want_counts ? static_cast<int64_t*>(ends.data_ptr()) : nullptr,
      want_inverse ? static_cast<int64_t*>(inverse.data_ptr()) : nullptr);
  EMBER_KERNEL_LAUNCH_CHECK();
  if (want_counts) {
    run_counts_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<const int64_t*>(ends.data_ptr()), count,
        static_cast<int64_t*>(counts.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  return {values, inverse, counts};
}

}  // namespace

namespace internal {

void sort_cuda(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
               const Tensor& indices) {
  const int64_t total = xc.numel();
  EMBER_CHECK(total <= std::numeric_limits<int>::max(), "sort: ember sorts at most 2^31 - 1 "
              "elements at once on the GPU, got ", total, "; sort slices of the tensor instead");
  const int dev_index = xc.device().index;
  cuda::DeviceGuard guard(dev_index);
  cudaStream_t stream = cuda::current_stream(dev_index).handle();
  if (p.n <= kBlockSortMax) {
    sort_block_cuda(xc, p, descending, values, indices);  // one block per line
    return;
  }
  const int64_t lines = p.lines();
  const int line_bits = bits_for(lines - 1);
  Tensor scratch, scratch2;
  dispatch_bits(xc.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const int kbits = int(sizeof(U) * 8);
    const int64_t* sorted = nullptr;
    if (lines == 1) {
      using K = std::conditional_t<(sizeof(U) <= 4), uint32_t, uint64_t>;
      sort_flat<U, K>(xc, descending, values, indices, stream);
      return;
    }
    if (kbits + line_bits <= 32) {
      sorted = sort_lines<U, uint32_t>(xc, p, descending, true, scratch, stream);
    } else if (kbits <= 32 && (p.n < kLongLine || kbits + line_bits > 64)) {
      if constexpr (sizeof(U) <= 4) sorted = sort_segments<U>(xc, p, descending, scratch, stream);
    } else if (kbits + line_bits <= 64) {
      sorted = sort_lines<U, uint64_t>(xc, p, descending, true, scratch, stream);
    } else {
      // 64-bit keys of several lines: by key over everything, then stably by line.
      sorted = sort_lines<U, uint64_t>(xc, p, descending, false, scratch, stream);
      scratch2 = Tensor::empty({2 * total * 8 + 16}, ScalarType::UInt8, xc.device());
      uint64_t* lk0 = static_cast<uint64_t*>(scratch2.data_ptr());
      uint64_t* lk1 = lk0 + total;
      line_keys_kernel<<<blocks_for(total), kThreads, 0, stream>>>(sorted, total, p.n, lk0);
      EMBER_KERNEL_LAUNCH_CHECK();
      // The values' other buffer: the one CUB did not leave the result in.
      char* base = static_cast<char*>(scratch.data_ptr());
      const int64_t kbytes = (total * 8 + 15) / 16 * 16;
      int64_t* v0 = reinterpret_cast<int64_t*>(base + 2 * kbytes);
      int64_t* other = sorted == v0 ? v0 + total : v0;
      cub::DoubleBuffer<uint64_t> keys(lk0, lk1);
      cub::DoubleBuffer<int64_t> vals(const_cast<int64_t*>(sorted), other);
      radix_pairs<uint64_t>(keys, vals, int(total), line_bits, xc.device(), stream);
      sorted = vals.Current();
    }
    finish_kernel<U><<<blocks_for(total), kThreads, 0, stream>>>(
        static_cast<const U*>(xc.data_ptr()), sorted, total, p.n, p.inner,
        static_cast<U*>(values.data_ptr()), static_cast<int64_t*>(indices.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

std::tuple<Tensor, Tensor, Tensor> unique_cuda(const Tensor& xc, bool sorted, bool want_inverse,
                                               bool want_counts) {
  const int64_t n = xc.numel();
  EMBER_CHECK(n > 0 && n <= std::numeric_limits<int>::max(), "unique: ember takes 1 to 2^31 - 1 "
              "elements at once on the GPU, got ", n);
  const Device dev = xc.device();
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  const sort_keys::Kind kind = sort_keys::kind_of(xc.dtype());
  std::tuple<Tensor, Tensor, Tensor> result;
  dispatch_bits(xc.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    using K = std::conditional_t<(sizeof(U) <= 4), uint32_t, uint64_t>;
    uint64_t offset = 0;
    int end_bit = int(sizeof(U) * 8);
    if constexpr (sizeof(U) >= 4) {
      if (sorted && kind != sort_keys::Kind::Float && n >= kNarrowUnique) {
        // Integers: the keys' range, read back (a second host synchronisation),
        // so the radix sort covers only the bits above the smallest key differ
        // in (2^20 distinct int64 values: ~20 bits, 32-bit keys, not 64).
        const Tensor range = Tensor::empty({2}, ScalarType::Int64, dev);
        unsigned long long* r = static_cast<unsigned long long*>(range.data_ptr());
        EMBER_CUDA_CHECK(cudaMemsetAsync(r, 0xFF, 8, stream));
        EMBER_CUDA_CHECK(cudaMemsetAsync(r + 1, 0, 8, stream));
        key_range_kernel<U><<<blocks_for(n), kThreads, 0, stream>>>(
            static_cast<const U*>(xc.data_ptr()), n, kind, r);
        EMBER_KERNEL_LAUNCH_CHECK();
        cuda::note_host_sync("unique: the range of the integers sets the bits sorted");
        unsigned long long host[2] = {0, 0};
        EMBER_CUDA_CHECK(
            cudaMemcpyAsync(host, r, sizeof(host), cudaMemcpyDeviceToHost, stream));
        EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
        offset = host[0];
        end_bit = std::max(1, bits_for_u64(host[1] - host[0]));
      }
    }
    if constexpr (sizeof(U) == 8) {
      if (end_bit <= 32) {
        result = unique_keys<U, uint32_t>(xc, sorted, want_inverse, want_counts, offset, end_bit,
                                          stream);
        return;
      }
    }
    result = unique_keys<U, K>(xc, sorted, want_inverse, want_counts, offset, end_bit, stream);
  });
  return result;
}

}  // namespace internal

}  // namespace ember::ops
