// nonzero on the GPU (and through it boolean-mask indexing, masked_select,
// argwhere): a count kernel, one host read of the count (the result's size
// depends on the data, as in torch), then CUB's DeviceSelect::Flagged over the
// flat indices, whose output iterator (SelectSink) writes each selected flat
// index straight into its final form: the flat index itself (1-D), its
// row-major coordinates as column k of an (ndim, count) block (N-D: nonzero's
// (count, ndim) result is that block transposed, as torch's CUDA nonzero), or
// the element of a source tensor at that index (x[mask] of a mask covering x:
// one pass over the mask and the values, nothing in between).
// The only CUB of ops/index: one instantiation (counting int64 items, uint8
// flags, SelectSink, chunks of at most 2^30 flags), which unique's run starts
// (ops/sort/sort.cu) use too.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/index/index.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.hpp"
#include "runtime/errors.hpp"
#include "runtime/sync_debug.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

using cuda_loops::blocks_for;
using cuda_loops::global_id;
using cuda_loops::grid_size;
using cuda_loops::kThreads;

constexpr int kMaxNonzeroDims = 64;
constexpr int64_t kChunk = int64_t(1) << 30;

// *count += the number of nonzero bytes of m[0, n): 16 bytes a step where m is
// 16-byte aligned (the rest byte by byte), summed over the block, one atomic
// per block.
__global__ void count_nonzero_kernel(const uint8_t* __restrict__ m, int64_t n,
                                     unsigned long long* count) {
  __shared__ unsigned long long warp_sum[kThreads / 32];
  unsigned long long c = 0;
  const bool aligned = (reinterpret_cast<uintptr_t>(m) & 15) == 0;
  const int64_t nvec = aligned ? n / 16 : 0;
  const uint4* v = reinterpret_cast<const uint4*>(m);
  for (int64_t i = global_id(); i < nvec; i += grid_size()) {
    const uint4 w = v[i];
    c += (__popc(__vcmpne4(w.x, 0u)) + __popc(__vcmpne4(w.y, 0u)) + __popc(__vcmpne4(w.z, 0u)) +
          __popc(__vcmpne4(w.w, 0u))) >> 3;
  }
  for (int64_t i = nvec * 16 + global_id(); i < n; i += grid_size()) c += m[i] != 0;
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long s = 0;
    for (int w = 0; w < kThreads / 32; ++w) s += warp_sum[w];
    if (s != 0) atomicAdd(count, s);
  }
}

struct DimSizes {
  int nd;
  int64_t size[kMaxNonzeroDims];
};

// out[d * count + k] = the d-th row-major coordinate of flat[k] (more than
// kSinkDims dims: the flat indices are selected first).
__global__ void coords_kernel(const int64_t* __restrict__ flat, int64_t count, DimSizes s,
                              int64_t* __restrict__ out) {
  for (int64_t k = global_id(); k < count; k += grid_size()) {
    int64_t f = flat[k];
    for (int d = s.nd - 1; d > 0; --d) {
      const int64_t q = f / s.size[d];
      out[d * count + k] = f - q * s.size[d];
      f = q;
    }
    out[k] = f;
  }
}

// ---- SelectSink: DeviceSelect::Flagged's output iterator -----------------------------

constexpr int kSinkDims = 8;

enum class SinkMode : int { Flat, Coords, Gather };

struct SinkParams {
  SinkMode mode = SinkMode::Flat;
  char* out = nullptr;        // int64 (Flat, Coords) or elements of `esize` bytes (Gather)
  const char* src = nullptr;  // Gather: the contiguous source
  int64_t count = 0;          // Coords: the length of each coordinate row
  int nd = 1;                 // Coords
  int esize = 1;              // Gather: 1, 2, 4, 8 or 16
  bool index32 = false;       // Coords: every flat index and size below 2^31
  int64_t size[kSinkDims] = {};
};

// The row-major coordinates of f over sizes[0, nd): 32-bit division where the
// tensor has fewer than 2^31 elements.
__device__ __forceinline__ void write_coords(const SinkParams& p, int64_t k, int64_t f) {
  int64_t* o = reinterpret_cast<int64_t*>(p.out);
  if (p.index32) {
    uint32_t g = static_cast<uint32_t>(f);
#pragma unroll
    for (int d = kSinkDims - 1; d > 0; --d) {
      if (d >= p.nd) continue;
      const uint32_t s = static_cast<uint32_t>(p.size[d]);
      const uint32_t q = g / s;
      o[d * p.count + k] = int64_t(g - q * s);
      g = q;
    }
    o[k] = int64_t(g);
    return;
  }
#pragma unroll
  for (int d = kSinkDims - 1; d > 0; --d) {
    if (d >= p.nd) continue;
    const int64_t q = f / p.size[d];
    o[d * p.count + k] = f - q * p.size[d];
    f = q;
  }
  o[k] = f;
}

