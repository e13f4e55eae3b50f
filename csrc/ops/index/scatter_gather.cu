// gather / scatter along a dim on the GPU: one grid-stride pass over index's
// shape, int64 offsets; bad indices are skipped and recorded in the device's
// IndexErrorRecord (runtime/device_error.hpp), never asserted. Contiguous
// tensors take the fast paths below (row copy, last-dim gather / scatter,
// one-pass masked_fill; docs/design/ops_index.md).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <optional>

#include <type_traits>

#include "ops/copy/copy.hpp"
#include "ops/cuda_loops.cuh"
#include "ops/index/scatter_functors.hpp"
#include "ops/index/scatter_gather.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.cuh"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

struct Bound {
  int64_t size;    // size of the indexed dim
  int64_t stride;  // its stride in self, elements
  int64_t dim;
  int64_t ignore;
  bool has_ignore;
  bool wrap;
  const char* op;  // interned host string, stored in the record only
  cuda::IndexErrorRecord* err;
};

// k made non-negative; false (and recorded) when out of range.
__device__ __forceinline__ bool fix_index(int64_t& k, const Bound& b) {
  const int64_t raw = k;
  if (b.wrap && k < 0) k += b.size;
  if (k < 0 || k >= b.size) {
    cuda::record_index_error(b.err, raw, b.size, b.dim, b.op);
    return false;
  }
  return true;
}

template <typename T>
__global__ void gather_dim_kernel(IterLayout<3> it, Bound b) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t o[3];
    offsets<3>(it, i, o);
    int64_t k = *reinterpret_cast<const int64_t*>(it.data[2] + o[2]);
    T v = T(0);
    if (fix_index(k, b)) {
      v = *reinterpret_cast<const T*>(it.data[1] + o[1] + k * b.stride * int64_t(sizeof(T)));
    }
    *reinterpret_cast<T*>(it.data[0] + o[0]) = v;
  }
}

// ---- atomics -------------------------------------------------------------------------

// Compare-and-swap combine on the aligned word holding *addr (1, 2, 4 or 8 bytes).
template <int R, typename T>
__device__ void atomic_combine_cas(T* addr, T v) {
  if constexpr (sizeof(T) == 8) {
    auto* w = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *w, assumed;
    do {
      assumed = old;
      T cur;
      memcpy(&cur, &assumed, 8);
      const T nv = scatter_combine<R>(cur, v);
      unsigned long long bits;
      memcpy(&bits, &nv, 8);
      old = atomicCAS(w, assumed, bits);
    } while (old != assumed);
  } else {
    // The 32-bit word that holds the element, and the element's byte shift in it.
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    auto* w = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    const unsigned shift = sizeof(T) == 4 ? 0u : static_cast<unsigned>((a & 3u) * 8u);
    const unsigned mask = sizeof(T) == 4 ? 0xffffffffu : ((1u << (sizeof(T) * 8)) - 1u) << shift;
    unsigned int old = *w, assumed;
    do {
      assumed = old;
      const unsigned int piece = (assumed & mask) >> shift;
      T cur;
      memcpy(&cur, &piece, sizeof(T));
      const T nv = scatter_combine<R>(cur, v);
      unsigned int nbits = 0;
      memcpy(&nbits, &nv, sizeof(T));
      old = atomicCAS(w, assumed, (assumed & ~mask) | ((nbits << shift) & mask));
    } while (old != assumed);
  }
}

template <int R, typename T>
__device__ __forceinline__ void atomic_combine(T* d, T v) {
  if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, float>::value) {
    atomicAdd(d, v);
  } else if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, double>::value) {
    atomicAdd(d, v);
  } else if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, int32_t>::value) {
    atomicAdd(reinterpret_cast<int*>(d), v);
  } else if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, int64_t>::value) {
    atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
  } else if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, Half>::value) {
    atomicAdd(reinterpret_cast<__half*>(d), __ushort_as_half(v.x));
  } else if constexpr (R == int(ScatterReduce::Add) && std::is_same<T, BFloat16>::value) {
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(d), __ushort_as_bfloat16(v.x));
  } else if constexpr ((R == int(ScatterReduce::Max) || R == int(ScatterReduce::Min)) &&
                       (std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value)) {
    using A = std::conditional_t<sizeof(T) == 4, int, long long>;
    if constexpr (R == int(ScatterReduce::Max)) {
      atomicMax(reinterpret_cast<A*>(d), static_cast<A>(v));
    } else {
      atomicMin(reinterpret_cast<A*>(d), static_cast<A>(v));
    }
  } else {
    atomic_combine_cas<R>(d, v);
  }
}

