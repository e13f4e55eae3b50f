// embedding_bag on the GPU (see embedding_bag.hpp): one block per bag, threads
// over the features. Bad indices are recorded in the device's IndexErrorRecord
// (raised at the next synchronising call) and skipped.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/elementwise.hpp"
#include "ops/nn/embedding_bag.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.cuh"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using internal::eb_bag_range;

template <typename T>
struct EbAcc {
  using type = float;
};
template <>
struct EbAcc<double> {
  using type = double;
};

struct EbErr {
  cuda::IndexErrorRecord* rec;
  const char* op;
};

unsigned eb_threads(int64_t D) {
  unsigned t = 32;
  while (t < 256 && static_cast<int64_t>(t) < D) t *= 2;
  return t;
}

unsigned eb_grid(int64_t B) {
  return static_cast<unsigned>(B < 1 ? 1 : (B > 65535 * 8 ? 65535 * 8 : B));
}

template <typename T>
__global__ void eb_fwd_kernel(const T* __restrict__ w, const int64_t* __restrict__ idx,
                              const int64_t* __restrict__ off, const T* __restrict__ psw,
                              T* __restrict__ out, int64_t* __restrict__ bag_size,
                              int64_t* __restrict__ max_idx, int64_t n, int64_t B,
                              int64_t off_len, int64_t D, int64_t V, int mode,
                              int64_t padding_idx, EbErr err) {
  using A = typename EbAcc<T>::type;
  for (int64_t b = blockIdx.x; b < B; b += gridDim.x) {
    int64_t s, e;
    eb_bag_range(off, off_len, n, b, &s, &e);
    for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
      A acc = mode == 2 ? -INFINITY : A(0);
      int64_t arg = -1, count = 0;
      for (int64_t i = s; i < e; ++i) {
        const int64_t v = idx[i];
        if (v == padding_idx) continue;
        if (v < 0 || v >= V) {
          if (d == 0) cuda::record_index_error(err.rec, v, V, 0, err.op);
          continue;
        }
        ++count;
        const A x = static_cast<A>(w[v * D + d]);
        if (mode == 2) {
          if (arg < 0 || (!isnan(acc) && (isnan(x) || x > acc))) {
            acc = x;
            arg = v;
          }
        } else {
          acc += psw != nullptr ? x * static_cast<A>(psw[i]) : x;
        }
      }
      if (mode == 2) {
        out[b * D + d] = T(arg < 0 ? A(0) : acc);
        max_idx[b * D + d] = arg;
      } else {
        out[b * D + d] = T(mode == 1 && count > 0 ? acc / static_cast<A>(count) : acc);
      }
      if (d == 0) bag_size[b] = count;
    }
  }
}

template <typename T, typename G>
__global__ void eb_bwd_kernel(const T* __restrict__ g, const int64_t* __restrict__ idx,
                              const int64_t* __restrict__ off, const T* __restrict__ psw,
                              const int64_t* __restrict__ bag_size,
                              const int64_t* __restrict__ max_idx, G* __restrict__ gw, int64_t n,
                              int64_t B, int64_t off_len, int64_t D, int64_t V, int mode,
                              int64_t padding_idx) {
  for (int64_t b = blockIdx.x; b < B; b += gridDim.x) {
    const T* gb = g + b * D;
    if (mode == 2) {
      for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
        const int64_t v = max_idx[b * D + d];
        if (v >= 0 && v < V) atomicAdd(gw + v * D + d, static_cast<G>(gb[d]));
      }
      continue;
    }
    int64_t s, e;
    eb_bag_range(off, off_len, n, b, &s, &e);
    const G div = (mode == 1 && bag_size[b] > 0) ? static_cast<G>(bag_size[b]) : G(1);
    for (int64_t i = s; i < e; ++i) {
      const int64_t v = idx[i];
      if (v == padding_idx || v < 0 || v >= V) continue;
      const G sc = (psw != nullptr ? static_cast<G>(psw[i]) : G(1)) / div;
      for (int64_t d = threadIdx.x; d < D; d += blockDim.x) {
        atomicAdd(gw + v * D + d, static_cast<G>(gb[d]) * sc);
      }
    }
  }
}

