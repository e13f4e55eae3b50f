// gather / scatter along a dim on the GPU: one grid-stride pass over index's
// shape, int64 offsets; bad indices are skipped and recorded in the device's
// IndexErrorRecord (runtime/device_error.hpp), never asserted.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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

// The bound of a launch on `dev`, after reporting an earlier recorded error.
Bound make_bound(int dev, int64_t size, int64_t stride, int64_t dim, const IndexRule& rule) {
  cuda::check_index_errors(dev);
  Bound b{};
  b.size = size;
  b.stride = stride;
  b.dim = dim;
  b.wrap = rule.wrap;
  b.op = cuda::intern_op_name(rule.op);
  b.err = cuda::index_error_record(dev);
  return b;
}

}  // namespace

namespace internal {

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
