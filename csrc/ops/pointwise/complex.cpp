#include "ops/pointwise/complex.hpp"

#include <cmath>

#include "ops/copy/copy.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/pointwise/binary_functors.hpp"
#include "ops/pointwise/compare_functors.hpp"
#include "ops/pointwise/complex_functors.hpp"
#include "ops/pointwise/ternary_functors.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

bool has_complex_kernel(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul ||
         op == BinaryOp::Div || op == BinaryOp::Pow;
}

bool has_complex_kernel(UnaryOp op) {
  switch (op) {
    case UnaryOp::Sqrt: case UnaryOp::Rsqrt: case UnaryOp::Exp: case UnaryOp::Log:
    case UnaryOp::Exp2: case UnaryOp::Expm1: case UnaryOp::Log1p:
    case UnaryOp::Log2: case UnaryOp::Log10: case UnaryOp::Sin: case UnaryOp::Cos:
    case UnaryOp::Tan: case UnaryOp::Sinh: case UnaryOp::Cosh: case UnaryOp::Tanh:
    case UnaryOp::Sigmoid: case UnaryOp::Reciprocal: case UnaryOp::Neg: case UnaryOp::Square:
    case UnaryOp::Abs: case UnaryOp::IsNan: case UnaryOp::IsInf: case UnaryOp::IsFinite:
    case UnaryOp::Asin: case UnaryOp::Acos: case UnaryOp::Atan: case UnaryOp::Asinh:
    case UnaryOp::Acosh: case UnaryOp::Atanh:
      return true;
    default:
      return false;
  }
}

namespace {

// expm1, log1p and exp2 of complex values on the host (c10::complex's
// formulas; the GPU's are in include/ember/device/complex.cuh). Here rather
// than in ops/complex_math.hpp, which every kernel file includes.
//   exp(z) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y (no cancellation for small z)
//   log(1 + z) = log|1 + z| + i arg(1 + z), |1 + z|^2 - 1 = x (x + 2) + y^2 through
//                log1p for |z| < 1/2
//   2^z = exp(z ln 2)
template <typename C>
struct ComplexExpm1F {
  C operator()(C z) const {
    const auto s = std::sin(z.im / 2);
    return {std::expm1(z.re) * std::cos(z.im) - 2 * s * s, std::exp(z.re) * std::sin(z.im)};
  }
};
template <typename C>
struct ComplexLog1pF {
  C operator()(C z) const {
    using T = decltype(z.re);
    const T x = z.re, y = z.im;
    const T theta = std::atan2(y, x + T(1));
    if (std::hypot(x, y) < T(0.5)) {
      const T r = x * (T(2) + x) + y * y;
      if (r == T(0)) return {x, theta};
      return {T(0.5) * std::log1p(r), theta};
    }
    return {std::log(std::hypot(x + T(1), y)), theta};
  }
};
template <typename C>
struct ComplexExp2F {
  C operator()(C z) const {
    using T = decltype(z.re);
    const T k = T(0.693147180559945309417);
    return m::exp(C{z.re * k, z.im * k});
  }
};

}  // namespace

bool has_complex_kernel(CompareOp op) { return op == CompareOp::Eq || op == CompareOp::Ne; }

bool has_complex_kernel(TernaryOp op) { return op == TernaryOp::Where; }

namespace {

Tensor run(ComplexOp op, const ElementwiseSpec& spec, const Tensor& x, const Tensor& out,
           bool inplace) {
  const Operand in(x);
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&in});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::complex_op_cuda(op, it);
#endif
  } else {
    internal::complex_op_cpu(op, it);
  }
  return it.out;
}

// Broadcasts the two parts and checks their dtypes (torch's messages).
ScalarType parts_dtype(const Tensor& a, const Tensor& b, const char* fn) {
  const ScalarType t = a.dtype();
  EMBER_CHECK(t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64,
              "Expected both inputs to be Half, Float or Double tensors but got ",
              torch_scalar_name(a.dtype()), " and ", torch_scalar_name(b.dtype()));
  EMBER_CHECK(b.dtype() == t, "Expected object of scalar type ", torch_scalar_name(t),
              " but got scalar type ", torch_scalar_name(b.dtype()), " for second argument");
  (void)fn;
  return to_complex_type(t);
}

