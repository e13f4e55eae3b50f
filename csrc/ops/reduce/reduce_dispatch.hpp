// Which reduction functor and input storage type run for a ReduceOp, shared
// by the CPU and CUDA runners: runner.run<In>(functor). Inputs are stored as
// uint8 (bool too: its bytes are 0 or 1), int32, int64, float16, bfloat16,
// float32 or float64; reduce.cpp converts int8 and int16 first.
#pragma once

#include <type_traits>

#include "ops/reduce/reduce.hpp"
#include "ops/reduce/reduce_functors.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

// The arguments a functor needs beyond the op.
struct ReduceParams {
  ReduceOp op;
  ScalarType in;      // storage dtype (after conversions)
  int64_t count = 1;  // reduced elements (mean)
  ReduceArgs args;
};

inline int norm_kind(double p) {
  if (p == 0) return 0;
  if (p == 1) return 1;
  if (p == 2) return 2;
  if (p == static_cast<double>(INFINITY)) return 3;
  if (p == -static_cast<double>(INFINITY)) return 4;
  return 5;
}

template <typename F>
void dispatch_reduce_input(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return f(TypeTag<uint8_t>{});
    case ScalarType::Int32: return f(TypeTag<int32_t>{});
    case ScalarType::Int64: return f(TypeTag<int64_t>{});
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: return f(TypeTag<double>{});
    default: break;
  }
  throw Error("internal error: reductions take uint8, int32, int64 and floating storage");
}

// Whether a runner computes var/std in double whatever the input's floating dtype (the
// CPU's, as torch's CPU Welford accumulates in double: the std of values near 1e-38 is
// not lost to squares that underflow float32); runners say so with kWideVar.
template <typename R, typename = void>
struct runner_wide_var : std::false_type {};
template <typename R>
struct runner_wide_var<R, std::void_t<decltype(R::kWideVar)>> : std::bool_constant<R::kWideVar> {};

// Sum, prod, mean, var/std, norm, logsumexp, all, any.
template <typename Runner>
void dispatch_reduce_arith(const ReduceParams& p, Runner& r) {
  dispatch_reduce_input(p.in, [&](auto tag) {
    using In = typename decltype(tag)::type;
    using C = compute_t<In>;
    constexpr bool kFloat = std::is_floating_point<C>::value;
    switch (p.op) {
      case ReduceOp::Sum: return r.template run<In>(SumR<C>{});
      case ReduceOp::Prod: return r.template run<In>(ProdR<C>{});
      default: break;
    }
    if constexpr (std::is_same<In, uint8_t>::value) {
      if (p.op == ReduceOp::All) return r.template run<In>(AllAnyR<true>{});
      if (p.op == ReduceOp::Any) return r.template run<In>(AllAnyR<false>{});
    }
    if constexpr (kFloat) {
      switch (p.op) {
        case ReduceOp::Mean: return r.template run<In>(MeanR<C>{C(p.count)});
        case ReduceOp::Var:
        case ReduceOp::Std:
          if constexpr (runner_wide_var<Runner>::value) {
            return r.template run<In>(
                VarR<double>{double(p.args.correction), p.op == ReduceOp::Std});
          } else {
            return r.template run<In>(VarR<C>{C(p.args.correction), p.op == ReduceOp::Std});
          }
        case ReduceOp::Norm: return r.template run<In>(NormR<C>{norm_kind(p.args.p), C(p.args.p)});
        case ReduceOp::LogSumExp: return r.template run<In>(LogSumExpR<C>{p.args.lse_relative});
        default: break;
      }
    }
    throw Error("internal error: no reduction kernel for this op and dtype");
  });
}

// amax, amin, argmax, argmin (and max/min with dim).
template <typename Runner>
void dispatch_reduce_minmax(const ReduceParams& p, Runner& r) {
  dispatch_reduce_input(p.in, [&](auto tag) {
    using In = typename decltype(tag)::type;
    using C = compute_t<In>;
    switch (p.op) {
      case ReduceOp::Amax: return r.template run<In>(ExtremeR<C, true>{});
      case ReduceOp::Amin: return r.template run<In>(ExtremeR<C, false>{});
      case ReduceOp::ArgMax: return r.template run<In>(ArgR<C, true>{});
      case ReduceOp::ArgMin: return r.template run<In>(ArgR<C, false>{});
      default: break;
    }
    throw Error("internal error: not a min/max reduction");
  });
}

inline bool is_minmax(ReduceOp op) {
  return op == ReduceOp::Amax || op == ReduceOp::Amin || op == ReduceOp::ArgMax ||
         op == ReduceOp::ArgMin;
}

// Where results go: values (contiguous, dtype `values_dtype`; null for
// argmax) and indices (int64, contiguous; arg reductions only).
struct ReduceOutputs {
  char* values = nullptr;
  ScalarType values_dtype = ScalarType::Float32;
  int64_t* indices = nullptr;
};

template <typename C>
EMBER_HD_INLINE void write_result(const ReduceOutputs& o, int64_t i, C v) {
  store_as(o.values + i * int64_t(element_size(o.values_dtype)), o.values_dtype, v);
}
template <typename C>
EMBER_HD_INLINE void write_result(const ReduceOutputs& o, int64_t i, ValueIndex<C> v) {
  if (o.values) store_as(o.values + i * int64_t(element_size(o.values_dtype)), o.values_dtype, v.value);
  if (o.indices) o.indices[i] = v.index;
}

}  // namespace ember::ops
