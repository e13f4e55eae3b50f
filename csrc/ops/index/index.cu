// GPU advanced indexing: the offsets of the index tensors (bad indices are
// recorded in the device's IndexErrorRecord, never waited for), then a gather
// or scatter by element size.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ops/cuda_loops.cuh"
#include "ops/index/index.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.cuh"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using namespace cuda_loops;

constexpr int kMaxIndices = 64;

struct OffsetsArgs {
  int k;
  const int64_t* idx[kMaxIndices];
  int64_t size[kMaxIndices];
  int64_t stride[kMaxIndices];
  int64_t dim[kMaxIndices];
  cuda::IndexErrorRecord* err;
  const char* op;
};

// A bad index is recorded in the device's IndexErrorRecord (never waited for)
// and its element's offset becomes kBadIndexOffset, which the gather/scatter
// kernels skip.
__global__ void offsets_kernel(OffsetsArgs a, int64_t n, int64_t* __restrict__ out) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    int64_t off = 0;
    bool bad = false;
    for (int j = 0; j < a.k; ++j) {
      int64_t v = a.idx[j][i];
      const int64_t size = a.size[j];
      if (v < -size || v >= size) {
        cuda::record_index_error(a.err, v, size, a.dim[j], a.op);
        bad = true;
        v = 0;
      } else if (v < 0) {
        v += size;
      }
      off += v * a.stride[j];
    }
    out[i] = bad ? internal::kBadIndexOffset : off;
  }
}

template <typename T>
__global__ void gather_kernel(IterLayout<3> it) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t o[3];
    offsets<3>(it, i, o);
    const int64_t k = *reinterpret_cast<const int64_t*>(it.data[2] + o[2]);
    *reinterpret_cast<T*>(it.data[0] + o[0]) =
        k == internal::kBadIndexOffset
            ? T{}
            : *reinterpret_cast<const T*>(it.data[1] + o[1] + k * int64_t(sizeof(T)));
  }
}

template <typename T>
__global__ void scatter_kernel(IterLayout<3> it) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t o[3];
    offsets<3>(it, i, o);
    const int64_t k = *reinterpret_cast<const int64_t*>(it.data[2] + o[2]);
    if (k == internal::kBadIndexOffset) continue;
    *reinterpret_cast<T*>(it.data[0] + o[0] + k * int64_t(sizeof(T))) =
        *reinterpret_cast<const T*>(it.data[1] + o[1]);
  }
}

// Atomic dst += v for the dtypes that have a hardware atomic add.
__device__ inline void atomic_add(float* d, float v) { atomicAdd(d, v); }
__device__ inline void atomic_add(double* d, double v) { atomicAdd(d, v); }
__device__ inline void atomic_add(int32_t* d, int32_t v) { atomicAdd(reinterpret_cast<int*>(d), v); }
__device__ inline void atomic_add(int64_t* d, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(d), static_cast<unsigned long long>(v));
}
__device__ inline void atomic_add(Half* d, Half v) {
  atomicAdd(reinterpret_cast<__half*>(d), __ushort_as_half(v.x));
}
__device__ inline void atomic_add(BFloat16* d, BFloat16 v) {
  atomicAdd(reinterpret_cast<__nv_bfloat16*>(d), __ushort_as_bfloat16(v.x));
}

template <typename T>
__global__ void scatter_add_kernel(IterLayout<3> it) {
  for (int64_t i = global_id(); i < it.numel; i += grid_size()) {
    int64_t o[3];
    offsets<3>(it, i, o);
    const int64_t k = *reinterpret_cast<const int64_t*>(it.data[2] + o[2]);
    if (k == internal::kBadIndexOffset) continue;
    atomic_add(reinterpret_cast<T*>(it.data[0] + o[0] + k * int64_t(sizeof(T))),
               *reinterpret_cast<const T*>(it.data[1] + o[1]));
  }
}

template <template <typename> class Kernel>
void launch3(const Tensor& a, const Tensor& b, const Tensor& c, size_t itemsize) {
  const int dev = a.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const IterLayout<3> it = make_iter<3>(a.sizes(), {&a, &b, &c});
  dispatch_bits(itemsize, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Kernel<T>::launch(it, stream);
  });
}

template <typename T>
struct Gather {
  static void launch(const IterLayout<3>& it, cudaStream_t s) {
    gather_kernel<T><<<blocks_for(it.numel, 4), kThreads, 0, s>>>(it);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
};

template <typename T>
struct Scatter {
  static void launch(const IterLayout<3>& it, cudaStream_t s) {
    scatter_kernel<T><<<blocks_for(it.numel, 4), kThreads, 0, s>>>(it);
    EMBER_KERNEL_LAUNCH_CHECK();
  }
};

}  // namespace

namespace internal {

void index_offsets_cuda(const std::vector<Tensor>& idx, const Shape& dims, const Shape& sizes,
                        const Shape& strides, const Tensor& out, const char* op) {
  EMBER_CHECK(idx.size() <= static_cast<size_t>(kMaxIndices), "at most ", kMaxIndices,
              " index tensors are supported");
  const int dev = out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const int64_t n = out.numel();
  if (n == 0) return;
  OffsetsArgs a{};
  a.k = static_cast<int>(idx.size());
  for (size_t j = 0; j < idx.size(); ++j) {
    a.idx[j] = static_cast<const int64_t*>(idx[j].data_ptr());
    a.size[j] = sizes[j];
    a.stride[j] = strides[j];
    a.dim[j] = dims[j];
  }
  // Bad indices are recorded on the device, surfacing at the next synchronising call.
  a.err = cuda::index_error_record(dev);
  a.op = cuda::intern_op_name(op);
  offsets_kernel<<<blocks_for(n, 4), kThreads, 0, stream>>>(a, n,
                                                             static_cast<int64_t*>(out.data_ptr()));
  EMBER_KERNEL_LAUNCH_CHECK();
}

void gather_cuda(const Tensor& out, const Tensor& src, const Tensor& off) {
  launch3<Gather>(out, src, off, out.itemsize());
}

void scatter_cuda(const Tensor& dst, const Tensor& src, const Tensor& off) {
  launch3<Scatter>(dst, src, off, src.itemsize());
}

void scatter_add_cuda(const Tensor& dst, const Tensor& src, const Tensor& off) {
  const int dev = dst.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  const IterLayout<3> it = make_iter<3>(dst.sizes(), {&dst, &src, &off});
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_add_kernel<T><<<blocks_for(it.numel, 4), kThreads, 0, stream>>>(it);
    EMBER_KERNEL_LAUNCH_CHECK();
  };
  switch (dst.dtype()) {
    case ScalarType::Float32: return run(TypeTag<float>{});
    case ScalarType::Float64: return run(TypeTag<double>{});
    case ScalarType::Float16: return run(TypeTag<Half>{});
    case ScalarType::BFloat16: return run(TypeTag<BFloat16>{});
    case ScalarType::Int32: return run(TypeTag<int32_t>{});
    case ScalarType::Int64: return run(TypeTag<int64_t>{});
    default:
      throw Error(detail::str("index_put_(accumulate=True) on CUDA supports floating dtypes, "
                              "int32 and int64, not ", dtype_name(dst.dtype())));
  }
}

}  // namespace internal

}  // namespace ember::ops
