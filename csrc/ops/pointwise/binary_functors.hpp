// The arithmetic binary ops as functors over a compute type C (float, double
// or int64; see element_access.hpp), shared by the CPU loops and the CUDA
// kernels, and the switch that picks one for a BinaryOp. Formulas follow
// torch: floor division and remainder as Python does them, integer powers by
// squaring, maximum/minimum propagate NaN, fmax/fmin ignore it.
#pragma once

#include <type_traits>

#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/dtype_steps.hpp"
#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"

namespace ember::ops {

template <typename C>
struct AddF {
  C alpha;
  EMBER_HD_INLINE C operator()(C a, C b) const { return m::add(a, m::mul(alpha, b)); }
};
template <typename C>
struct SubF {
  C alpha;
  EMBER_HD_INLINE C operator()(C a, C b) const { return m::sub(a, m::mul(alpha, b)); }
};
// a + alpha * b rounded once, for floats with alpha != 1: torch's add kernels fuse it
// (its CPU vector code calls fmadd, its scalar and CUDA code are contracted), and its sub
// is add with -alpha. So alpha * b may exceed the dtype's range without overflowing:
// -inf - 2.25 * -3.4e38 in float32 is -inf, not -inf + inf = nan.
template <typename C>
struct AddAlphaF {
  C alpha;  // -alpha for sub
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_same<C, float>::value) {
      return ::fmaf(alpha, b, a);
    } else {
      return ::fma(alpha, b, a);
    }
  }
};
template <typename C>
struct MulF {
  EMBER_HD_INLINE C operator()(C a, C b) const { return m::mul(a, b); }
};
template <typename C>
struct DivF {  // true division (C is floating)
  EMBER_HD_INLINE C operator()(C a, C b) const { return a / b; }
};

// Integer division: b == -1 never reaches the hardware (INT64_MIN / -1 traps
// on x86); the CPU checks for zero divisors before the loop.
template <typename C>
EMBER_HD_INLINE C int_div(C a, C b) {
  return b == -1 ? m::neg(a) : a / b;
}
template <typename C>
EMBER_HD_INLINE C int_rem(C a, C b) {
  return b == -1 ? C(0) : a % b;
}

template <typename C>
struct DivTruncF {
  int round_to = 0;  // BinaryArgs::round_steps: trunc of the quotient rounded to the dtype
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return int_div(a, b);
    } else {
      return m::trunc(round_step(a / b, round_to));
    }
  }
};

// Python's floor division; for floats computed from fmod so that
// floor_divide(a, b) * b + remainder(a, b) == a as closely as possible.
// round_to (BinaryArgs::round_steps): every step rounded to float16/bfloat16,
// as torch's c10::div_floor_floating in that dtype.
template <typename C>
struct DivFloorF {
  int round_to = 0;
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      const C q = int_div(a, b);
      return ((a < 0) != (b < 0) && m::mul(q, b) != a) ? C(q - 1) : q;
    } else {
      if (b == 0) return a / b;
      const int r = round_to;
      const C mod = round_step(m::fmod(a, b), r);
      C div = round_step(round_step(a - mod, r) / b, r);
      if (mod != 0 && (b < 0) != (mod < 0)) div = round_step(div - C(1), r);
      if (div == 0) return m::copysign(C(0), a / b);
      C fl = m::floor(div);
      if (round_step(div - fl, r) > C(0.5)) fl = round_step(fl + C(1), r);
      return fl;
    }
  }
};

// Python's modulo: the result has the divisor's sign.
template <typename C>
struct RemainderF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      const C r = int_rem(a, b);
      return (r != 0 && (r < 0) != (b < 0)) ? C(r + b) : r;
    } else {
      C r = m::fmod(a, b);
      if (r != 0 && (b < 0) != (r < 0)) r += b;
      return r;
    }
  }
};

// C's fmod: the result has the dividend's sign.
template <typename C>
struct FmodF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return int_rem(a, b);
    } else {
      return m::fmod(a, b);
    }
  }
};

template <typename C>
EMBER_HD_INLINE C int_pow(C base, C exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? C(-1) : C(1);
    return 0;
  }
  C result = 1;
  while (exp) {
    if (exp & 1) result = m::mul(result, base);
    exp >>= 1;
    base = m::mul(base, base);
  }
  return result;
}

