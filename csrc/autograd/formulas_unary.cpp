// One-operand math (ops/pointwise/unary.hpp) and the bitwise ops (ops/pointwise/bitwise.hpp) with
// autograd. Each formula is torch's (derivatives.yaml), written with the
// autograd-aware ops so that it is itself differentiable. Rounding, sign and
// the predicates have zero (or no) gradient; bitwise ops are integer-only and
// only need their in-place forms to bump versions.
#include <cmath>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/pointwise/bitwise.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/copy/copy.hpp"
#include "ops/pointwise/ternary.hpp"
#include "ops/pointwise/unary.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

using ops::Operand;
using ops::UnaryOp;

constexpr double kPi = 3.14159265358979323846;

Tensor un(UnaryOp op, const Tensor& x) { return autograd::unary(op, x); }

// 1 / sqrt(c + s * x^2)
Tensor rsqrt_poly(const Tensor& x, double c, double s) {
  return un(UnaryOp::Rsqrt, autograd::add(autograd::mul(un(UnaryOp::Square, x), Operand(s)),
                                          Operand(c)));
}

// d out / d x as a tensor to multiply the gradient by (x the input, y the output).
Tensor derivative(UnaryOp op, const Tensor& x, const Tensor& y) {
  switch (op) {
    case UnaryOp::Sqrt: return autograd::div(Operand(0.5), y);
    case UnaryOp::Rsqrt: return autograd::mul(autograd::pow(y, Operand(3.0)), Operand(-0.5));
    case UnaryOp::Exp: return y;
    case UnaryOp::Exp2: return autograd::mul(y, Operand(std::log(2.0)));
    case UnaryOp::Expm1: return autograd::add(y, Operand(1.0));
    case UnaryOp::Log: return un(UnaryOp::Reciprocal, x);
    case UnaryOp::Log2: return autograd::div(Operand(1.0 / std::log(2.0)), x);
    case UnaryOp::Log10: return autograd::div(Operand(1.0 / std::log(10.0)), x);
    case UnaryOp::Log1p: return un(UnaryOp::Reciprocal, autograd::add(x, Operand(1.0)));
    case UnaryOp::Sin: return un(UnaryOp::Cos, x);
    case UnaryOp::Cos: return autograd::neg(un(UnaryOp::Sin, x));
    case UnaryOp::Tan: return autograd::add(un(UnaryOp::Square, y), Operand(1.0));
    case UnaryOp::Asin: return rsqrt_poly(x, 1.0, -1.0);
    case UnaryOp::Acos: return autograd::neg(rsqrt_poly(x, 1.0, -1.0));
    case UnaryOp::Atan:
      return un(UnaryOp::Reciprocal, autograd::add(un(UnaryOp::Square, x), Operand(1.0)));
    case UnaryOp::Sinh: return un(UnaryOp::Cosh, x);
    case UnaryOp::Cosh: return un(UnaryOp::Sinh, x);
    case UnaryOp::Tanh: return autograd::sub(Operand(1.0), un(UnaryOp::Square, y));
    case UnaryOp::Asinh: return rsqrt_poly(x, 1.0, 1.0);
    case UnaryOp::Acosh:  // complex: 1/sqrt(x+1) 1/sqrt(x-1), not 1/sqrt(x^2-1) (torch's)
      if (is_complex(x.dtype())) {
        return autograd::mul(un(UnaryOp::Rsqrt, autograd::add(x, Operand(1.0))),
                             un(UnaryOp::Rsqrt, autograd::sub(x, Operand(1.0))));
      }
      return rsqrt_poly(x, -1.0, 1.0);
    case UnaryOp::Atanh:
      return un(UnaryOp::Reciprocal, autograd::sub(Operand(1.0), un(UnaryOp::Square, x)));
    case UnaryOp::Sigmoid: return autograd::mul(y, autograd::sub(Operand(1.0), y));
    case UnaryOp::Erf:
    case UnaryOp::Erfc: {
      const double k = (op == UnaryOp::Erf ? 2.0 : -2.0) / std::sqrt(kPi);
      return autograd::mul(un(UnaryOp::Exp, autograd::neg(un(UnaryOp::Square, x))), Operand(k));
    }
    case UnaryOp::Reciprocal: return autograd::neg(un(UnaryOp::Square, y));
    case UnaryOp::Gelu: {
      // Phi(x) + x phi(x)
      const Tensor cdf = autograd::mul(
          autograd::add(un(UnaryOp::Erf, autograd::mul(x, Operand(M_SQRT1_2))), Operand(1.0)),
          Operand(0.5));
      const Tensor pdf = autograd::mul(
          un(UnaryOp::Exp, autograd::mul(un(UnaryOp::Square, x), Operand(-0.5))),
          Operand(1.0 / std::sqrt(2.0 * kPi)));
      return autograd::add(cdf, autograd::mul(x, pdf));
    }
    case UnaryOp::GeluTanh: {
      const double k = std::sqrt(2.0 / kPi), c = 0.044715;
      const Tensor x2 = un(UnaryOp::Square, x);
      const Tensor inner =
          autograd::mul(autograd::mul(x, autograd::add(autograd::mul(x2, Operand(c)), Operand(1.0))),
                        Operand(k));
      const Tensor t = un(UnaryOp::Tanh, inner);
      const Tensor left = autograd::mul(autograd::add(t, Operand(1.0)), Operand(0.5));
      const Tensor dinner = autograd::mul(autograd::add(autograd::mul(x2, Operand(3 * c)),
                                                        Operand(1.0)),
                                          Operand(k));
      const Tensor right = autograd::mul(
          autograd::mul(autograd::mul(x, Operand(0.5)),
                        autograd::sub(Operand(1.0), un(UnaryOp::Square, t))),
          dinner);
      return autograd::add(left, right);
    }
    case UnaryOp::Silu: {
      const Tensor s = un(UnaryOp::Sigmoid, x);
      return autograd::mul(s, autograd::add(autograd::mul(x, autograd::sub(Operand(1.0), s)),
                                            Operand(1.0)));
    }
    case UnaryOp::Abs: return un(UnaryOp::Sign, x);
    case UnaryOp::Square: return autograd::mul(x, Operand(2.0));
    case UnaryOp::NanToNum:
      return ops::to(un(UnaryOp::IsFinite, x), x.device(), x.dtype());
    default:
      break;
  }
  throw Error(detail::str("internal error: no derivative for ", ops::unary_name(op)));
}