template <int R, typename T>
__global__ void scatter_dim_kernel(IterLayout<3> it, Bound b) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t o[3];
    offsets<3>(it, i, o);
    int64_t k = *reinterpret_cast<const int64_t*>(it.data[1] + o[1]);
    if (!fix_index(k, b)) continue;
    T* d = reinterpret_cast<T*>(it.data[0] + o[0] + k * b.stride * int64_t(sizeof(T)));
    const T v = *reinterpret_cast<const T*>(it.data[2] + o[2]);
    if constexpr (R == int(ScatterReduce::None)) {
      *d = v;
    } else {
      atomic_combine<R>(d, v);
    }
  }
}

__global__ void check_range_kernel(const int64_t* __restrict__ idx, int64_t n, Bound b) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    int64_t k = idx[i];
    if (b.has_ignore && k == b.ignore) continue;
    fix_index(k, b);
  }
}

// The bound of a launch on `dev`. An error recorded earlier is not reported here: it
// belongs to the op that queued it and surfaces at the next synchronising call (raising
// it at a later launch would blame whichever op -- or a later kernel of the same
// composite, e.g. masked_scatter's gather after its range check -- happened to run once
// the GPU had caught up).
Bound make_bound(int dev, int64_t size, int64_t stride, int64_t dim, const IndexRule& rule) {
  Bound b{};
  b.size = size;
  b.stride = stride;
  b.dim = dim;
  b.wrap = rule.wrap;
  b.op = cuda::intern_op_name(rule.op);
  b.err = cuda::index_error_record(dev);
  return b;
}

// ---- fast paths for contiguous tensors (scatter_gather.cpp picks them) -----------------
// No per-element offset calculation: int64 row arithmetic, 16-byte vector loads and
// stores where the sizes and pointers allow, a 32-bit multiply-shift division where
// every linear index fits in 31 bits (64-bit division otherwise).

// Row copy, one group of G = 2^glog threads per row (256 / G rows per block); U is the
// unit the rows are copied in (16, 8, 4, 2 or 1 bytes). Row r = (o, j) of out, viewed
// [outer, n, inner], is row o * size + idx[j * idx_stride] of self; a bad index gives a
// zero row.
template <typename U>
__global__ void index_rows_kernel(U* __restrict__ out, const U* __restrict__ self,
                                  const int64_t* __restrict__ idx, int64_t idx_stride, int64_t n,
                                  int64_t rows, int64_t units, int glog, FastDivmod divn,
                                  bool div32, Bound b) {
  const int64_t g = int64_t(1) << glog;
  const int64_t lane = threadIdx.x & (g - 1);
  const int64_t per_block = kThreads >> glog;
  for (int64_t r = int64_t(blockIdx.x) * per_block + (threadIdx.x >> glog); r < rows;
       r += int64_t(gridDim.x) * per_block) {
    int64_t o = 0, j = r;
    if (rows != n) {
      o = div32 ? int64_t(divn.div(static_cast<uint32_t>(r))) : r / n;
      j = r - o * n;
    }
    int64_t k = idx[j * idx_stride];
    U* d = out + r * units;
    if (!fix_index(k, b)) {
      for (int64_t u = lane; u < units; u += g) d[u] = U{};
      continue;
    }
    const U* src = self + (o * b.size + k) * units;
    int64_t u = lane;
    for (; u + 3 * g < units; u += 4 * g) {  // four loads in flight per thread
      const U a0 = src[u], a1 = src[u + g], a2 = src[u + 2 * g], a3 = src[u + 3 * g];
      d[u] = a0;
      d[u + g] = a1;
      d[u + 2 * g] = a2;
      d[u + 3 * g] = a3;
    }
    for (; u < units; u += g) d[u] = src[u];
  }
}

