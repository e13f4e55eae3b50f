// The special functions with autograd: torch's formulas (derivatives.yaml),
// written with the autograd-aware ops so that they are differentiable again.
// bessel_j0/j1, gcd/lcm and frexp's exponent have no gradient (as torch);
// igamma/igammac's and zeta's first operand and nextafter raise
// NotImplementedError when a gradient reaches them (torch's
// "the derivative for ... is not implemented").
#include <cmath>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/functions_special.hpp"
#include "ops/copy/copy.hpp"
#include "ops/pointwise/compare.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

using ops::Operand;
using ops::SpecialOp;
using ops::UnaryOp;

constexpr double kPi = 3.14159265358979323846;

Tensor un(UnaryOp op, const Tensor& x) { return autograd::unary(op, x); }
Tensor sp(SpecialOp op, const Tensor& x, int64_t n = 0) {
  ops::SpecialArgs a;
  a.n = n;
  return autograd::special_unary(op, x, a);
}
Tensor weight(const Tensor& mask, const Tensor& like) {
  return ops::to(mask, like.device(), like.dtype());
}
// where(mask, value, t) with a number value.
Tensor masked(const Tensor& mask, double value, const Tensor& t) {
  return autograd::where(mask, Operand(value), t);
}

const char* backward_name(SpecialOp op) {
  switch (op) {
    case SpecialOp::Lgamma: return "LgammaBackward0";
    case SpecialOp::Digamma: return "DigammaBackward0";
    case SpecialOp::Polygamma: return "PolygammaBackward0";
    case SpecialOp::Erfinv: return "ErfinvBackward0";
    case SpecialOp::I0: return "I0Backward0";
    case SpecialOp::I0e: return "SpecialI0EBackward0";
    case SpecialOp::I1: return "SpecialI1Backward0";
    case SpecialOp::I1e: return "SpecialI1EBackward0";
    case SpecialOp::Ndtr: return "SpecialNdtrBackward0";
    case SpecialOp::Ndtri: return "SpecialNdtriBackward0";
    case SpecialOp::LogNdtr: return "SpecialLogNdtrBackward0";
    case SpecialOp::Erfcx: return "SpecialErfcxBackward0";
    case SpecialOp::Entr: return "SpecialEntrBackward0";
    case SpecialOp::Logit: return "LogitBackward0";
    case SpecialOp::FrexpMantissa: return "FrexpBackward0";
    case SpecialOp::Igamma: return "IgammaBackward0";
    case SpecialOp::Igammac: return "IgammacBackward0";
    case SpecialOp::Zeta: return "SpecialZetaBackward0";
    case SpecialOp::Xlog1py: return "SpecialXlog1PyBackward0";
    case SpecialOp::Nextafter: return "NextafterBackward0";
    default: return "SpecialBackward0";
  }
}

bool has_gradient(SpecialOp op) {
  return op != SpecialOp::BesselJ0 && op != SpecialOp::BesselJ1 &&
         op != SpecialOp::FrexpExponent && op != SpecialOp::Gcd && op != SpecialOp::Lcm &&
         op != SpecialOp::FrexpMantissa;
}

[[noreturn]] void no_derivative(const char* what) {
  throw NotImplementedError(detail::str("the derivative for '", what, "' is not implemented."));
}

