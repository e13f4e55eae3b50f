// One-operand functors over a compute type C (shared by the CPU loops and the
// CUDA kernels) and the two switches that pick one: dispatch_unary_math for
// the floating functions (C is float or double) and dispatch_unary_basic for
// the rest (C is float, double or int64). Formulas follow torch: sign(NaN)
// is 0, relu keeps NaN, round is half-to-even (decimals scale by 10^d),
// gelu's tanh form is torch's approximation.
#pragma once

#include <type_traits>

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/dtype_steps.hpp"
#include "ops/pointwise/unary.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

#define EMBER_UNARY_FN(Name, expr)                                   \
  template <typename C>                                              \
  struct Name {                                                      \
    EMBER_HD_INLINE C operator()(C x) const { return expr; }         \
  };

EMBER_UNARY_FN(SqrtF, m::sqrt(x))
EMBER_UNARY_FN(RsqrtF, C(1) / m::sqrt(x))
EMBER_UNARY_FN(ExpF, m::exp(x))
EMBER_UNARY_FN(Exp2F, m::exp2(x))
EMBER_UNARY_FN(Expm1F, m::expm1(x))
EMBER_UNARY_FN(LogF, m::log(x))
EMBER_UNARY_FN(Log2F, m::log2(x))
EMBER_UNARY_FN(Log10F, m::log10(x))
EMBER_UNARY_FN(Log1pF, m::log1p(x))
EMBER_UNARY_FN(SinF, m::sin(x))
EMBER_UNARY_FN(CosF, m::cos(x))
EMBER_UNARY_FN(TanF, m::tan(x))
EMBER_UNARY_FN(AsinF, m::asin(x))
EMBER_UNARY_FN(AcosF, m::acos(x))
EMBER_UNARY_FN(AtanF, m::atan(x))
EMBER_UNARY_FN(SinhF, m::sinh(x))
EMBER_UNARY_FN(CoshF, m::cosh(x))
EMBER_UNARY_FN(TanhF, m::tanh(x))
EMBER_UNARY_FN(AsinhF, m::asinh(x))
EMBER_UNARY_FN(AcoshF, m::acosh(x))
EMBER_UNARY_FN(AtanhF, m::atanh(x))
EMBER_UNARY_FN(SigmoidF, C(1) / (C(1) + m::exp(-x)))
EMBER_UNARY_FN(ErfF, m::erf(x))
EMBER_UNARY_FN(ErfcF, m::erfc(x))
EMBER_UNARY_FN(ReciprocalF, C(1) / x)
EMBER_UNARY_FN(GeluF, C(0.5) * x * (C(1) + m::erf(x * C(0.70710678118654752440))))
EMBER_UNARY_FN(GeluTanhF, C(0.5) * x *
                              (C(1) + m::tanh(C(0.79788456080286535588) *
                                              (x + C(0.044715) * x * x * x))))
EMBER_UNARY_FN(SiluF, x / (C(1) + m::exp(-x)))
EMBER_UNARY_FN(FracF, x - m::trunc(x))
EMBER_UNARY_FN(NegF, m::neg(x))
EMBER_UNARY_FN(SquareF, m::mul(x, x))
EMBER_UNARY_FN(ReluF, x < C(0) ? C(0) : x)

#undef EMBER_UNARY_FN

template <typename C>
struct AbsF {
  EMBER_HD_INLINE C operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) {
      return m::fabs(x);
    } else {
      return x < 0 ? m::neg(x) : x;
    }
  }
};
template <typename C>
struct SignF {  // NaN -> 0, as torch
  EMBER_HD_INLINE C operator()(C x) const { return C((C(0) < x) - (x < C(0))); }
};

