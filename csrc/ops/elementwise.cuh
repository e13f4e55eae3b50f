// The CUDA runner of the elementwise path (see ops/elementwise.hpp):
//
//   run_elementwise_cuda<C, NIN>(iter, functor);
//
// Two kernels per functor:
// - flat_kernel<T, Out>: every tensor operand has storage type T (the output
//   T, or bool for predicates) and is contiguous or one broadcast element;
//   numbers come by value. A grid-stride loop over 16-byte vectors (4 floats,
//   8 halves, 2 doubles ...) when every pointer is 16-byte aligned, then the
//   tail element by element. One instantiation per storage type of C (float:
//   float16, bfloat16, float32; double; int64: bool, uint8, int32, int64).
// - dynamic_kernel: anything else (mixed dtypes, strides, broadcasting):
//   offsets from the layout with 32-bit fast division when the index fits,
//   64-bit otherwise; loads and stores switch on the operand's dtype.
// Both run on the current stream of the output's device, and every launch is
// checked.
#pragma once

#include <type_traits>

#include "ops/cuda_loops.cuh"
#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace cuda_detail {

using namespace cuda_loops;

template <int NIN, typename C, typename T, typename Out>
struct FlatArgs {
  Out* out;
  const T* in[NIN];
  C value[NIN];
  bool contig[NIN];     // read element j of in[k]
  bool load_once[NIN];  // in[k] is one element broadcast
  int64_t n;
  bool aligned;
};

template <int NIN, typename C>
struct DynamicArgs {
  char* data[NIN + 1];
  ScalarType dtype[NIN + 1];
  bool by_value[NIN + 1];
  bool round[NIN + 1];  // round through `common` (ElementwiseIter::round)
  ScalarType common;
  bool round_out;  // round the result through `result` (ElementwiseIter::round_out)
  ScalarType result;
  C value[NIN + 1];
};

// Vectors per thread and step of flat_kernel: 2, except with bfloat16 operands,
// whose add measured 12% slower unrolled (float16 and float32 were faster).
template <typename T, typename Out>
constexpr int flat_unroll() {
  return std::is_same<T, BFloat16>::value || std::is_same<Out, BFloat16>::value ? 1 : 2;
}

template <int V, typename F, int NIN, typename C, typename T, typename Out>
__global__ void flat_kernel(F f, FlatArgs<NIN, C, T, Out> a) {
  C cval[NIN];
#pragma unroll
  for (int k = 0; k < NIN; ++k) cval[k] = a.load_once[k] ? convert<C>(a.in[k][0]) : a.value[k];
  const int64_t start = global_id(), step = grid_size();
  int64_t tail = 0;
  if (a.aligned) {
    // Each thread takes U vectors per step (j, j + step, ...): all their loads are
    // issued before any is used, so compute-heavy functors (sin, pow) keep enough
    // bytes in flight.
    constexpr int U = flat_unroll<T, Out>();
    const int64_t nv = a.n / V;
    for (int64_t j0 = start; j0 < nv; j0 += step * U) {
      Vec<T, V> x[U][NIN];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t j = j0 + u * step;
#pragma unroll
        for (int k = 0; k < NIN; ++k) {
          if (a.contig[k] && j < nv) x[u][k] = reinterpret_cast<const Vec<T, V>*>(a.in[k])[j];
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int64_t j = j0 + u * step;
        if (j >= nv) break;
        Vec<Out, V> r;
#pragma unroll
        for (int e = 0; e < V; ++e) {
          C args[NIN];
#pragma unroll
          for (int k = 0; k < NIN; ++k) args[k] = a.contig[k] ? convert<C>(x[u][k].v[e]) : cval[k];
          r.v[e] = convert<Out>(apply_n(f, args));
        }
        reinterpret_cast<Vec<Out, V>*>(a.out)[j] = r;
      }
    }
    tail = nv * V;
  }
  for (int64_t j = tail + start; j < a.n; j += step) {
    C args[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) args[k] = a.contig[k] ? convert<C>(a.in[k][j]) : cval[k];
    a.out[j] = convert<Out>(apply_n(f, args));
  }
}

template <typename F, int NIN, typename C>
__global__ void dynamic_kernel(F f, OffsetCalc<NIN + 1> oc, DynamicArgs<NIN, C> a, int64_t n) {
  for (int64_t i = global_id(); i < n; i += grid_size()) {
    int64_t off[NIN + 1];
    oc.get(i, off);
    C args[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      args[k] = a.by_value[k + 1] ? a.value[k + 1]
                                  : load_as<C>(a.data[k + 1] + off[k + 1], a.dtype[k + 1]);
      if (a.round[k + 1]) args[k] = round_through(args[k], a.common);
    }
    auto r = apply_n(f, args);
    if (a.round_out) r = round_result(r, a.result);
    store_as(a.data[0] + off[0], a.dtype[0], r);
  }
}