// The gradient of a one-operand function: g * d y / d x (x the input, y the output).
Tensor unary_grad(SpecialOp op, const ops::SpecialArgs& a, const Tensor& g, const Tensor& x,
                  const Tensor& y) {
  switch (op) {
    case SpecialOp::Lgamma: return autograd::mul(g, sp(SpecialOp::Digamma, x));
    case SpecialOp::Digamma: return autograd::mul(g, sp(SpecialOp::Polygamma, x, 1));
    case SpecialOp::Polygamma: return autograd::mul(g, sp(SpecialOp::Polygamma, x, a.n + 1));
    case SpecialOp::Erfinv:
      return autograd::mul(g, autograd::mul(un(UnaryOp::Exp, un(UnaryOp::Square, y)), Operand(0.5 * std::sqrt(kPi))));
    case SpecialOp::I0: return autograd::mul(g, sp(SpecialOp::I1, x));
    case SpecialOp::I0e:
      return autograd::mul(g, autograd::sub(sp(SpecialOp::I1e, x), autograd::mul(un(UnaryOp::Sign, x), y)));
    case SpecialOp::I1: {
      const Tensor zero = ops::eq(x, Operand(0.0));
      const Tensor safe_x = masked(zero, 1.0, x);
      return autograd::mul(g, masked(zero, 0.5, autograd::sub(sp(SpecialOp::I0, x), autograd::div(y, safe_x))));
    }
    case SpecialOp::I1e: {
      const Tensor zero = ops::eq(x, Operand(0.0));
      const Tensor safe_x = masked(zero, 1.0, x);
      const Tensor d = autograd::sub(sp(SpecialOp::I0e, x),
                           autograd::mul(y, autograd::add(un(UnaryOp::Sign, x), un(UnaryOp::Reciprocal, safe_x))));
      return autograd::mul(g, masked(zero, 0.5, d));
    }
    case SpecialOp::Ndtr:
      return autograd::mul(g, autograd::mul(un(UnaryOp::Exp, autograd::mul(un(UnaryOp::Square, x), Operand(-0.5))),
                        Operand(1.0 / std::sqrt(2 * kPi))));
    case SpecialOp::Ndtri:
      return autograd::mul(g, autograd::mul(un(UnaryOp::Exp, autograd::mul(un(UnaryOp::Square, y), Operand(0.5))),
                        Operand(std::sqrt(2 * kPi))));
    case SpecialOp::LogNdtr: {
      const Tensor e = autograd::add(y, autograd::mul(un(UnaryOp::Square, x), Operand(0.5)));
      return autograd::mul(g, autograd::mul(un(UnaryOp::Exp, autograd::neg(e)), Operand(1.0 / std::sqrt(2 * kPi))));
    }
    case SpecialOp::Erfcx:
      return autograd::mul(g, autograd::sub(autograd::mul(autograd::mul(x, y), Operand(2.0)), Operand(2.0 / std::sqrt(kPi))));
    case SpecialOp::Entr:
      return autograd::mul(g, autograd::neg(autograd::add(un(UnaryOp::Log, x), Operand(1.0))));
    case SpecialOp::Logit: {
      // 1 / (x (1 - x)) inside the clamp (or [0, 1] without eps); 0 (NaN without eps) outside
      const double lo = a.eps < 0 ? 0.0 : a.eps, hi = a.eps < 0 ? 1.0 : 1.0 - a.eps;
      const Tensor outside = ops::compare(ops::CompareOp::LogicalOr, ops::lt(x, Operand(lo)),
                                          ops::gt(x, Operand(hi)));
      const Tensor d = autograd::div(g, autograd::mul(x, autograd::sub(Operand(1.0), x)));
      return masked(outside, a.eps < 0 ? NAN : 0.0, d);
    }
    default: break;
  }
  throw Error(detail::str("internal error: no derivative for ", ops::special_name(op)));
}

bool uses_output(SpecialOp op) {
  switch (op) {
    case SpecialOp::Erfinv: case SpecialOp::I0e: case SpecialOp::I1: case SpecialOp::I1e:
    case SpecialOp::Ndtri: case SpecialOp::LogNdtr: case SpecialOp::Erfcx:
      return true;
    default:
      return false;
  }
}
bool uses_input(SpecialOp op) { return op != SpecialOp::Erfinv && op != SpecialOp::Ndtri; }

struct OperandSlot {
  bool is_scalar = true;
  Scalar scalar;
  size_t index = 0;
};
OperandSlot keep(FormulaNode& n, const Operand& o, const Tensor& value) {
  OperandSlot s;
  s.is_scalar = o.is_scalar();
  s.scalar = o.scalar;
  if (!s.is_scalar) s.index = n.save(value);
  return s;
}
Operand restore(FormulaNode& n, const OperandSlot& s) {
  if (s.is_scalar) return Operand(s.scalar);
  return Operand(n.saved(s.index));
}
struct Slots {
  OperandSlot a, b;
};

// The gradients of a two-operand function.
TensorList binary_grads(SpecialOp op, FormulaNode& n, const Slots& s, const Tensor& g) {
  const Operand a = restore(n, s.a), b = restore(n, s.b);
  const bool need_a = n.needs(0), need_b = n.needs(1);
  Tensor ga, gb;
  switch (op) {
    case SpecialOp::Igamma:
    case SpecialOp::Igammac: {
      if (need_a) no_derivative(op == SpecialOp::Igamma ? "igamma: input" : "igammac: input");
      if (need_b) {
        // x^(a-1) e^-x / Gamma(a), in log space
        const Tensor x = b.tensor;
        const Tensor la = a.is_scalar()
                              ? Tensor()
                              : autograd::special_unary(SpecialOp::Lgamma, a.tensor);
        Tensor e = autograd::sub(autograd::mul(autograd::sub(a, Operand(1.0)), un(UnaryOp::Log, x)),
                                 x);
        e = a.is_scalar() ? autograd::sub(e, Operand(std::lgamma(a.scalar.to_double())))
                          : autograd::sub(e, la);
        const Tensor d = un(UnaryOp::Exp, e);
        gb = autograd::mul(g, op == SpecialOp::Igamma ? d : autograd::neg(d));
      }
      break;
    }
    case SpecialOp::Zeta:
      if (need_a) no_derivative("special_zeta: self");
      if (need_b) {
        const Tensor z = autograd::special_binary(SpecialOp::Zeta, autograd::add(a, Operand(1.0)), b);
        gb = autograd::mul(g, autograd::mul(autograd::neg(z), a));
      }
      break;
    case SpecialOp::Xlog1py:
      if (need_a) {
        Tensor d = autograd::special_binary(SpecialOp::Xlog1py, g, b);
        // 0 where self == 0 and other <= -1 (torch's mask)
        const Tensor mask = ops::compare(ops::CompareOp::LogicalAnd, ops::eq(a, Operand(0.0)),
                                         ops::le(b, Operand(-1.0)));
        ga = masked(mask, 0.0, d);
      }
      if (need_b) {
        gb = autograd::div(autograd::mul(g, a), autograd::add(b, Operand(1.0)));
      }
      break;
    case SpecialOp::Nextafter:
      no_derivative("nextafter");
    default:
      throw Error(detail::str("internal error: no derivative for ", ops::special_name(op)));
  }
  return {ga, gb};
}