// Rounding functions: integers are copied before they get here.
template <typename C>
struct FloorF {
  EMBER_HD_INLINE C operator()(C x) const { return m::floor(x); }
};
template <typename C>
struct CeilF {
  EMBER_HD_INLINE C operator()(C x) const { return m::ceil(x); }
};
template <typename C>
struct TruncF {
  EMBER_HD_INLINE C operator()(C x) const { return m::trunc(x); }
};
template <typename C>
struct RoundF {  // half to even; decimals != 0 scales by 10^|decimals|
  C scale;
  int8_t mode;      // 0: none, 1: multiply first, -1: divide first
  int8_t round_to;  // dtype_steps.hpp: torch's CUDA kernel scales in float16/bfloat16
  EMBER_HD_INLINE C operator()(C x) const {
    if (mode == 0) return m::nearbyint(x);
    if (mode > 0) return m::nearbyint(round_step(x * scale, round_to)) / scale;
    return m::nearbyint(round_step(x / scale, round_to)) * scale;
  }
};
template <typename C>
struct NanToNumF {
  C nan, posinf, neginf;
  EMBER_HD_INLINE C operator()(C x) const {
    if (x != x) return nan;
    if (x == C(INFINITY)) return posinf;
    if (x == C(-INFINITY)) return neginf;
    return x;
  }
};

template <typename C>
struct IsNanF {
  EMBER_HD_INLINE bool operator()(C x) const { return m::is_nan(x); }
};
template <typename C>
struct IsInfF {
  EMBER_HD_INLINE bool operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) {
      return m::is_inf(x);
    } else {
      return false;
    }
  }
};
template <typename C>
struct IsFiniteF {
  EMBER_HD_INLINE bool operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) {
      return x == x && !m::is_inf(x);
    } else {
      return true;
    }
  }
};
template <typename C>
struct LogicalNotF {
  EMBER_HD_INLINE bool operator()(C x) const { return x == C(0); }
};

// kRare: with the functions the CUDA build compiles at first use instead
// (internal::unary_math_is_jit, unary_jit.cpp); the CPU has them all.
template <typename C, bool kRare, typename Runner>
void dispatch_unary_math_c(UnaryOp op, Runner& r) {
  if constexpr (kRare) {
    switch (op) {
      case UnaryOp::Exp2: return r.template run<C, 1>(Exp2F<C>{});
      case UnaryOp::Expm1: return r.template run<C, 1>(Expm1F<C>{});
      case UnaryOp::Log2: return r.template run<C, 1>(Log2F<C>{});
      case UnaryOp::Log10: return r.template run<C, 1>(Log10F<C>{});
      case UnaryOp::Log1p: return r.template run<C, 1>(Log1pF<C>{});
      case UnaryOp::Tan: return r.template run<C, 1>(TanF<C>{});
      case UnaryOp::Asin: return r.template run<C, 1>(AsinF<C>{});
      case UnaryOp::Acos: return r.template run<C, 1>(AcosF<C>{});
      case UnaryOp::Atan: return r.template run<C, 1>(AtanF<C>{});
      case UnaryOp::Sinh: return r.template run<C, 1>(SinhF<C>{});
      case UnaryOp::Cosh: return r.template run<C, 1>(CoshF<C>{});
      case UnaryOp::Asinh: return r.template run<C, 1>(AsinhF<C>{});
      case UnaryOp::Acosh: return r.template run<C, 1>(AcoshF<C>{});
      case UnaryOp::Atanh: return r.template run<C, 1>(AtanhF<C>{});
      case UnaryOp::Erfc: return r.template run<C, 1>(ErfcF<C>{});
      case UnaryOp::Frac: return r.template run<C, 1>(FracF<C>{});
      default: break;
    }
  }
  switch (op) {
    case UnaryOp::Sqrt: return r.template run<C, 1>(SqrtF<C>{});
    case UnaryOp::Rsqrt: return r.template run<C, 1>(RsqrtF<C>{});
    case UnaryOp::Exp: return r.template run<C, 1>(ExpF<C>{});
    case UnaryOp::Log: return r.template run<C, 1>(LogF<C>{});
    case UnaryOp::Sin: return r.template run<C, 1>(SinF<C>{});
    case UnaryOp::Cos: return r.template run<C, 1>(CosF<C>{});
    case UnaryOp::Tanh: return r.template run<C, 1>(TanhF<C>{});
    case UnaryOp::Sigmoid: return r.template run<C, 1>(SigmoidF<C>{});
    case UnaryOp::Erf: return r.template run<C, 1>(ErfF<C>{});
    case UnaryOp::Reciprocal: return r.template run<C, 1>(ReciprocalF<C>{});
    case UnaryOp::Gelu: return r.template run<C, 1>(GeluF<C>{});
    case UnaryOp::GeluTanh: return r.template run<C, 1>(GeluTanhF<C>{});
    case UnaryOp::Silu: return r.template run<C, 1>(SiluF<C>{});
    default: break;
  }
  throw Error("internal error: not a floating unary op");
}