// A new complex result (or out=, checked) of the parts' broadcast shape.
Tensor complex_result(const Tensor& a, const Tensor& b, ScalarType t, const Tensor& out,
                      const char* fn) {
  check_same_device(a, b);
  const Operand oa(a), ob(b);
  const Shape shape = broadcast_operands({&oa, &ob});
  if (!out.defined()) return Tensor::empty(shape, t, a.device());
  check_same_device(out, a);
  EMBER_CHECK(out.dtype() == t, fn, "(): expected out= to have dtype ", dtype_name(t),
              ", but got ", dtype_name(out.dtype()));
  EMBER_CHECK(out.sizes() == shape, fn, "(): out= has shape ", shape_str(out.sizes()),
              " but the result has shape ", shape_str(shape));
  return out;
}

}  // namespace

Tensor sgn(const Tensor& x, const Tensor& out, bool inplace) {
  if (!is_complex(x.dtype())) return unary(UnaryOp::Sign, x, {}, out, inplace);
  ElementwiseSpec spec{"sgn", x.dtype(), x.dtype(), x.dtype(), true};
  spec.complex = true;
  return run(ComplexOp::Sgn, spec, x, out, inplace);
}

Tensor conj_physical(const Tensor& x, const Tensor& out, bool inplace) {
  if (!is_complex(x.dtype())) {
    if (inplace) return x;
    if (!out.defined()) return x;
    copy_(out, x);
    return out;
  }
  ElementwiseSpec spec{"conj_physical", x.dtype(), x.dtype(), x.dtype(), true};
  spec.complex = true;
  return run(ComplexOp::Conj, spec, x, out, inplace);
}

Tensor conj(const Tensor& x) { return is_complex(x.dtype()) ? conj_physical(x) : x; }

Tensor angle(const Tensor& x, const Tensor& out) {
  if (!is_complex(x.dtype())) {
    // pi where x < 0, else 0, NaN kept (torch's formula for real inputs).
    const ScalarType t = to_floating(x.dtype());
    // (x < 0) * pi in x's floating dtype: pi rounded once, to that dtype.
    const Tensor xf = to(x, x.device(), t);
    const Tensor r = binary(BinaryOp::Mul, to(compare(CompareOp::Lt, xf, 0), x.device(), t),
                            Operand(M_PI));
    const Tensor nan_kept = where(unary(UnaryOp::IsNan, xf), xf, r);
    if (!out.defined()) return nan_kept;
    check_can_cast(t, out.dtype());
    if (out.sizes() != nan_kept.sizes()) resize_out(out, nan_kept.sizes());
    copy_(out, nan_kept);
    return out;
  }
  const ScalarType r = to_real_type(x.dtype());
  ElementwiseSpec spec{"angle", x.dtype(), r, r, true};
  spec.complex = true;
  return run(ComplexOp::Angle, spec, x, out, false);
}

Tensor complex(const Tensor& re, const Tensor& im, const Tensor& out) {
  const ScalarType t = parts_dtype(re, im, "complex");
  Tensor result = complex_result(re, im, t, out, "complex");
  copy_(real_part(result), re);
  copy_(imag_part(result), im);
  return result;
}

Tensor polar(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  const ScalarType t = parts_dtype(abs, angle, "polar");
  Tensor result = complex_result(abs, angle, t, out, "polar");
  binary(BinaryOp::Mul, abs, unary(UnaryOp::Cos, angle), {}, real_part(result));
  binary(BinaryOp::Mul, abs, unary(UnaryOp::Sin, angle), {}, imag_part(result));
  return result;
}

namespace internal {

void binary_complex_cpu(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha) {
  CpuRunner r{it, op == BinaryOp::Pow ? kElementwiseGrain / 16 : kElementwiseGrain / 2};
  if (dispatch_binary_complex_aot(op, it, alpha, r)) return;
  EMBER_CHECK(op == BinaryOp::Pow, "internal error: no complex kernel for ", binary_name(op));
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    r.template run<C, 2>(PowF<C>{it.by_value[2]});
  });
}

