// embedding on the GPU: a row gather, an atomicAdd scatter for backward, a
// row renormalisation for max_norm. Bad indices never touch memory outside
// the weight: they are recorded in the device's IndexErrorRecord
// (runtime/device_error.hpp says when that is reported) and give zero rows /
// no gradient.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ops/cuda_loops.cuh"
#include "ops/elementwise.hpp"
#include "ops/nn/embedding.hpp"
#include "ops/fill/fill.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.cuh"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

// Where a kernel records a bad index: the device's shared IndexErrorRecord
// (runtime/device_error.hpp) and this op's name.
struct PendingError {
  cuda::IndexErrorRecord* rec;
  const char* op;
};

PendingError error_slot(int device, const char* op) {
  // an earlier kernel's bad index is reported at the next synchronising call, not here
  return PendingError{cuda::index_error_record(device), cuda::intern_op_name(op)};
}

__device__ __forceinline__ void record_bad(const PendingError& e, int64_t v, int64_t rows) {
  cuda::record_index_error(e.rec, v, rows, 0, e.op);
}

// Block (bx, by): threadIdx.y picks a row, threadIdx.x walks its D elements.
dim3 row_block(int64_t D) {
  unsigned bx = 32;
  while (bx < 256 && static_cast<int64_t>(bx) < D) bx *= 2;
  return dim3(bx, 256 / bx);
}

unsigned row_grid(int64_t rows, unsigned by) {
  const int64_t b = (rows + by - 1) / by;
  return static_cast<unsigned>(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

template <typename B>  // same-size bits: the gather moves bits, never converts
__global__ void emb_fwd_kernel(const B* __restrict__ w, int64_t rs, int64_t cs,
                               const int64_t* __restrict__ idx, B* __restrict__ out, int64_t n,
                               int64_t D, int64_t V, PendingError err) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; r < n;
       r += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t v = idx[r];
    const bool bad = v < 0 || v >= V;
    if (bad && threadIdx.x == 0) record_bad(err, v, V);
    B* o = out + r * D;
    const B* row = w + (bad ? 0 : v) * rs;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) o[j] = bad ? B(0) : row[j * cs];
  }
}

__global__ void emb_count_kernel(const int64_t* __restrict__ idx, int64_t n, int64_t V,
                                 int* __restrict__ counts) {
  for (int64_t r = cuda_loops::global_id(); r < n; r += cuda_loops::grid_size()) {
    const int64_t v = idx[r];
    if (v >= 0 && v < V) atomicAdd(&counts[v], 1);
  }
}

template <typename T, typename G>
__global__ void emb_bwd_kernel(const T* __restrict__ g, const int64_t* __restrict__ idx,
                               G* __restrict__ gw, const int* __restrict__ counts, int64_t n,
                               int64_t D, int64_t V, int64_t padding_idx, PendingError err) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; r < n;
       r += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    const int64_t v = idx[r];
    if (v < 0 || v >= V) {
      if (threadIdx.x == 0) record_bad(err, v, V);
      continue;
    }
    if (v == padding_idx) continue;
    const G scale = counts != nullptr ? G(1) / static_cast<G>(counts[v]) : G(1);
    const T* gr = g + r * D;
    G* dst = gw + v * D;
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
      atomicAdd(dst + j, static_cast<G>(gr[j]) * scale);
    }
  }
}

__global__ void emb_mark_kernel(const int64_t* __restrict__ idx, int64_t n, int64_t V,
                                unsigned char* __restrict__ mark, PendingError err) {
  for (int64_t r = cuda_loops::global_id(); r < n; r += cuda_loops::grid_size()) {
    const int64_t v = idx[r];
    if (v < 0 || v >= V) {
      record_bad(err, v, V);
    } else {
      mark[v] = 1;
    }
  }
}

// A weight value in double: half types and float through float, double as is.
template <typename T>
__device__ __forceinline__ double emb_to_double(T v) {
  return static_cast<double>(static_cast<float>(v));
}
__device__ __forceinline__ double emb_to_double(double v) { return v; }
template <typename T>
__device__ __forceinline__ T emb_from_double(double v) {
  return T(static_cast<float>(v));
}
template <>
__device__ __forceinline__ double emb_from_double<double>(double v) {
  return v;
}

