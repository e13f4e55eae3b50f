// The CPU runner of the elementwise path (see ops/elementwise.hpp):
//
//   run_elementwise_cpu<C, NIN>(iter, functor);
//
// computes functor(C...) for every element. When every tensor operand has the
// same storage type T computed in C (and the output is T, or bool for
// predicates), rows run typed loops; rows whose operands are contiguous or
// constant (a number, a broadcast element) are plain counted loops the
// compiler vectorises. Mixed dtypes load and store blocks of elements through
// a switch on the dtype (element_access.hpp, DynamicLoop below). Large tensors are split over the thread pool
// (cpu_parallel.hpp).
#pragma once

#include <type_traits>

#include "ops/cpu_parallel.hpp"
#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace cpu_detail {

// The operands' row loop for storage T in, Out out. MASK bit k: input k is
// constant along the row.
template <int MASK, int NIN, typename C, typename T, typename Out, typename F>
void typed_row(const F& f, char* const* p, int64_t n, const C* cval) {
  Out* out = reinterpret_cast<Out*>(p[0]);
  const T* in[NIN];
  for (int k = 0; k < NIN; ++k) in[k] = reinterpret_cast<const T*>(p[k + 1]);
  C c[NIN];
  for (int k = 0; k < NIN; ++k) c[k] = cval[k];
  for (int64_t i = 0; i < n; ++i) {
    C a[NIN];
    for (int k = 0; k < NIN; ++k) a[k] = ((MASK >> k) & 1) ? c[k] : convert<C>(in[k][i]);
    out[i] = convert<Out>(apply_n(f, a));
  }
}

template <int NIN, typename C, typename T, typename Out, typename F, int... M>
void typed_row_masked(int mask, const F& f, char* const* p, int64_t n, const C* cval,
                      std::integer_sequence<int, M...>) {
  ((mask == M ? typed_row<M, NIN, C, T, Out>(f, p, n, cval) : void()), ...);
}

template <int NIN, typename C, typename T, typename Out, typename F>
struct TypedLoop {
  const F& f;
  const ElementwiseIter& it;
  C byval[NIN];

  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    bool dense = s[0] == int64_t(sizeof(Out));
    int mask = 0;
    C cval[NIN];
    for (int k = 0; k < NIN; ++k) {
      if (it.by_value[k + 1]) {
        mask |= 1 << k;
        cval[k] = byval[k];
      } else if (s[k + 1] == 0) {
        mask |= 1 << k;
        cval[k] = convert<C>(*reinterpret_cast<const T*>(p[k + 1]));
      } else {
        cval[k] = C{};
        dense = dense && s[k + 1] == int64_t(sizeof(T));
      }
    }
    // Every input constant (all broadcast or numbers) is rare: the strided loop
    // below takes it, and no counted loop is compiled for it.
    if (dense && mask != (1 << NIN) - 1) {
      typed_row_masked<NIN, C, T, Out>(mask, f, p, n, cval,
                                       std::make_integer_sequence<int, (1 << NIN) - 1>{});
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      C a[NIN];
      for (int k = 0; k < NIN; ++k) {
        a[k] = ((mask >> k) & 1) ? cval[k]
                                 : convert<C>(*reinterpret_cast<const T*>(p[k + 1] + i * s[k + 1]));
      }
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = convert<Out>(apply_n(f, a));
    }
  }
};

// The mixed-dtype loops work in blocks of kDynamicBlock elements: each input
// is loaded (and rounded through `common` where it.round says) into a buffer
// of C, the functor runs over the buffers, and the results are rounded and
// stored. The loads and stores switch on the dtype once per block, in
// functions of C (or the result type) alone, shared by every op of a file:
// per op only the functor's loop is compiled (the build time of the files with
// many ops, docs/design/build.md), and each element costs no switch.
constexpr int64_t kDynamicBlock = 256;

#if defined(_MSC_VER) && !defined(__clang__)
#define EMBER_CPU_NOINLINE __declspec(noinline)
#else
#define EMBER_CPU_NOINLINE __attribute__((noinline))
#endif

template <typename C>
EMBER_CPU_NOINLINE void load_block(C* dst, const char* p, int64_t stride, int64_t n,
                                          ScalarType dt, bool round, ScalarType common) {
  for (int64_t i = 0; i < n; ++i) dst[i] = load_as<C>(p + i * stride, dt);
  if (round) {
    for (int64_t i = 0; i < n; ++i) dst[i] = round_through(dst[i], common);
  }
}

template <typename R>
EMBER_CPU_NOINLINE void store_block(char* p, int64_t stride, int64_t n, ScalarType dt,
                                           R* src, bool round, ScalarType result) {
  if (round) {
    for (int64_t i = 0; i < n; ++i) src[i] = round_result(src[i], result);
  }
  for (int64_t i = 0; i < n; ++i) store_as(p + i * stride, dt, src[i]);
}

