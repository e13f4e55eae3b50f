// The complex kernels of the pointwise families: functors over Complex<float>
// and Complex<double> (shared by the CPU loops and the CUDA kernels) and the
// switches that pick them. Most are the real families' functors, which are
// written for any compute type with m::'s complex overloads
// (ops/complex_math.hpp); the rest are here: abs and angle with a real
// result, sgn, conj, and the complex isinf/isfinite.
#pragma once

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"
#include "ops/pointwise/binary_functors.hpp"
#include "ops/pointwise/compare_functors.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/ternary_functors.hpp"
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

template <typename Runner>
void dispatch_binary_complex(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha,
                             Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case BinaryOp::Add: return r.template run<C, 2>(AddF<C>{alpha.to<C>()});
      case BinaryOp::Sub: return r.template run<C, 2>(SubF<C>{alpha.to<C>()});
      case BinaryOp::Mul: return r.template run<C, 2>(MulF<C>{});
      case BinaryOp::Div: return r.template run<C, 2>(DivF<C>{});
      case BinaryOp::Pow: return r.template run<C, 2>(PowF<C>{it.by_value[2]});
      default: no_complex_kernel(binary_name(op));
    }
  });
}

template <typename Runner>
void dispatch_compare_complex(CompareOp op, const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case CompareOp::Eq: return r.template run<C, 2>(EqF<C>{});
      case CompareOp::Ne: return r.template run<C, 2>(NeF<C>{});
      default: no_complex_kernel(compare_name(op));
    }
  });
}

template <typename Runner>
void dispatch_ternary_complex(TernaryOp op, const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if (op == TernaryOp::Where) return r.template run<C, 3>(WhereF<C>{});
    no_complex_kernel("a ternary op");
  });
}

// The unary ops without transcendental functions (cheap to compile).
template <typename Runner>
void dispatch_unary_complex_basic(UnaryOp op, const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case UnaryOp::Neg: return r.template run<C, 1>(NegF<C>{});
      case UnaryOp::Square: return r.template run<C, 1>(SquareF<C>{});
      case UnaryOp::Reciprocal: return r.template run<C, 1>(ReciprocalF<C>{});
      case UnaryOp::Abs: return r.template run<C, 1>(ComplexAbsF<C>{});
      case UnaryOp::IsNan: return r.template run<C, 1>(IsNanF<C>{});
      case UnaryOp::IsInf: return r.template run<C, 1>(ComplexIsInfF<C>{});
      case UnaryOp::IsFinite: return r.template run<C, 1>(ComplexIsFiniteF<C>{});
      default: no_complex_kernel(unary_name(op));
    }
  });
}

// The transcendental unary functions.
template <typename Runner>
void dispatch_unary_complex_math(UnaryOp op, const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case UnaryOp::Sqrt: return r.template run<C, 1>(SqrtF<C>{});
      case UnaryOp::Rsqrt: return r.template run<C, 1>(RsqrtF<C>{});
      case UnaryOp::Exp: return r.template run<C, 1>(ExpF<C>{});
      case UnaryOp::Log: return r.template run<C, 1>(LogF<C>{});
      case UnaryOp::Log2: return r.template run<C, 1>(Log2F<C>{});
      case UnaryOp::Log10: return r.template run<C, 1>(Log10F<C>{});
      case UnaryOp::Sin: return r.template run<C, 1>(SinF<C>{});
      case UnaryOp::Cos: return r.template run<C, 1>(CosF<C>{});
      case UnaryOp::Tan: return r.template run<C, 1>(TanF<C>{});
      case UnaryOp::Sinh: return r.template run<C, 1>(SinhF<C>{});
      case UnaryOp::Cosh: return r.template run<C, 1>(CoshF<C>{});
      case UnaryOp::Tanh: return r.template run<C, 1>(TanhF<C>{});
      case UnaryOp::Sigmoid: return r.template run<C, 1>(SigmoidF<C>{});
      default: no_complex_kernel(unary_name(op));
    }
  });
}

// Whether dispatch_unary_complex_math (rather than _basic) runs `op`.
inline bool is_complex_math_op(UnaryOp op) {
  return internal::is_math_op(op) && op != UnaryOp::Reciprocal;
}

template <typename Runner>
void dispatch_complex_op(ComplexOp op, const ElementwiseIter& it, Runner& r) {
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case ComplexOp::Sgn: return r.template run<C, 1>(ComplexSgnF<C>{});
      case ComplexOp::Conj: return r.template run<C, 1>(ComplexConjF<C>{});
      case ComplexOp::Angle: return r.template run<C, 1>(ComplexAngleF<C>{});
    }
  });
}

}  // namespace ember::ops