// The op's gradient of g: zero for piecewise-constant ops.
Tensor unary_grad(UnaryOp op, const Tensor& g, const Tensor& x, const Tensor& y) {
  switch (op) {
    case UnaryOp::Neg: return autograd::neg(g);
    case UnaryOp::Frac: return g;
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
      return zeros_like(g);
    case UnaryOp::Relu:  // torch's threshold_backward: y <= 0 ? 0 : g, one pass
      if (is_floating(g.dtype()) && g.dtype() == y.dtype())
        return autograd::binary(ops::BinaryOp::ThresholdBackward, g, y);
      return autograd::where(ops::gt(y, Operand(0.0)), g, Operand(0.0));
    case UnaryOp::Abs:  // a real function of complex values: g * sgn(x) (torch)
      if (is_complex(x.dtype())) return autograd::mul(g, autograd::sgn(x));
      return autograd::mul(g, derivative(op, x, y));
    default:
      // Complex values: the conjugate of the (holomorphic) derivative.
      return autograd::mul(g, autograd::conj(derivative(op, x, y)));
  }
}

// Which values the formula reads.
bool uses_output(UnaryOp op) {
  switch (op) {
    case UnaryOp::Sqrt: case UnaryOp::Rsqrt: case UnaryOp::Exp: case UnaryOp::Exp2:
    case UnaryOp::Expm1: case UnaryOp::Tan: case UnaryOp::Tanh: case UnaryOp::Sigmoid:
    case UnaryOp::Reciprocal: case UnaryOp::Relu:
      return true;
    default:
      return false;
  }
}
bool uses_input(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: case UnaryOp::Frac: case UnaryOp::Sign: case UnaryOp::Floor:
    case UnaryOp::Ceil: case UnaryOp::Round: case UnaryOp::Trunc:
      return false;
    default:
      return !uses_output(op);
  }
}

