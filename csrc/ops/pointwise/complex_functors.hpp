// The complex functors over Complex<float> and Complex<double> that the real
// families' functors (written for any compute type with m::'s complex
// overloads, ops/complex_math.hpp) do not cover: abs and angle with a real
// result, sgn, conj, isinf/isfinite; and the switches of the kernels built
// ahead of time for both devices. The CPU's other complex kernels are
// switched in complex.cpp.
#pragma once

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/binary_functors.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/unary_functors.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

template <typename C>
struct ComplexAbsF {
  EMBER_HD_INLINE real_of_t<C> operator()(C z) const { return m::abs(z); }
};
template <typename C>
struct ComplexAngleF {
  EMBER_HD_INLINE real_of_t<C> operator()(C z) const { return m::arg(z); }
};
template <typename C>
struct ComplexSgnF {  // z / |z|, 0 for 0 (torch)
  EMBER_HD_INLINE C operator()(C z) const {
    const real_of_t<C> a = m::abs(z);
    if (a == real_of_t<C>(0)) return C(0);
    return C(z.re / a, z.im / a);
  }
};
template <typename C>
struct ComplexConjF {
  EMBER_HD_INLINE C operator()(C z) const { return m::conj(z); }
};
template <typename C>
struct ComplexIsInfF {
  EMBER_HD_INLINE bool operator()(C z) const { return m::is_inf(z); }
};
template <typename C>
struct ComplexIsFiniteF {
  EMBER_HD_INLINE bool operator()(C z) const {
    return z.re == z.re && z.im == z.im && !m::is_inf(z);
  }
};

[[noreturn]] inline void no_complex_kernel(const char* what) {
  throw Error(detail::str("internal error: no complex kernel for ", what));
}

// Calls f.template operator()<C>() for the complex compute type of `common`.
template <typename F>
void dispatch_complex_compute(ScalarType common, F&& f) {
  if (compute_dtype(common) == ScalarType::ComplexDouble) return f(TypeTag<Complex<double>>{});
  return f(TypeTag<Complex<float>>{});
}

// The kernels compiled ahead of time for both devices (the GPU's other
// complex kernels are compiled at first use: complex_jit.cpp): add, sub,
// mul, div, neg, abs, conj. Returns false for any other op.
template <typename Runner>
bool dispatch_binary_complex_aot(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha,
                                 Runner& r) {
  if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul && op != BinaryOp::Div) {
    return false;
  }
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case BinaryOp::Add: return r.template run<C, 2>(AddF<C>{alpha.to<C>()});
      case BinaryOp::Sub: return r.template run<C, 2>(SubF<C>{alpha.to<C>()});
      case BinaryOp::Mul: return r.template run<C, 2>(MulF<C>{});
      default: return r.template run<C, 2>(DivF<C>{});
    }
  });
  return true;
}

template <typename Runner>
bool dispatch_unary_complex_aot(UnaryOp op, const ElementwiseIter& it, Runner& r) {
  if (op != UnaryOp::Neg && op != UnaryOp::Abs) return false;
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if (op == UnaryOp::Neg) return r.template run<C, 1>(NegF<C>{});
    return r.template run<C, 1>(ComplexAbsF<C>{});
  });
  return true;
}

template <typename Runner>
void dispatch_conj(const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    r.template run<C, 1>(ComplexConjF<C>{});
  });
}

}  // namespace ember::ops