// V consecutive indices from idx + j * V (16-byte loads when V is even).
template <int V>
__device__ __forceinline__ void load_indices(const int64_t* __restrict__ idx, int64_t j,
                                             int64_t (&k)[V]) {
  if constexpr (V == 1) {
    k[0] = idx[j];
  } else {
#pragma unroll
    for (int h = 0; h < V / 2; ++h) {
      const Vec<int64_t, 2> p = reinterpret_cast<const Vec<int64_t, 2>*>(idx + j * V)[h];
      k[2 * h] = p.v[0];
      k[2 * h + 1] = p.v[1];
    }
  }
}

// The row of self (along the last dim) that linear element i of index belongs to.
__device__ __forceinline__ int64_t row_of(int64_t i, int64_t n, const FastDivmod& divn,
                                          bool div32) {
  return div32 ? int64_t(divn.div(static_cast<uint32_t>(i))) : i / n;
}

constexpr int kFastUnroll = 2;  // vectors per thread and step: their loads are issued first

// out[i] = self[(i / n) * size + idx[i]]; vector j holds elements j * V ... j * V + V - 1,
// all in one row (n % V == 0).
template <typename T, int V>
__global__ void gather_last_kernel(T* __restrict__ out, const T* __restrict__ self,
                                   const int64_t* __restrict__ idx, int64_t nvec, int64_t n,
                                   FastDivmod divn, bool div32, Bound b) {
  const int64_t step = grid_size();
  for (int64_t j0 = global_id(); j0 < nvec; j0 += step * kFastUnroll) {
    int64_t k[kFastUnroll][V];
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      if (j0 + u * step < nvec) load_indices<V>(idx, j0 + u * step, k[u]);
    }
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      const int64_t j = j0 + u * step;
      if (j >= nvec) break;
      const T* s = self + row_of(j * V, n, divn, div32) * b.size;
      Vec<T, V> r;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        int64_t kk = k[u][e];
        r.v[e] = fix_index(kk, b) ? s[kk] : T(0);
      }
      reinterpret_cast<Vec<T, V>*>(out)[j] = r;
    }
  }
}

template <int R, typename T, int V>
__global__ void scatter_last_kernel(T* __restrict__ self, const int64_t* __restrict__ idx,
                                    const T* __restrict__ src, int64_t nvec, int64_t n,
                                    FastDivmod divn, bool div32, Bound b) {
  const int64_t step = grid_size();
  for (int64_t j0 = global_id(); j0 < nvec; j0 += step * kFastUnroll) {
    int64_t k[kFastUnroll][V];
    Vec<T, V> v[kFastUnroll];
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      const int64_t j = j0 + u * step;
      if (j < nvec) {
        load_indices<V>(idx, j, k[u]);
        v[u] = reinterpret_cast<const Vec<T, V>*>(src)[j];
      }
    }
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      const int64_t j = j0 + u * step;
      if (j >= nvec) break;
      T* d = self + row_of(j * V, n, divn, div32) * b.size;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        int64_t kk = k[u][e];
        if (!fix_index(kk, b)) continue;
        if constexpr (R == int(ScatterReduce::None)) {
          d[kk] = v[u].v[e];
        } else {
          atomic_combine<R>(d + kk, v[u].v[e]);
        }
      }
    }
  }
}

// scatter_add along the last dim with long index rows (index row r adds into self
// row r): a block per row sums the row's values in shared memory, then adds the
// row to self once, coalesced -- random atomics on shared memory instead of global
// ones, and self read and written once. The sums start at -0.0, which adds
// nothing (-0.0 + v is v, x + -0.0 is x, signed zeros included): untouched
// elements keep their value and bits. T: float, double, int32, int64.
constexpr int kRowThreads = 512;

template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    scatter_add_rows_smem_kernel(T* __restrict__ self, const int64_t* __restrict__ idx,
                                 const T* __restrict__ src, int64_t rows, int64_t n, Bound b) {
  extern __shared__ __align__(16) unsigned char row_smem[];
  T* acc = reinterpret_cast<T*>(row_smem);
  const int64_t size = b.size;
  const T zero = std::is_floating_point<T>::value ? T(-0.0) : T(0);
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    for (int64_t c = threadIdx.x; c < size; c += kRowThreads) acc[c] = zero;
    __syncthreads();
    const int64_t* ir = idx + r * n;
    const T* sr = src + r * n;
    constexpr int U = 4;  // loads issued before their atomics
    int64_t j = threadIdx.x;
    for (; j + (U - 1) * kRowThreads < n; j += U * kRowThreads) {
      int64_t k[U];
      T v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        k[u] = ir[j + u * kRowThreads];
        v[u] = sr[j + u * kRowThreads];
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (fix_index(k[u], b)) atomic_combine<1>(acc + k[u], v[u]);
      }
    }
    for (; j < n; j += kRowThreads) {
      int64_t k = ir[j];
      if (fix_index(k, b)) atomic_combine<1>(acc + k, sr[j]);
    }
    __syncthreads();
    T* dr = self + r * size;
    for (int64_t c = threadIdx.x; c < size; c += kRowThreads) dr[c] = dr[c] + acc[c];
    __syncthreads();  // acc is reset for the next row
  }
}

