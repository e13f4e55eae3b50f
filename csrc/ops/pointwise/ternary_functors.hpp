// Three-operand functors over a compute type C (shared by both devices).
#pragma once

#include <type_traits>

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/ternary.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

template <typename C>
struct WhereF {
  EMBER_HD_INLINE C operator()(C cond, C a, C b) const { return cond != C(0) ? a : b; }
};

template <typename C>
struct ClampF {
  bool has_min, has_max;
  EMBER_HD_INLINE C operator()(C x, C lo, C hi) const {
    if (m::is_nan(x)) return x;
    if (has_min) {
      if (m::is_nan(lo)) return lo;
      x = x < lo ? lo : x;
    }
    if (has_max) {
      if (m::is_nan(hi)) return hi;
      x = x > hi ? hi : x;
    }
    return x;
  }
};

// x * y + z rounded once (torch's kernels are fused there: its CPU vector
// code calls fmadd, its scalar and CUDA code are contracted by the compilers)
template <typename C>
EMBER_HD_INLINE C fused_mul_add(C x, C y, C z) {
  if constexpr (std::is_same<C, float>::value) {
    return ::fmaf(x, y, z);
  } else {
    return ::fma(x, y, z);
  }
}

template <typename C>
struct LerpF {
  // torch's lerp: start + w * (end - start) for |w| < 0.5, else
  // end - (end - start) * (1 - w), each a fused multiply-add (so the product
  // may exceed the dtype's range without overflowing the result)
  EMBER_HD_INLINE C operator()(C start, C end, C w) const {
    const C d = end - start;
    return (w < C(0.5) && w > C(-0.5)) ? fused_mul_add(w, d, start)
                                         : fused_mul_add(w - C(1), d, end);
  }
};

// addcmul / addcdiv in torch's order on each device:
// - the CPU (torch's cpu/PointwiseOpsKernel.cpp): self + value * t1 * t2 and
//   self + value * t1 / t2, left to right (value * t1 first; the product
//   fused into the add as torch's contracted kernels);
// - CUDA (torch's cuda/PointwiseOpsKernel.cu, pointwise_op_impl):
//   self + value * (t1 op t2), as fma(value, t1 op t2, self), and with
//   value == 1 fma(t1, t2, self) (addcmul) or self + t1 / t2 (addcdiv).
// The orders differ where value * t1 overflows or underflows: value = 0 with
// t1 * t2 = inf is nan on CUDA, self on the CPU.
template <typename C>
struct AddcmulF {
  C value;
  EMBER_HD_INLINE C operator()(C x, C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
#ifdef __CUDA_ARCH__
      return m::add(x, m::mul(value, m::mul(a, b)));
#else
      return m::add(x, m::mul(m::mul(value, a), b));
#endif
    } else {
#ifdef __CUDA_ARCH__
      return value == C(1) ? fused_mul_add(a, b, x) : fused_mul_add(value, a * b, x);
#else
      return fused_mul_add(value * a, b, x);
#endif
    }
  }
};

template <typename C>
struct AddcdivF {  // floating only
  C value;
  EMBER_HD_INLINE C operator()(C x, C a, C b) const {
#ifdef __CUDA_ARCH__
    return value == C(1) ? x + a / b : fused_mul_add(value, a / b, x);
#else
    return x + value * a / b;
#endif
  }
};

template <typename C, typename Runner>
void dispatch_ternary_c(TernaryOp op, const TernaryArgs& a, Runner& r) {
  switch (op) {
    case TernaryOp::Where: return r.template run<C, 3>(WhereF<C>{});
    case TernaryOp::Clamp: return r.template run<C, 3>(ClampF<C>{a.has_min, a.has_max});
    case TernaryOp::Addcmul: return r.template run<C, 3>(AddcmulF<C>{a.value.to<C>()});
    default: break;
  }
  if constexpr (std::is_floating_point<C>::value) {
    if (op == TernaryOp::Lerp) return r.template run<C, 3>(LerpF<C>{});
    if (op == TernaryOp::Addcdiv) return r.template run<C, 3>(AddcdivF<C>{a.value.to<C>()});
  }
  throw Error("internal error: no kernel for this ternary op and dtype");
}

template <typename Runner>
void dispatch_ternary(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& a, Runner& r) {
  switch (compute_dtype(it.common)) {
    case ScalarType::Float32: return dispatch_ternary_c<float>(op, a, r);
    case ScalarType::Float64: return dispatch_ternary_c<double>(op, a, r);
    default: return dispatch_ternary_c<int64_t>(op, a, r);
  }
}

}  // namespace ember::ops