__device__ __forceinline__ void sink_store(const SinkParams& p, int64_t k, int64_t f) {
  switch (p.mode) {
    case SinkMode::Flat: reinterpret_cast<int64_t*>(p.out)[k] = f; return;
    case SinkMode::Coords: write_coords(p, k, f); return;
    case SinkMode::Gather:
      switch (p.esize) {
        case 1: reinterpret_cast<uint8_t*>(p.out)[k] = reinterpret_cast<const uint8_t*>(p.src)[f]; return;
        case 2: reinterpret_cast<uint16_t*>(p.out)[k] = reinterpret_cast<const uint16_t*>(p.src)[f]; return;
        case 4: reinterpret_cast<uint32_t*>(p.out)[k] = reinterpret_cast<const uint32_t*>(p.src)[f]; return;
        case 8: reinterpret_cast<uint2*>(p.out)[k] = reinterpret_cast<const uint2*>(p.src)[f]; return;
        default: reinterpret_cast<uint4*>(p.out)[k] = reinterpret_cast<const uint4*>(p.src)[f]; return;
      }
  }
}

struct SinkRef {
  const SinkParams& p;
  int64_t k;
  __device__ __forceinline__ const SinkRef& operator=(int64_t f) const {
    sink_store(p, k, f);
    return *this;
  }
};

// An output iterator: position k of the selection, stored as sink_store says.
struct SelectSink {
  using value_type = int64_t;
  using difference_type = int64_t;
  using pointer = void;
  using reference = SinkRef;
  using iterator_category = std::random_access_iterator_tag;

  SinkParams p;
  int64_t k = 0;

  __host__ __device__ SelectSink operator+(int64_t d) const {
    SelectSink s = *this;
    s.k += d;
    return s;
  }
  __host__ __device__ SelectSink& operator+=(int64_t d) {
    k += d;
    return *this;
  }
  __device__ SinkRef operator*() const { return SinkRef{p, k}; }
  __device__ SinkRef operator[](int64_t d) const { return SinkRef{p, k + d}; }
};

// The flags of t: one byte each, nonzero where t is, contiguous (bool and
// uint8 as they are; other dtypes converted to bool first).
Tensor flags_of(const Tensor& t) {
  const Device dev = t.device();
  return (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8)
             ? contiguous(t)
             : contiguous(to(t, dev, ScalarType::Bool));
}

// The nonzero flags of a contiguous byte tensor, counted: chunks of at most
// 2^30 flags (CUB's item counts stay within int on every CCCL version), one
// count per chunk, all read back with one host sync.
struct Counted {
  Tensor flags;
  Tensor counters;  // [0, nchunks): the chunks' counts; [nchunks]: DeviceSelect's own count
  std::vector<int64_t> counts;
  int64_t count = 0;
};

Counted count_flags(const Tensor& m, cudaStream_t stream, const char* what) {
  Counted c;
  c.flags = m;
  const int64_t n = m.numel();
  const int64_t nchunks = (n + kChunk - 1) / kChunk;
  c.counters = Tensor::empty({nchunks + 1}, ScalarType::Int64, m.device());
  c.counts.assign(static_cast<size_t>(nchunks), 0);
  if (n == 0) return c;
  auto* cnt = static_cast<unsigned long long*>(c.counters.data_ptr());
  const auto* flags = static_cast<const uint8_t*>(m.data_ptr());
  EMBER_CUDA_CHECK(cudaMemsetAsync(cnt, 0, nchunks * sizeof(unsigned long long), stream));
  for (int64_t k = 0; k < nchunks; ++k) {
    const int64_t len = std::min(kChunk, n - k * kChunk);
    count_nonzero_kernel<<<blocks_for(len, 64), kThreads, 0, stream>>>(flags + k * kChunk, len,
                                                                        cnt + k);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  cuda::note_host_sync(what);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(c.counts.data(), cnt, nchunks * sizeof(int64_t),
                                   cudaMemcpyDeviceToHost, stream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  cuda::check_index_errors(m.device().index);  // a synchronising call (runtime/device_error.hpp)
  for (int64_t k : c.counts) c.count += k;
  return c;
}

// DeviceSelect::Flagged of the flat indices whose flag is set, chunk by chunk,
// each selected index handed to the sink at its position in the selection.
void select_flagged(const Counted& c, const SinkParams& p, cudaStream_t stream) {
  if (c.count == 0) return;
  const int64_t n = c.flags.numel();
  const int64_t nchunks = static_cast<int64_t>(c.counts.size());
  const auto* flags = static_cast<const uint8_t*>(c.flags.data_ptr());
  auto* nsel = static_cast<int64_t*>(c.counters.data_ptr()) + nchunks;
  size_t bytes = 0;
  const int first_len = static_cast<int>(std::min(kChunk, n));
  EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes,
                                              thrust::counting_iterator<int64_t>(0), flags,
                                              SelectSink{p, 0}, nsel, first_len, stream));
  // The first chunk is the longest: its scratch serves every chunk.
  const Tensor ws =
      Tensor::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::UInt8, c.flags.device());
  int64_t done = 0;
  for (int64_t k = 0; k < nchunks; ++k) {
    if (c.counts[k] == 0) continue;
    const int len = static_cast<int>(std::min(kChunk, n - k * kChunk));
    size_t b2 = bytes;
    EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(
        ws.data_ptr(), b2, thrust::counting_iterator<int64_t>(k * kChunk), flags + k * kChunk,
        SelectSink{p, done}, nsel, len, stream));
    done += c.counts[k];
  }
}