// Whether scatter_add_rows_smem_kernel takes this: a dtype it has, rows that fit
// shared memory (2 blocks an SM), and index rows long enough that reading and
// writing self's row once costs less than their atomics.
template <typename T>
bool scatter_add_rows_smem(T* self, const int64_t* idx, const T* src, int64_t numel, int64_t n,
                           const Bound& b, cudaStream_t st) {
  constexpr bool ok = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                      std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value;
  if constexpr (!ok) {
    return false;
  } else {
    const int64_t bytes = b.size * int64_t(sizeof(T));
    if (n <= 0 || bytes > 96 * 1024 || n * 4 < b.size) return false;
    if (bytes > 48 * 1024) {
      EMBER_CUDA_CHECK(cudaFuncSetAttribute(scatter_add_rows_smem_kernel<T>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(bytes)));
    }
    const int64_t rows = numel / n;
    const unsigned grid = static_cast<unsigned>(std::min<int64_t>(rows, int64_t(1) << 20));
    scatter_add_rows_smem_kernel<T><<<grid, kRowThreads, static_cast<size_t>(bytes), st>>>(
        self, idx, src, rows, n, b);
    return true;
  }
}

// out[i] = mask[i % mn] ? *value : self[i] (out may be self). With V > 1: 16-byte vectors
// of self and out, and the V mask bytes of a vector in one aligned load (mn % V == 0).
template <typename T, int V>
__global__ void masked_fill_kernel(T* out, const T* self, const bool* __restrict__ mask,
                                   const T* __restrict__ value, int64_t nvec, int64_t mn,
                                   bool full, FastDivmod divm, bool div32) {
  const T fill = *value;
  const int64_t step = grid_size();
  for (int64_t j0 = global_id(); j0 < nvec; j0 += step * kFastUnroll) {
    Vec<T, V> x[kFastUnroll];
    Vec<bool, V> m[kFastUnroll];
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      const int64_t j = j0 + u * step;
      if (j < nvec) {
        const int64_t i = j * V;
        const int64_t mi = full    ? i
                           : div32 ? i - int64_t(divm.div(static_cast<uint32_t>(i))) * mn
                                   : i % mn;
        x[u] = reinterpret_cast<const Vec<T, V>*>(self)[j];
        m[u] = *reinterpret_cast<const Vec<bool, V>*>(mask + mi);
      }
    }
#pragma unroll
    for (int u = 0; u < kFastUnroll; ++u) {
      const int64_t j = j0 + u * step;
      if (j >= nvec) break;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if (m[u].v[e]) x[u].v[e] = fill;
      }
      reinterpret_cast<Vec<T, V>*>(out)[j] = x[u];
    }
  }
}

bool aligned(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

// Elements per vector of the last-dim fast paths: 4 (two 16-byte index loads), 2 for
// 8-byte types; 1 when n or a pointer does not allow it.
template <typename T>
constexpr int last_vec() {
  return sizeof(T) == 8 ? 2 : 4;
}

}  // namespace