// With a number exponent torch takes shortcuts for 2, 3, 0.5, -0.5, -1, -2
// (so (-inf) ** 0.5 is NaN, as sqrt gives); a tensor exponent always uses pow.
template <typename C>
struct PowF {
  bool scalar_exponent;
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return int_pow(a, b);
    } else {
      if (scalar_exponent) {
        if (b == C(2)) return a * a;
        if (b == C(3)) return a * a * a;
        if (b == C(0.5)) return m::sqrt(a);
        if (b == C(-0.5)) return C(1) / m::sqrt(a);
        if (b == C(-1)) return C(1) / a;
        if (b == C(-2)) return C(1) / (a * a);
      }
      return m::pow(a, b);
    }
  }
};

template <typename C>
struct Atan2F {
  EMBER_HD_INLINE C operator()(C a, C b) const { return m::atan2(a, b); }
};
template <typename C>
struct HypotF {
  EMBER_HD_INLINE C operator()(C a, C b) const { return m::hypot(a, b); }
};
template <typename C>
struct ThresholdBackwardF {  // torch's threshold_backward(g, y, 0): NaN y passes g
  EMBER_HD_INLINE C operator()(C g, C y) const { return y <= C(0) ? C(0) : g; }
};
template <typename C>
struct MaximumF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if (m::is_nan(a)) return a;
    if (m::is_nan(b)) return b;
    return a > b ? a : b;
  }
};
template <typename C>
struct MinimumF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if (m::is_nan(a)) return a;
    if (m::is_nan(b)) return b;
    return a < b ? a : b;
  }
};
template <typename C>
struct FmaxF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return a > b ? a : b;
    } else {
      return m::fmax(a, b);
    }
  }
};
template <typename C>
struct FminF {
  EMBER_HD_INLINE C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return a < b ? a : b;
    } else {
      return m::fmin(a, b);
    }
  }
};

// Runs the functor of `op` on `it` (whose common dtype the op layer checked)
// with runner.run<C, 2>(functor).
template <typename C, typename Runner>
void dispatch_binary_c(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args, Runner& r) {
  constexpr bool kFloat = std::is_floating_point<C>::value;
  const Scalar& alpha = args.alpha;
  switch (op) {
    case BinaryOp::Add:
      if constexpr (kFloat) {
        if (alpha.to_double() != 1.0) return r.template run<C, 2>(AddAlphaF<C>{alpha.to<C>()});
      }
      return r.template run<C, 2>(AddF<C>{alpha.to<C>()});
    case BinaryOp::Sub:
      if constexpr (kFloat) {
        if (alpha.to_double() != 1.0) return r.template run<C, 2>(AddAlphaF<C>{-alpha.to<C>()});
      }
      return r.template run<C, 2>(SubF<C>{alpha.to<C>()});
    case BinaryOp::Mul: return r.template run<C, 2>(MulF<C>{});
    case BinaryOp::Div:
      if constexpr (kFloat) return r.template run<C, 2>(DivF<C>{});
      break;
    case BinaryOp::DivTrunc: return r.template run<C, 2>(DivTruncF<C>{args.round_steps});
    case BinaryOp::DivFloor: return r.template run<C, 2>(DivFloorF<C>{args.round_steps});
    case BinaryOp::Remainder: return r.template run<C, 2>(RemainderF<C>{});
    case BinaryOp::Fmod: return r.template run<C, 2>(FmodF<C>{});
    case BinaryOp::Pow: return r.template run<C, 2>(PowF<C>{it.by_value[2] && args.pow_shortcuts});
    case BinaryOp::Atan2:
      if constexpr (kFloat) return r.template run<C, 2>(Atan2F<C>{});
      break;
    case BinaryOp::Hypot:
      if constexpr (kFloat) return r.template run<C, 2>(HypotF<C>{});
      break;
    case BinaryOp::Maximum: return r.template run<C, 2>(MaximumF<C>{});
    case BinaryOp::Minimum: return r.template run<C, 2>(MinimumF<C>{});
    case BinaryOp::Fmax: return r.template run<C, 2>(FmaxF<C>{});
    case BinaryOp::Fmin: return r.template run<C, 2>(FminF<C>{});
    case BinaryOp::ThresholdBackward:
      if constexpr (kFloat) return r.template run<C, 2>(ThresholdBackwardF<C>{});
      break;
  }
  throw Error("internal error: no kernel for this binary op and dtype");
}

template <typename Runner>
void dispatch_binary(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args, Runner& r) {
  switch (compute_dtype(it.common)) {
    case ScalarType::Float32: return dispatch_binary_c<float>(op, it, args, r);
    case ScalarType::Float64: return dispatch_binary_c<double>(op, it, args, r);
    default: return dispatch_binary_c<int64_t>(op, it, args, r);
  }
}

}  // namespace ember::ops