void unary_complex_cpu(UnaryOp op, const ElementwiseIter& it) {
  CpuRunner r{it, kElementwiseGrain / 2};
  if (dispatch_unary_complex_aot(op, it, r)) return;
  r.grain = kElementwiseGrain / 16;
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    switch (op) {
      case UnaryOp::Sqrt: return r.template run<C, 1>(SqrtF<C>{});
      case UnaryOp::Rsqrt: return r.template run<C, 1>(RsqrtF<C>{});
      case UnaryOp::Exp: return r.template run<C, 1>(ExpF<C>{});
      case UnaryOp::Exp2: return r.template run<C, 1>(ComplexExp2F<C>{});
      case UnaryOp::Expm1: return r.template run<C, 1>(ComplexExpm1F<C>{});
      case UnaryOp::Log1p: return r.template run<C, 1>(ComplexLog1pF<C>{});
      case UnaryOp::Log: return r.template run<C, 1>(LogF<C>{});
      case UnaryOp::Log2: return r.template run<C, 1>(Log2F<C>{});
      case UnaryOp::Log10: return r.template run<C, 1>(Log10F<C>{});
      case UnaryOp::Sin: return r.template run<C, 1>(SinF<C>{});
      case UnaryOp::Cos: return r.template run<C, 1>(CosF<C>{});
      case UnaryOp::Tan: return r.template run<C, 1>(TanF<C>{});
      case UnaryOp::Sinh: return r.template run<C, 1>(SinhF<C>{});
      case UnaryOp::Cosh: return r.template run<C, 1>(CoshF<C>{});
      case UnaryOp::Tanh: return r.template run<C, 1>(TanhF<C>{});
      case UnaryOp::Asin: return r.template run<C, 1>(AsinF<C>{});
      case UnaryOp::Acos: return r.template run<C, 1>(AcosF<C>{});
      case UnaryOp::Atan: return r.template run<C, 1>(AtanF<C>{});
      case UnaryOp::Asinh: return r.template run<C, 1>(AsinhF<C>{});
      case UnaryOp::Acosh: return r.template run<C, 1>(AcoshF<C>{});
      case UnaryOp::Atanh: return r.template run<C, 1>(AtanhF<C>{});
      case UnaryOp::Sigmoid: return r.template run<C, 1>(SigmoidF<C>{});
      case UnaryOp::Square: return r.template run<C, 1>(SquareF<C>{});
      case UnaryOp::Reciprocal: return r.template run<C, 1>(ReciprocalF<C>{});
      case UnaryOp::IsNan: return r.template run<C, 1>(IsNanF<C>{});
      case UnaryOp::IsInf: return r.template run<C, 1>(ComplexIsInfF<C>{});
      case UnaryOp::IsFinite: return r.template run<C, 1>(ComplexIsFiniteF<C>{});
      default: throw Error(detail::str("internal error: no complex kernel for ", unary_name(op)));
    }
  });
}

void compare_complex_cpu(CompareOp op, const ElementwiseIter& it) {
  CpuRunner r{it};
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if (op == CompareOp::Eq) return r.template run<C, 2>(EqF<C>{});
    EMBER_CHECK(op == CompareOp::Ne, "internal error: no complex kernel for ", compare_name(op));
    r.template run<C, 2>(NeF<C>{});
  });
}

void ternary_complex_cpu(TernaryOp op, const ElementwiseIter& it) {
  EMBER_CHECK(op == TernaryOp::Where, "internal error: no complex kernel for a ternary op");
  CpuRunner r{it};
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    r.template run<C, 3>(WhereF<C>{});
  });
}

void complex_op_cpu(ComplexOp op, const ElementwiseIter& it) {
  CpuRunner r{it, kElementwiseGrain / 4};
  if (op == ComplexOp::Conj) return dispatch_conj(it, r);
  dispatch_complex_compute(it.common, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if (op == ComplexOp::Sgn) return r.template run<C, 1>(ComplexSgnF<C>{});
    r.template run<C, 1>(ComplexAngleF<C>{});
  });
}

}  // namespace internal

}  // namespace ember::ops