const char* const kNonzeroSync =
    "nonzero / boolean-mask indexing reads the number of nonzero elements back to size its "
    "result";

// The (ncols, count) block of coordinates: row d holds dim d's coordinates.
Tensor coordinate_rows(const Tensor& t) {
  const Device dev = t.device();
  const int nd = static_cast<int>(t.dim());
  EMBER_CHECK(nd <= kMaxNonzeroDims, "nonzero: at most ", kMaxNonzeroDims,
              " dims are supported on CUDA, got ", nd);
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  const Tensor m = flags_of(t);
  const Counted c = count_flags(m, stream, kNonzeroSync);
  const int64_t count = c.count;
  const int64_t ncols = nd > 0 ? nd : 1;
  const Tensor out = Tensor::empty({ncols, count}, ScalarType::Int64, dev);
  if (count == 0) return out;
  SinkParams p;
  p.out = static_cast<char*>(out.data_ptr());
  if (nd <= 1) {  // one dim (or a 0-d mask): the flat indices are the coordinates
    select_flagged(c, p, stream);
  } else if (nd <= kSinkDims) {  // coordinates written as they are selected
    p.mode = SinkMode::Coords;
    p.count = count;
    p.nd = nd;
    p.index32 = m.numel() < (int64_t(1) << 31);
    for (int d = 0; d < nd; ++d) p.size[d] = m.sizes()[d];
    select_flagged(c, p, stream);
  } else {  // many dims: flat indices, then their coordinates
    const Tensor flat = Tensor::empty({count}, ScalarType::Int64, dev);
    p.out = static_cast<char*>(flat.data_ptr());
    select_flagged(c, p, stream);
    DimSizes s{};
    s.nd = nd;
    for (int d = 0; d < nd; ++d) s.size[d] = m.sizes()[d];
    coords_kernel<<<blocks_for(count, 4), kThreads, 0, stream>>>(
        static_cast<const int64_t*>(flat.data_ptr()), count, s,
        static_cast<int64_t*>(out.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  return out;
}

}  // namespace

namespace internal {

std::vector<Tensor> nonzero_columns_cuda(const Tensor& t) {
  const Tensor out = coordinate_rows(t);
  std::vector<Tensor> cols;
  for (int64_t d = 0; d < out.sizes()[0]; ++d) cols.push_back(select(out, 0, d));
  return cols;
}

Tensor nonzero_cuda(const Tensor& t) {
  // (count, ndim) with strides (1, count), as torch's CUDA nonzero: no transposing copy.
  return transpose(coordinate_rows(t), 0, 1);
}

Tensor nonzero_flat_cuda(const Tensor& mask, const char* what) {
  const Device dev = mask.device();
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  const Counted c = count_flags(flags_of(mask), stream, what != nullptr ? what : kNonzeroSync);
  const Tensor out = Tensor::empty({c.count}, ScalarType::Int64, dev);
  SinkParams p;
  p.out = static_cast<char*>(out.data_ptr());
  select_flagged(c, p, stream);
  return out;
}

Tensor masked_gather_cuda(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(self.is_contiguous() && self.numel() == mask.numel(),
              "masked_gather_cuda: takes a contiguous tensor and a mask of as many elements");
  const size_t es = self.itemsize();
  EMBER_CHECK(es == 1 || es == 2 || es == 4 || es == 8 || es == 16,
              "masked_gather_cuda: elements of 1, 2, 4, 8 or 16 bytes, got ", es);
  const Device dev = self.device();
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  const Counted c = count_flags(flags_of(mask), stream, kNonzeroSync);
  const Tensor out = Tensor::empty({c.count}, self.dtype(), dev);
  SinkParams p;
  p.mode = SinkMode::Gather;
  p.out = static_cast<char*>(out.data_ptr());
  p.src = static_cast<const char*>(self.data_ptr());
  p.esize = static_cast<int>(es);
  select_flagged(c, p, stream);
  return out;
}

}  // namespace internal

}  // namespace ember::ops