template <int NIN, typename C, typename F>
struct DynamicLoop {
  const F& f;
  const ElementwiseIter& it;
  C byval[NIN];

  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    using R = typename ResultOf<F, C, NIN>::type;
    C a[NIN][kDynamicBlock];
    R r[kDynamicBlock];
    for (int64_t i0 = 0; i0 < n; i0 += kDynamicBlock) {
      const int64_t m = n - i0 < kDynamicBlock ? n - i0 : kDynamicBlock;
      for (int k = 0; k < NIN; ++k) {
        if (it.by_value[k + 1]) {
          const C v = it.round[k + 1] ? round_through(byval[k], it.common) : byval[k];
          for (int64_t i = 0; i < m; ++i) a[k][i] = v;
        } else {
          load_block<C>(a[k], p[k + 1] + i0 * s[k + 1], s[k + 1], m, it.dtype[k + 1],
                        it.round[k + 1], it.common);
        }
      }
      for (int64_t i = 0; i < m; ++i) {
        C x[NIN];
        for (int k = 0; k < NIN; ++k) x[k] = a[k][i];
        r[i] = apply_n(f, x);
      }
      store_block<R>(p[0] + i0 * s[0], s[0], m, it.dtype[0], r, it.round_out, it.result);
    }
  }
};

template <typename Loop>
void run_rows(const ElementwiseIter& it, const Loop& loop, int64_t grain) {
  parallel_for(it.numel(), grain, [&](int64_t begin, int64_t end) {
    for_each_cpu_range(it.layout, begin, end, loop);
  });
}

// Calls f(TypeTag<T>) for the storage type T of `dt` when T computes in C
// (complex storage only for a complex C; complex32 takes the dynamic loop).
template <typename C, typename F>
bool dispatch_storage(ScalarType dt, F&& f) {
  bool done = false;
  if constexpr (is_complex_v<C>) {
    if (dt == ScalarType::ComplexFloat || dt == ScalarType::ComplexDouble) {
      dispatch_complex(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same<T, C>::value) {
          f(tag);
          done = true;
        }
      });
    }
  } else if (!is_complex(dt)) {
    dispatch(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      // int8 and int16 take the mixed-dtype loop, as on the GPU: rare, and it
      // keeps the number of instantiations (the build time) down.
      constexpr bool kNarrowInt =
          std::is_same<T, int8_t>::value || std::is_same<T, int16_t>::value;
      if constexpr (std::is_same<compute_t<T>, C>::value && !kNarrowInt) {
        f(tag);
        done = true;
      }
    });
  }
  return done;
}

}  // namespace cpu_detail

// `grain`: elements per thread below which one thread does it all (lower it
// for expensive functors).
template <typename C, int NIN, typename F>
void run_elementwise_cpu(const ElementwiseIter& it, const F& f,
                         int64_t grain = kElementwiseGrain) {
  using namespace cpu_detail;
  if (it.numel() == 0) return;
  using R = typename ResultOf<F, C, NIN>::type;
  C byval[NIN];
  for (int k = 0; k < NIN; ++k) byval[k] = it.by_value[k + 1] ? it.value[k + 1].to<C>() : C{};
  // Typed loops when every tensor input has one storage type T.
  ScalarType t = ScalarType::Bool;
  bool uniform = true, any = false;
  for (int k = 1; k <= NIN; ++k) {
    if (it.by_value[k]) continue;
    if (any && it.dtype[k] != t) uniform = false;
    t = it.dtype[k];
    any = true;
  }
  if (!any) t = it.dtype[0];
  if (uniform && it.plain()) {
    const bool ran = dispatch_storage<C>(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Out = out_storage_t<R, C, T>;
      if (it.dtype[0] != out_dtype_for<R, C>(t)) {
        uniform = false;
        return;
      }
      TypedLoop<NIN, C, T, Out, F> loop{f, it, {}};
      for (int k = 0; k < NIN; ++k) loop.byval[k] = byval[k];
      run_rows(it, loop, grain);
    });
    if (ran && uniform) return;
  }
  DynamicLoop<NIN, C, F> loop{f, it, {}};
  for (int k = 0; k < NIN; ++k) loop.byval[k] = byval[k];
  run_rows(it, loop, grain);
}

// The runner object the op families' dispatch templates call.
struct CpuRunner {
  const ElementwiseIter& it;
  int64_t grain = kElementwiseGrain;
  template <typename C, int NIN, typename F>
  void run(const F& f) {
    run_elementwise_cpu<C, NIN>(it, f, grain);
  }
};

}  // namespace ember::ops