template <typename T, typename Out>
constexpr int vec_size() {
  constexpr size_t m = sizeof(T) > sizeof(Out) ? sizeof(T) : sizeof(Out);
  return static_cast<int>(16 / m);
}

template <typename C, int NIN, typename T, typename Out, typename F>
void launch_flat(const ElementwiseIter& it, const F& f, const C* byval, cudaStream_t stream) {
  constexpr int V = vec_size<T, Out>();
  FlatArgs<NIN, C, T, Out> a{};
  a.out = reinterpret_cast<Out*>(it.layout.data[0]);
  a.n = it.numel();
  bool aligned = reinterpret_cast<uintptr_t>(a.out) % (V * sizeof(Out)) == 0;
  for (int k = 0; k < NIN; ++k) {
    a.in[k] = reinterpret_cast<const T*>(it.layout.data[k + 1]);
    a.value[k] = byval[k];
    a.contig[k] = !it.by_value[k + 1] && (it.layout.strides[k + 1][0] != 0 || a.n == 1);
    a.load_once[k] = !it.by_value[k + 1] && !a.contig[k];
    if (a.contig[k]) aligned = aligned && reinterpret_cast<uintptr_t>(a.in[k]) % (V * sizeof(T)) == 0;
  }
  a.aligned = aligned;
  flat_kernel<V, F, NIN, C, T, Out><<<blocks_for(a.n, flat_unroll<T, Out>() * V), kThreads, 0,
                                      stream>>>(f, a);
  EMBER_KERNEL_LAUNCH_CHECK();
}

template <typename C, int NIN, typename F>
void launch_dynamic(const ElementwiseIter& it, const F& f, const C* byval, cudaStream_t stream) {
  DynamicArgs<NIN, C> a{};
  for (int k = 0; k <= NIN; ++k) {
    a.data[k] = it.layout.data[k];
    a.dtype[k] = it.dtype[k];
    a.by_value[k] = it.by_value[k];
    a.round[k] = it.round[k];
    a.value[k] = k > 0 ? byval[k - 1] : C{};
  }
  a.common = it.common;
  a.round_out = it.round_out;
  a.result = it.result;
  const OffsetCalc<NIN + 1> oc(it.layout);
  dynamic_kernel<F, NIN, C><<<blocks_for(it.numel(), 4), kThreads, 0, stream>>>(f, oc, a,
                                                                                   it.numel());
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace cuda_detail

template <typename C, int NIN, typename F>
void run_elementwise_cuda(const ElementwiseIter& it, const F& f) {
  using namespace cuda_detail;
  if (it.numel() == 0) return;
  using R = typename ResultOf<F, C, NIN>::type;
  const int dev = it.out.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t stream = cuda::current_stream(dev).handle();
  C byval[NIN];
  for (int k = 0; k < NIN; ++k) byval[k] = it.by_value[k + 1] ? it.value[k + 1].to<C>() : C{};
  ScalarType t = it.dtype[0];
  bool uniform = true, any = false;
  for (int k = 1; k <= NIN; ++k) {
    if (it.by_value[k]) continue;
    if (any && it.dtype[k] != t) uniform = false;
    t = it.dtype[k];
    any = true;
  }
  if (uniform && it.plain() && it.is_flat() && it.dtype[0] == out_dtype_for<R, C>(t)) {
    bool ran = false;
    if constexpr (is_complex_v<C>) {
      // One flat kernel per complex compute type (complex32 takes the dynamic one).
      if (t == (std::is_same<C, Complex<float>>::value ? ScalarType::ComplexFloat
                                                       : ScalarType::ComplexDouble)) {
        launch_flat<C, NIN, C, out_storage_t<R, C, C>>(it, f, byval, stream);
        ran = true;
      }
    } else if (!is_complex(t)) {
      dispatch(t, [&](auto tag) {
        using T = typename decltype(tag)::type;
        // int8 and int16 take the dynamic kernel: rare, and it keeps the
        // number of instantiations (and the build time) down.
        constexpr bool kNarrowInt =
            std::is_same<T, int8_t>::value || std::is_same<T, int16_t>::value;
        if constexpr (std::is_same<compute_t<T>, C>::value && !kNarrowInt) {
          using Out = out_storage_t<R, C, T>;
          launch_flat<C, NIN, T, Out>(it, f, byval, stream);
          ran = true;
        }
      });
    }
    if (ran) return;
  }
  launch_dynamic<C, NIN>(it, f, byval, stream);
}

// The runner object the op families' dispatch templates call.
struct CudaRunner {
  const ElementwiseIter& it;
  template <typename C, int NIN, typename F>
  void run(const F& f) {
    run_elementwise_cuda<C, NIN>(it, f);
  }
};

}  // namespace ember::ops
