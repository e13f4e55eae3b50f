// torch.sort on the GPU: CUB's DeviceRadixSort::SortPairs on sort_keys.hpp's
// unsigned keys (see sort.hpp). The only CUB in ember besides nothing: radix
// sort is instantiated twice (uint32 and uint64 keys, int64 values, int
// counts) to keep this file's compile time small; every dtype, both orders
// and every line count map onto those two.
#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <limits>

#include "ops/cuda_loops.cuh"
#include "ops/sort/sort.hpp"
#include "ops/sort/sort_keys.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
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

int bits_for(int64_t v) {  // bits needed for the values 0..v
  int b = 0;
  while (b < 63 && (int64_t(1) << b) <= v) ++b;
  return b;
}

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
  const int64_t lines = p.lines();
  const int line_bits = bits_for(lines - 1);
  Tensor scratch, scratch2;
  dispatch_bits(xc.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const int kbits = int(sizeof(U) * 8);
    const int64_t* sorted = nullptr;
    if (kbits + line_bits <= 32) {
      sorted = sort_lines<U, uint32_t>(xc, p, descending, lines > 1, scratch, stream);
    } else if (kbits + line_bits <= 64) {
      sorted = sort_lines<U, uint64_t>(xc, p, descending, lines > 1, scratch, stream);
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

}  // namespace internal

}  // namespace ember::ops