// One warp per bag entry: dot(grad_out[bag], weight[index]).
template <typename T>
__global__ void eb_psw_bwd_kernel(const T* __restrict__ g, const T* __restrict__ w,
                                  const int64_t* __restrict__ idx,
                                  const int64_t* __restrict__ off, T* __restrict__ gp, int64_t n,
                                  int64_t B, int64_t off_len, int64_t D, int64_t V,
                                  int64_t padding_idx) {
  using A = typename EbAcc<T>::type;
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(blockDim.x >> 5);
  for (int64_t b = blockIdx.x; b < B; b += gridDim.x) {
    int64_t s, e;
    eb_bag_range(off, off_len, n, b, &s, &e);
    for (int64_t i = s + (threadIdx.x >> 5); i < e; i += warps) {
      const int64_t v = idx[i];
      const bool skip = v == padding_idx || v < 0 || v >= V;
      A dot = 0;
      if (!skip) {
        for (int64_t d = lane; d < D; d += 32) {
          dot += static_cast<A>(g[b * D + d]) * static_cast<A>(w[v * D + d]);
        }
      }
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
      if (lane == 0) gp[i] = T(skip ? A(0) : dot);
    }
  }
}

template <typename F>
void dispatch_floating(ScalarType t, const char* op, F&& f) {
  ember::dispatch_floating(t, f, [&] { not_implemented(op, t, true); });
}

template <typename T>
const T* cp(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <typename T>
T* mp(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

}  // namespace

namespace internal {

void embedding_bag_fwd_cuda(const EbArgs& a) {
  const int dev = a.w.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  const EbErr err{cuda::index_error_record(dev), cuda::intern_op_name("embedding_bag")};
  dispatch_floating(a.w.dtype(), "embedding_bag", [&](auto tag) {
    using T = typename decltype(tag)::type;
    eb_fwd_kernel<T><<<eb_grid(a.B), eb_threads(a.D), 0, st>>>(
        cp<T>(a.w), cp<int64_t>(a.idx), cp<int64_t>(a.off), cp<T>(a.psw), mp<T>(a.out),
        mp<int64_t>(a.bag_size), mp<int64_t>(a.max_idx), a.n, a.B, a.off_len, a.D, a.V, a.mode,
        a.padding_idx, err);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void embedding_bag_bwd_cuda(const EbArgs& a) {
  const int dev = a.grad_out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.grad_out.dtype(), "embedding_bag_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using G = typename EbAcc<T>::type;
    eb_bwd_kernel<T, G><<<eb_grid(a.B), eb_threads(a.D), 0, st>>>(
        cp<T>(a.grad_out), cp<int64_t>(a.idx), cp<int64_t>(a.off), cp<T>(a.psw),
        cp<int64_t>(a.bag_size), cp<int64_t>(a.max_idx), mp<G>(a.grad_w), a.n, a.B, a.off_len,
        a.D, a.V, a.mode, a.padding_idx);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

void embedding_bag_psw_bwd_cuda(const EbArgs& a) {
  const int dev = a.w.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  dispatch_floating(a.w.dtype(), "embedding_bag_backward", [&](auto tag) {
    using T = typename decltype(tag)::type;
    eb_psw_bwd_kernel<T><<<eb_grid(a.B), 256, 0, st>>>(
        cp<T>(a.grad_out), cp<T>(a.w), cp<int64_t>(a.idx), cp<int64_t>(a.off), mp<T>(a.grad_psw),
        a.n, a.B, a.off_len, a.D, a.V, a.padding_idx);
    EMBER_KERNEL_LAUNCH_CHECK();
  });
}

}  // namespace internal

}  // namespace ember::ops