namespace internal {

void index_rows_cuda(const Tensor& out, const Tensor& self, const Tensor& index,
                     int64_t idx_stride, int64_t outer, int64_t n, int64_t size, int64_t inner,
                     int64_t dim, const IndexRule& rule) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const Bound b = make_bound(dev, size, inner, dim, rule);
  const int64_t rows = outer * n;
  const int64_t row_bytes = inner * static_cast<int64_t>(out.itemsize());
  int w = 16;  // the widest unit that divides a row and both base pointers
  while (w > 1 && (row_bytes % w != 0 || !aligned(out.data_ptr(), w) ||
                   !aligned(self.data_ptr(), w))) {
    w /= 2;
  }
  const int64_t units = row_bytes / w;
  int glog = 0;  // about four units per thread, 1 to 256 threads per row
  while (glog < 8 && (int64_t(1) << glog) * 4 < units) ++glog;
  const int64_t per_block = kThreads >> glog;
  int64_t blocks = (rows + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : blocks > 65535 * 8 ? 65535 * 8 : blocks;
  const bool div32 = rows < (int64_t(1) << 31);
  const FastDivmod divn(div32 ? static_cast<uint32_t>(n) : 1u);
  const auto* idx = static_cast<const int64_t*>(index.data_ptr());
  auto launch = [&](auto tag) {
    using U = typename decltype(tag)::type;
    index_rows_kernel<U><<<static_cast<unsigned>(blocks), kThreads, 0, st>>>(
        static_cast<U*>(out.data_ptr()), static_cast<const U*>(self.data_ptr()), idx,
        idx_stride, n, rows, units, glog, divn, div32, b);
  };
  switch (w) {
    case 16: launch(TypeTag<uint4>{}); break;
    case 8: launch(TypeTag<uint2>{}); break;
    case 4: launch(TypeTag<unsigned int>{}); break;
    case 2: launch(TypeTag<unsigned short>{}); break;
    default: launch(TypeTag<unsigned char>{}); break;
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

void gather_last_cuda(const Tensor& out, const Tensor& self, const Tensor& index, int64_t size,
                      int64_t dim, const IndexRule& rule) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const Bound b = make_bound(dev, size, 1, dim, rule);
  const int64_t numel = index.numel(), n = index.size(dim);
  const bool div32 = numel < (int64_t(1) << 31);
  const FastDivmod divn(div32 ? static_cast<uint32_t>(n) : 1u);
  const auto* idx = static_cast<const int64_t*>(index.data_ptr());
  dispatch_bits(out.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = last_vec<T>();
    T* o = static_cast<T*>(out.data_ptr());
    const T* s = static_cast<const T*>(self.data_ptr());
    if (n % V == 0 && aligned(o, V * sizeof(T)) && aligned(idx, 16)) {
      gather_last_kernel<T, V><<<blocks_for(numel / V, kFastUnroll), kThreads, 0, st>>>(
          o, s, idx, numel / V, n, divn, div32, b);
    } else {
      gather_last_kernel<T, 1><<<blocks_for(numel, kFastUnroll), kThreads, 0, st>>>(
          o, s, idx, numel, n, divn, div32, b);
    }
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void scatter_last_cuda(const Tensor& self, const Tensor& index, const Tensor& src, int64_t size,
                       int64_t dim, ScatterReduce reduce, const IndexRule& rule) {
  const int dev = self.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const Bound b = make_bound(dev, size, 1, dim, rule);
  const int64_t numel = index.numel(), n = index.size(dim);
  const bool div32 = numel < (int64_t(1) << 31);
  const FastDivmod divn(div32 ? static_cast<uint32_t>(n) : 1u);
  const auto* idx = static_cast<const int64_t*>(index.data_ptr());
  auto launch = [&](auto rtag, auto tag) {
    constexpr int R = decltype(rtag)::value;
    using T = typename decltype(tag)::type;
    constexpr int V = last_vec<T>();
    T* d = static_cast<T*>(self.data_ptr());
    const T* s = static_cast<const T*>(src.data_ptr());
    if constexpr (R == int(ScatterReduce::Add)) {
      if (scatter_add_rows_smem<T>(d, idx, s, numel, n, b, st)) return;
    }
    if (n % V == 0 && aligned(s, V * sizeof(T)) && aligned(idx, 16)) {
      scatter_last_kernel<R, T, V><<<blocks_for(numel / V, kFastUnroll), kThreads, 0, st>>>(
          d, idx, s, numel / V, n, divn, div32, b);
    } else {
      scatter_last_kernel<R, T, 1><<<blocks_for(numel, kFastUnroll), kThreads, 0, st>>>(
          d, idx, s, numel, n, divn, div32, b);
    }
  };
  using RNone = std::integral_constant<int, 0>;
  if (reduce == ScatterReduce::None) {
    dispatch_bits(self.itemsize(), [&](auto tag) { launch(RNone{}, tag); });
  } else {
    dispatch(self.dtype(), [&](auto tag) {
      switch (reduce) {
        case ScatterReduce::Add: launch(std::integral_constant<int, 1>{}, tag); break;
        case ScatterReduce::Mul: launch(std::integral_constant<int, 2>{}, tag); break;
        case ScatterReduce::Max: launch(std::integral_constant<int, 3>{}, tag); break;
        default: launch(std::integral_constant<int, 4>{}, tag); break;
      }
    });
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

void masked_fill_cuda(const Tensor& out, const Tensor& self, const Tensor& mask,
                      const Tensor& value) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const int64_t n = self.numel(), mn = mask.numel();
  const bool full = mn == n;
  const bool div32 = n < (int64_t(1) << 31);
  const FastDivmod divm(div32 && !full ? static_cast<uint32_t>(mn) : 1u);
  const auto* m = static_cast<const bool*>(mask.data_ptr());
  dispatch_bits(out.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int V = static_cast<int>(16 / sizeof(T));
    T* o = static_cast<T*>(out.data_ptr());
    const T* s = static_cast<const T*>(self.data_ptr());
    const T* v = static_cast<const T*>(value.data_ptr());
    if (n % V == 0 && mn % V == 0 && aligned(o, 16) && aligned(s, 16) && aligned(m, V)) {
      masked_fill_kernel<T, V><<<blocks_for(n / V, kFastUnroll), kThreads, 0, st>>>(
          o, s, m, v, n / V, mn, full, divm, div32);
    } else {
      masked_fill_kernel<T, 1><<<blocks_for(n, kFastUnroll), kThreads, 0, st>>>(
          o, s, m, v, n, mn, full, divm, div32);
    }
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void gather_dim_cuda(const Tensor& out, const Tensor& self_v, const Tensor& index, int64_t size,
                     int64_t stride, int64_t dim, const IndexRule& rule) {
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const Bound b = make_bound(dev, size, stride, dim, rule);
  const IterLayout<3> it = make_iter<3>(out.sizes(), {&out, &self_v, &index});
  dispatch_bits(out.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_dim_kernel<T><<<blocks_for(it.numel, 4), kThreads, 0, st>>>(it, b);
  });
  EMBER_KERNEL_LAUNCH_CHECK();
}

void scatter_dim_cuda(const Tensor& self_v, const Tensor& index, const Tensor& src_v,
                      int64_t size, int64_t stride, int64_t dim, ScatterReduce reduce,
                      const IndexRule& rule) {
  const int dev = self_v.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const Bound b = make_bound(dev, size, stride, dim, rule);
  const IterLayout<3> it = make_iter<3>(index.sizes(), {&self_v, &index, &src_v});
  const unsigned grid = blocks_for(it.numel, 4);
  if (reduce == ScatterReduce::None) {
    dispatch_bits(self_v.itemsize(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      scatter_dim_kernel<0, T><<<grid, kThreads, 0, st>>>(it, b);
    });
  } else {
    dispatch(self_v.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      switch (reduce) {
        case ScatterReduce::Add: scatter_dim_kernel<1, T><<<grid, kThreads, 0, st>>>(it, b); break;
        case ScatterReduce::Mul: scatter_dim_kernel<2, T><<<grid, kThreads, 0, st>>>(it, b); break;
        case ScatterReduce::Max: scatter_dim_kernel<3, T><<<grid, kThreads, 0, st>>>(it, b); break;
        default: scatter_dim_kernel<4, T><<<grid, kThreads, 0, st>>>(it, b); break;
      }
    });
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

void check_index_range_cuda(const Tensor& index, int64_t size, int64_t dim,
                            std::optional<int64_t> ignore, const IndexRule& rule) {
  const int dev = index.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  Bound b = make_bound(dev, size, 0, dim, rule);
  b.has_ignore = ignore.has_value();
  b.ignore = ignore.value_or(0);
  const Tensor c = index.is_contiguous() ? index : contiguous(index);
  const int64_t n = c.numel();
  check_range_kernel<<<blocks_for(n, 4), kThreads, 0, st>>>(
      static_cast<const int64_t*>(c.data_ptr()), n, b);
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace internal

}  // namespace ember::ops