// One warp per marked row.
template <typename T>
__global__ void emb_renorm_kernel(T* w, int64_t rs, int64_t cs, int64_t V, int64_t D,
                                  const unsigned char* __restrict__ mark, double max_norm,
                                  double p) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t v = cuda_loops::global_id() / 32; v < V; v += warps) {
    if (!mark[v]) continue;
    T* row = w + v * rs;
    double acc = 0.0;
    for (int64_t j = lane; j < D; j += 32) {
      const double a = fabs(emb_to_double(row[j * cs]));
      if (isinf(p)) {
        acc = fmax(acc, a);
      } else if (p == 1.0) {
        acc += a;
      } else if (p == 2.0) {
        acc += a * a;
      } else {
        acc += pow(a, p);
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const double other = __shfl_xor_sync(0xffffffffu, acc, o);
      acc = isinf(p) ? fmax(acc, other) : acc + other;
    }
    const double norm = isinf(p) || p == 1.0 ? acc : p == 2.0 ? sqrt(acc) : pow(acc, 1.0 / p);
    if (norm > max_norm) {
      const double scale = max_norm / (norm + 1e-7);
      for (int64_t j = lane; j < D; j += 32) {
        row[j * cs] = emb_from_double<T>(emb_to_double(row[j * cs]) * scale);
      }
    }
  }
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, true); });
}

}  // namespace

namespace internal {

void embedding_check_errors_cuda(int device) { cuda::check_index_errors(device); }

void embedding_fwd_cuda(const Tensor& w, const Tensor& idx, const Tensor& out) {
  const int dev = w.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  PendingError err = error_slot(dev, "embedding");
  const int64_t n = idx.numel(), D = w.size(1), V = w.size(0);
  const dim3 block = row_block(D);
  dispatch_bits(w.itemsize(), [&](auto tag) {
    using B = typename decltype(tag)::type;
    emb_fwd_kernel<B><<<row_grid(n, block.y), block, 0, st>>>(
        static_cast<const B*>(w.data_ptr()), w.stride(0), w.stride(1),
        static_cast<const int64_t*>(idx.data_ptr()), static_cast<B*>(out.data_ptr()), n, D, V,
        err);
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void embedding_bwd_cuda(const Tensor& g, const Tensor& idx, const Tensor& gw, bool scale_by_freq,
                        int64_t padding_idx) {
  const int dev = g.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  PendingError err = error_slot(dev, "embedding_backward");
  const int64_t n = idx.numel(), D = gw.size(1), V = gw.size(0);
  Tensor counts;
  if (scale_by_freq) {
    counts = Tensor::empty({V}, ScalarType::Int32, g.device());
    zero_(counts);
    emb_count_kernel<<<cuda_loops::blocks_for(n), cuda_loops::kThreads, 0, st>>>(
        static_cast<const int64_t*>(idx.data_ptr()), n, V, static_cast<int*>(counts.data_ptr()));
    EMBER_KERNEL_LAUNCH_CHECK();
  }
  const int* cnt = counts.defined() ? static_cast<const int*>(counts.data_ptr()) : nullptr;
  const dim3 block = row_block(D);
  dispatch_floating(g.dtype(), "embedding_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (gw.dtype() == ScalarType::Float64) {
      emb_bwd_kernel<T, double><<<row_grid(n, block.y), block, 0, st>>>(
          static_cast<const T*>(g.data_ptr()), static_cast<const int64_t*>(idx.data_ptr()),
          static_cast<double*>(gw.data_ptr()), cnt, n, D, V, padding_idx, err);
    } else {
      emb_bwd_kernel<T, float><<<row_grid(n, block.y), block, 0, st>>>(
          static_cast<const T*>(g.data_ptr()), static_cast<const int64_t*>(idx.data_ptr()),
          static_cast<float*>(gw.data_ptr()), cnt, n, D, V, padding_idx, err);
    }
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void embedding_renorm_cuda(const Tensor& w, const Tensor& idx, double max_norm, double p) {
  const int dev = w.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  PendingError err = error_slot(dev, "embedding_renorm_");
  const int64_t n = idx.numel(), D = w.size(1), V = w.size(0);
  Tensor mark = Tensor::empty({V}, ScalarType::UInt8, w.device());
  zero_(mark);
  unsigned char* m = static_cast<unsigned char*>(mark.data_ptr());
  emb_mark_kernel<<<cuda_loops::blocks_for(n), cuda_loops::kThreads, 0, st>>>(
      static_cast<const int64_t*>(idx.data_ptr()), n, V, m, err);
  EMBER_KERNEL_LAUNCH_CHECK();
  dispatch_floating(w.dtype(), "embedding_renorm_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    emb_renorm_kernel<T><<<cuda_loops::blocks_for(V * 32), cuda_loops::kThreads, 0, st>>>(
        static_cast<T*>(w.data_ptr()), w.stride(0), w.stride(1), V, D, m, max_norm, p);
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace internal

}  // namespace ember::ops