template <bool kRare = true, typename Runner>
void dispatch_unary_math(UnaryOp op, const ElementwiseIter& it, Runner& r) {
  if (compute_dtype(it.common) == ScalarType::Float64) {
    return dispatch_unary_math_c<double, kRare>(op, r);
  }
  return dispatch_unary_math_c<float, kRare>(op, r);
}

// round_to: torch's CPU kernel scales in float (opmath); its CUDA kernel in
// the dtype itself (10^|decimals| and x * 10^decimals rounded to float16 or
// bfloat16: 10^5 is inf in float16 there).
template <typename C>
RoundF<C> round_functor(int64_t decimals, int round_to) {
  if (decimals == 0) return RoundF<C>{C(1), 0, 0};
  double s = 1;
  for (int64_t i = 0; i < (decimals < 0 ? -decimals : decimals); ++i) s *= 10;
  return RoundF<C>{round_step(C(s), round_to), int8_t(decimals > 0 ? 1 : -1),
                   int8_t(round_to)};
}

template <typename C, typename Runner>
void dispatch_unary_basic_c(UnaryOp op, const UnaryArgs& a, Runner& r, int round_to) {
  constexpr bool kFloat = std::is_floating_point<C>::value;
  switch (op) {
    case UnaryOp::Neg: return r.template run<C, 1>(NegF<C>{});
    case UnaryOp::Abs: return r.template run<C, 1>(AbsF<C>{});
    case UnaryOp::Sign: return r.template run<C, 1>(SignF<C>{});
    case UnaryOp::Square: return r.template run<C, 1>(SquareF<C>{});
    case UnaryOp::Relu: return r.template run<C, 1>(ReluF<C>{});
    case UnaryOp::IsNan: return r.template run<C, 1>(IsNanF<C>{});
    case UnaryOp::IsInf: return r.template run<C, 1>(IsInfF<C>{});
    case UnaryOp::IsFinite: return r.template run<C, 1>(IsFiniteF<C>{});
    case UnaryOp::LogicalNot: return r.template run<C, 1>(LogicalNotF<C>{});
    default: break;
  }
  if constexpr (kFloat) {
    switch (op) {
      case UnaryOp::Floor: return r.template run<C, 1>(FloorF<C>{});
      case UnaryOp::Ceil: return r.template run<C, 1>(CeilF<C>{});
      case UnaryOp::Trunc: return r.template run<C, 1>(TruncF<C>{});
      case UnaryOp::Round: return r.template run<C, 1>(round_functor<C>(a.decimals, round_to));
      case UnaryOp::NanToNum:
        return r.template run<C, 1>(NanToNumF<C>{C(a.nan), C(*a.posinf), C(*a.neginf)});
      default: break;
    }
  }
  throw Error("internal error: no kernel for this unary op and dtype");
}

template <typename Runner>
void dispatch_unary_basic(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& a, Runner& r) {
  const int round_to = !it.is_cuda()                         ? 0
                       : it.common == ScalarType::Float16  ? 1
                       : it.common == ScalarType::BFloat16 ? 2
                                                           : 0;
  switch (compute_dtype(it.common)) {
    case ScalarType::Float32: return dispatch_unary_basic_c<float>(op, a, r, round_to);
    case ScalarType::Float64: return dispatch_unary_basic_c<double>(op, a, r, round_to);
    default: return dispatch_unary_basic_c<int64_t>(op, a, r, round_to);
  }
}

}  // namespace ember::ops