const char* backward_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Sqrt: return "SqrtBackward0";
    case UnaryOp::Rsqrt: return "RsqrtBackward0";
    case UnaryOp::Exp: return "ExpBackward0";
    case UnaryOp::Exp2: return "Exp2Backward0";
    case UnaryOp::Expm1: return "Expm1Backward0";
    case UnaryOp::Log: return "LogBackward0";
    case UnaryOp::Log2: return "Log2Backward0";
    case UnaryOp::Log10: return "Log10Backward0";
    case UnaryOp::Log1p: return "Log1PBackward0";
    case UnaryOp::Sin: return "SinBackward0";
    case UnaryOp::Cos: return "CosBackward0";
    case UnaryOp::Tan: return "TanBackward0";
    case UnaryOp::Asin: return "AsinBackward0";
    case UnaryOp::Acos: return "AcosBackward0";
    case UnaryOp::Atan: return "AtanBackward0";
    case UnaryOp::Sinh: return "SinhBackward0";
    case UnaryOp::Cosh: return "CoshBackward0";
    case UnaryOp::Tanh: return "TanhBackward0";
    case UnaryOp::Asinh: return "AsinhBackward0";
    case UnaryOp::Acosh: return "AcoshBackward0";
    case UnaryOp::Atanh: return "AtanhBackward0";
    case UnaryOp::Sigmoid: return "SigmoidBackward0";
    case UnaryOp::Erf: return "ErfBackward0";
    case UnaryOp::Erfc: return "ErfcBackward0";
    case UnaryOp::Reciprocal: return "ReciprocalBackward0";
    case UnaryOp::Gelu: case UnaryOp::GeluTanh: return "GeluBackward0";
    case UnaryOp::Silu: return "SiluBackward0";
    case UnaryOp::Frac: return "FracBackward0";
    case UnaryOp::Neg: return "NegBackward0";
    case UnaryOp::Abs: return "AbsBackward0";
    case UnaryOp::Sign: return "SignBackward0";
    case UnaryOp::Square: return "PowBackward0";
    case UnaryOp::Relu: return "ReluBackward0";
    case UnaryOp::Floor: return "FloorBackward0";
    case UnaryOp::Ceil: return "CeilBackward0";
    case UnaryOp::Round: return "RoundBackward0";
    case UnaryOp::Trunc: return "TruncBackward0";
    case UnaryOp::NanToNum: return "NanToNumBackward0";
    default: return "UnaryBackward0";
  }
}

bool has_gradient(UnaryOp op) {
  return op != UnaryOp::IsNan && op != UnaryOp::IsInf && op != UnaryOp::IsFinite &&
         op != UnaryOp::LogicalNot;
}

// torch's CUDA autocast fp32 list, as far as ember has the ops.
bool on_fp32_list(UnaryOp op) {
  switch (op) {
    case UnaryOp::Acos: case UnaryOp::Asin: case UnaryOp::Cosh: case UnaryOp::Sinh:
    case UnaryOp::Tan: case UnaryOp::Exp: case UnaryOp::Expm1: case UnaryOp::Log:
    case UnaryOp::Log10: case UnaryOp::Log2: case UnaryOp::Log1p: case UnaryOp::Reciprocal:
    case UnaryOp::Rsqrt:
      return true;
    default:
      return false;
  }
}

}  // namespace

Tensor unary(UnaryOp op, const Tensor& x, const ops::UnaryArgs& args, const Tensor& out,
             bool inplace) {
  if (autocast::any_enabled() && !inplace && !out.defined() && on_fp32_list(op)) {
    if (auto ac = autocast::enter(x, autocast::kCudaList, autocast::Policy::Float32)) {
      return autograd::unary(op, ac.cast(x), args);
    }
  }
  const bool grad = needs_grad(x) && has_gradient(op);
  if (inplace) {
    check_inplace(x);
    const Tensor before = grad && uses_input(op) ? ops::clone(x) : Tensor();
    ops::unary(op, x, args, out, true);
    mark_dirty(x);
    if (!grad) return x;
    auto node = record_inplace(backward_name(op), x, {}, [op](FormulaNode& n, TensorList& g) -> TensorList {
      return {unary_grad(op, g[0], n.saved(0), n.saved(1))};
    });
    node->save(before);
    node->save(uses_output(op) ? x : Tensor(), /*is_output=*/true);
    return x;
  }
  if (out.defined()) {
    check_out_no_grad(ops::unary_name(op), {&x});
    Tensor r = ops::unary(op, x, args, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::unary(op, x, args);
  if (!grad || !is_floating_or_complex(r.dtype())) return r;
  auto node = record(backward_name(op), {&x}, {&r}, [op](FormulaNode& n, TensorList& g) -> TensorList {
    return {unary_grad(op, g[0], n.saved(0), n.saved(1))};
  });
  node->save(uses_input(op) ? x : Tensor());
  node->save(uses_output(op) ? r : Tensor(), /*is_output=*/true);
  return r;
}

Tensor log(const Tensor& t) { return autograd::unary(UnaryOp::Log, t); }

Tensor bitwise(ops::BitwiseOp op, const Operand& a, const Operand& b, const Tensor& out,
               bool inplace) {
  if (inplace) check_inplace(a.tensor);
  Tensor r = ops::bitwise(op, a, b, out, inplace);
  if (inplace) mark_dirty(a.tensor);
  if (out.defined()) mark_dirty(out);
  return r;
}

Tensor bitwise_not(const Tensor& x, const Tensor& out, bool inplace) {
  if (inplace) check_inplace(x);
  Tensor r = ops::bitwise_not(x, out, inplace);
  if (inplace) mark_dirty(x);
  if (out.defined()) mark_dirty(out);
  return r;
}

}  // namespace ember::autograd