bool differentiable(const Operand& o) {
  return !o.is_scalar() && o.tensor.defined() && requires_grad(o.tensor);
}

}  // namespace

Tensor special_unary(SpecialOp op, const Tensor& x, const ops::SpecialArgs& args,
                     const Tensor& out, bool inplace) {
  const bool grad = needs_grad(x) && has_gradient(op);
  if (inplace) {
    check_inplace(x);
    const Tensor before = grad && uses_input(op) ? ops::clone(x) : Tensor();
    ops::special_unary(op, x, args, out, true);
    mark_dirty(x);
    if (!grad || !is_floating(x.dtype())) return x;
    auto node = record_inplace(backward_name(op), x, {},
                               [op, args](FormulaNode& n, TensorList& g) -> TensorList {
                                 return {unary_grad(op, args, g[0], n.saved(0), n.saved(1))};
                               });
    node->save(before);
    node->save(uses_output(op) ? x : Tensor(), /*is_output=*/true);
    return x;
  }
  if (out.defined()) {
    check_out_no_grad(ops::special_name(op), {&x});
    Tensor r = ops::special_unary(op, x, args, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::special_unary(op, x, args);
  if (!grad || !is_floating(r.dtype())) return r;
  auto node = record(backward_name(op), {&x}, {&r},
                     [op, args](FormulaNode& n, TensorList& g) -> TensorList {
                       return {unary_grad(op, args, g[0], n.saved(0), n.saved(1))};
                     });
  node->save(uses_input(op) ? x : Tensor());
  node->save(uses_output(op) ? r : Tensor(), /*is_output=*/true);
  return r;
}

Tensor special_binary(SpecialOp op, const Operand& a, const Operand& b, const Tensor& out,
                      bool inplace) {
  const bool grad = GradMode::is_enabled() && has_gradient(op) &&
                    (differentiable(a) || differentiable(b));
  if (inplace) {
    const Tensor& self = a.tensor;
    check_inplace(self);
    const Tensor before = grad ? ops::clone(self) : Tensor();
    const bool b_aliases = grad && !b.is_scalar() && b.tensor.storage() == self.storage();
    const Tensor b_before =
        b_aliases ? (b.tensor.is_same(self) ? before : ops::clone(b.tensor)) : Tensor();
    ops::special_binary(op, a, b, out, true);
    mark_dirty(self);
    if (!grad || !is_floating(self.dtype())) return self;
    auto slots = std::make_shared<Slots>();
    auto node = record_inplace(backward_name(op), self, {&b.tensor},
                               [op, slots](FormulaNode& n, TensorList& g) -> TensorList {
                                 return binary_grads(op, n, *slots, g[0]);
                               });
    slots->a = keep(*node, Operand(before), before);
    slots->b = b_aliases ? keep(*node, Operand(b_before), b_before) : keep(*node, b, b.tensor);
    return self;
  }
  if (out.defined()) {
    check_out_no_grad(ops::special_name(op), {&a.tensor, &b.tensor});
    Tensor r = ops::special_binary(op, a, b, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::special_binary(op, a, b);
  if (!grad || !is_floating(r.dtype())) return r;
  auto slots = std::make_shared<Slots>();
  auto node = record(backward_name(op), {&a.tensor, &b.tensor}, {&r},
                     [op, slots](FormulaNode& n, TensorList& g) -> TensorList {
                       return binary_grads(op, n, *slots, g[0]);
                     });
  slots->a = keep(*node, a, a.tensor);
  slots->b = keep(*node, b, b.tensor);
  return r;
}

std::pair<Tensor, Tensor> frexp(const Tensor& x, const Tensor& mantissa, const Tensor& exponent) {
  if (mantissa.defined() || exponent.defined()) {
    check_out_no_grad("frexp", {&x});
    auto r = ops::frexp(x, mantissa, exponent);
    if (mantissa.defined()) mark_dirty(mantissa);
    if (exponent.defined()) mark_dirty(exponent);
    return r;
  }
  auto r = ops::frexp(x);
  if (!needs_grad(x)) return r;
  const Tensor e = r.second;
  auto node = record("FrexpBackward0", {&x}, {&r.first},
                     [](FormulaNode& n, TensorList& g) -> TensorList {
                       // grad / 2^exponent
                       const Tensor ex = n.saved(0);
                       return {autograd::div(g[0], un(UnaryOp::Exp2, ops::to(ex, g[0].device(),
                                                                             g[0].dtype())))};
                     });
  node->save(e);
  return r;
}

}  // namespace ember::autograd
