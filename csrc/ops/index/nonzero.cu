// nonzero on the GPU (and through it boolean-mask indexing, masked_select,
// argwhere): a count kernel, one host read of the count (the result's size
// depends on the data, as in torch), CUB's DeviceSelect::Flagged over the flat
// indices, then one kernel turning flat indices into row-major coordinates.
// The only CUB of ops/index: one instantiation (uint8 flags, int64 flat
// indices, int items: chunks of 2^30 flags).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
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
// 16-byte aligned (the rest byte by byte), one atomic per warp.
__global__ void count_nonzero_kernel(const uint8_t* __restrict__ m, int64_t n,
                                     unsigned long long* count) {
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
  if ((threadIdx.x & 31) == 0 && c != 0) atomicAdd(count, c);
}

struct DimSizes {
  int nd;
  int64_t size[kMaxNonzeroDims];
};

// out[d * count + k] = the d-th row-major coordinate of flat[k].
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

}  // namespace

namespace internal {

std::vector<Tensor> nonzero_columns_cuda(const Tensor& t) {
  const Device dev = t.device();
  const int nd = static_cast<int>(t.dim());
  EMBER_CHECK(nd <= kMaxNonzeroDims, "nonzero: at most ", kMaxNonzeroDims,
              " dims are supported on CUDA, got ", nd);
  cuda::DeviceGuard guard(dev.index);
  cudaStream_t stream = cuda::current_stream(dev.index).handle();
  // Flags of one byte, nonzero where t is: bool and uint8 as they are.
  const Tensor m = (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8)
                       ? contiguous(t)
                       : contiguous(to(t, dev, ScalarType::Bool));
  const int64_t n = m.numel();
  const int64_t ncols = nd > 0 ? nd : 1;
  // Chunks of at most 2^30 flags, so that CUB's item counts stay within int on
  // every CCCL version; one count per chunk, all read back with one host sync.
  const int64_t nchunks = (n + kChunk - 1) / kChunk;
  // [0, nchunks): each chunk's count, [nchunks]: DeviceSelect's own count (unused).
  const Tensor counters = Tensor::empty({nchunks + 1}, ScalarType::Int64, dev);
  auto* cnt = static_cast<unsigned long long*>(counters.data_ptr());
  const auto* flags = static_cast<const uint8_t*>(m.data_ptr());
  std::vector<int64_t> counts(static_cast<size_t>(nchunks), 0);
  int64_t count = 0;
  if (n > 0) {
    EMBER_CUDA_CHECK(cudaMemsetAsync(cnt, 0, nchunks * sizeof(unsigned long long), stream));
    for (int64_t c = 0; c < nchunks; ++c) {
      const int64_t len = std::min(kChunk, n - c * kChunk);
      count_nonzero_kernel<<<blocks_for(len, 64), kThreads, 0, stream>>>(flags + c * kChunk,
                                                                          len, cnt + c);
      EMBER_KERNEL_LAUNCH_CHECK();
    }
    cuda::note_host_sync("nonzero / boolean-mask indexing reads the number of nonzero elements "
                         "back to size its result");
    EMBER_CUDA_CHECK(cudaMemcpyAsync(counts.data(), cnt, nchunks * sizeof(int64_t),
                                     cudaMemcpyDeviceToHost, stream));
    EMBER_CUDA_CHECK(cudaStreamSynchronize(stream));
    cuda::check_index_errors(dev.index);  // a synchronising call (runtime/device_error.hpp)
    for (int64_t c : counts) count += c;
  }
  // One block of ncols rows: column d is the contiguous row d.
  const Tensor out = Tensor::empty({ncols, count}, ScalarType::Int64, dev);
  if (count > 0) {
    auto* o = static_cast<int64_t*>(out.data_ptr());
    Tensor flat_t;
    int64_t* flat = o;  // one dim (or a 0-d mask): the flat indices are the coordinates
    if (nd > 1) {
      flat_t = Tensor::empty({count}, ScalarType::Int64, dev);
      flat = static_cast<int64_t*>(flat_t.data_ptr());
    }
    auto* nsel = reinterpret_cast<int64_t*>(cnt + nchunks);
    size_t bytes = 0;
    const int first_len = static_cast<int>(std::min(kChunk, n));
    EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes,
                                                thrust::counting_iterator<int64_t>(0), flags,
                                                flat, nsel, first_len, stream));
    // The first chunk is the longest: its scratch serves every chunk.
    const Tensor ws = Tensor::empty({static_cast<int64_t>(bytes) + 1}, ScalarType::UInt8, dev);
    int64_t done = 0;
    for (int64_t c = 0; c < nchunks; ++c) {
      if (counts[c] == 0) continue;
      const int len = static_cast<int>(std::min(kChunk, n - c * kChunk));
      size_t b2 = bytes;
      EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(
          ws.data_ptr(), b2, thrust::counting_iterator<int64_t>(c * kChunk), flags + c * kChunk,
          flat + done, nsel, len, stream));
      done += counts[c];
    }
    if (nd > 1) {
      DimSizes s{};
      s.nd = nd;
      for (int d = 0; d < nd; ++d) s.size[d] = m.sizes()[d];
      coords_kernel<<<blocks_for(count, 4), kThreads, 0, stream>>>(flat, count, s, o);
      EMBER_KERNEL_LAUNCH_CHECK();
    }
  }
  std::vector<Tensor> cols;
  for (int64_t d = 0; d < ncols; ++d) cols.push_back(select(out, 0, d));
  return cols;
}

}  // namespace internal

}  // namespace ember::ops
