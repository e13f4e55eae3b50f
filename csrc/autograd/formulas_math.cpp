// Arithmetic (ops/pointwise/binary.hpp) and comparisons (ops/pointwise/compare.hpp) with autograd:
// the functions the math bindings call. Gradients are computed in the
// result's shape and dtype; the engine sums them to each input's shape and
// converts them to its dtype (engine.cpp's validate), which is the
// broadcasting rule of every binary op in one place.
//
// Python numbers are Operands without a tensor: they get no gradient and
// enter formulas by value.
#include <cmath>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

using ops::BinaryOp;
using ops::Operand;

const char* backward_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "AddBackward0";
    case BinaryOp::Sub: return "SubBackward0";
    case BinaryOp::Mul: return "MulBackward0";
    case BinaryOp::Div: return "DivBackward0";
    case BinaryOp::DivTrunc: return "DivBackward3";
    case BinaryOp::DivFloor: return "FloorDivideBackward0";
    case BinaryOp::Remainder: return "RemainderBackward0";
    case BinaryOp::Fmod: return "FmodBackward0";
    case BinaryOp::Pow: return "PowBackward1";
    case BinaryOp::Atan2: return "Atan2Backward0";
    case BinaryOp::Hypot: return "HypotBackward0";
    case BinaryOp::Maximum: return "MaximumBackward0";
    case BinaryOp::Minimum: return "MinimumBackward0";
    case BinaryOp::Fmax: return "FmaxBackward0";
    case BinaryOp::Fmin: return "FminBackward0";
    case BinaryOp::ThresholdBackward: return "ThresholdBackwardBackward0";
  }
  return "BinaryBackward0";
}

bool differentiable(const Operand& o) {
  return !o.is_scalar() && o.tensor.defined() && requires_grad(o.tensor);
}

// The conjugate of an operand (itself unless complex): complex gradients
// multiply by the conjugates of the local derivatives.
Operand cj(const Operand& o) {
  if (o.is_scalar()) return Operand(o.scalar.conj());
  return Operand(autograd::conj(o.tensor));
}
Tensor cj(const Tensor& t) { return autograd::conj(t); }

// The real part of an operand (for masks on complex exponents).
Operand real_of(const Operand& o) {
  if (o.is_scalar()) return o.scalar.is_complex() ? Operand(o.scalar.d) : o;
  return Operand(autograd::real(o.tensor));
}

// A 0/1 (or 0/0.5/1) weight in g's dtype from a bool mask.
Tensor as_weight(const Tensor& mask, const Tensor& like) {
  return ops::to(mask, like.device(), like.dtype());
}

// The gradients of a binary op: a, b are the operands' values (tensors or
// numbers), out the result. need_a/need_b say which to compute.
TensorList binary_grads(BinaryOp op, const Tensor& g, const Operand& a, const Operand& b,
                        const Tensor& out, const Scalar& alpha, bool need_a, bool need_b) {
  Tensor ga, gb;
  switch (op) {
    case BinaryOp::Add:
      if (need_a) ga = g;
      if (need_b) gb = scaled(g, alpha.conj());
      break;
    case BinaryOp::Sub: {
      if (need_a) ga = g;
      const Scalar c = alpha.conj();
      if (need_b) {
        gb = scaled(g, c.is_complex() ? Scalar::from_complex(-c.d, -c.im)
                                      : Scalar::from_double(-c.to_double()));
      }
      break;
    }
    case BinaryOp::Mul:
      if (need_a) ga = autograd::mul(g, cj(b));
      if (need_b) gb = autograd::mul(g, cj(a));
      break;
    case BinaryOp::Div:
      if (need_a) ga = autograd::div(g, cj(b));
      if (need_b) {
        gb = autograd::neg(autograd::div(autograd::mul(g, cj(a)), cj(autograd::mul(b, b))));
      }
      break;
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:
      if (need_a) ga = zeros_like(g);
      if (need_b) gb = zeros_like(g);
      break;
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
      if (need_a) ga = g;
      if (need_b) {
        const BinaryOp q = op == BinaryOp::Remainder ? BinaryOp::DivFloor : BinaryOp::DivTrunc;
        gb = autograd::neg(autograd::mul(g, ops::binary(q, a, b)));
      }
      break;
    case BinaryOp::Pow: {
      if (need_a) {
        // exponent * a^(exponent - 1), 0 where the exponent is 0 (torch's masking)
        Tensor d = autograd::mul(b, autograd::pow(a, autograd::sub(b, Operand(1.0))));
        if (!b.is_scalar()) {
          d = autograd::mul(d, as_weight(ops::ne(b, Operand(0.0)), d));
        } else if (b.scalar.to_double() == 0.0 && b.scalar.to_complex().im == 0.0) {
          d = zeros_like(g);
        }
        ga = autograd::mul(g, cj(d));
      }
      if (need_b) {
        // out * log(a), 0 where a == 0 and Re(exponent) >= 0
        Tensor d;
        if (a.is_scalar()) {
          const Complex<double> c = a.scalar.to_complex();
          const Scalar log_a = a.scalar.is_complex()
                                   ? Scalar::from_complex(std::log(std::hypot(c.re, c.im)),
                                                          std::atan2(c.im, c.re))
                                   : Scalar::from_double(std::log(a.scalar.to_double()));
          d = autograd::mul(out, Operand(log_a));
        } else {
          d = autograd::mul(out, autograd::log(a.tensor));
        }
        if (!a.is_scalar()) {  // torch: masked_fill_((a == 0) & (b >= 0), 0)
          const Tensor zero_base =
              ops::compare(ops::CompareOp::LogicalAnd, ops::eq(a, Operand(0.0)),
                           ops::ge(real_of(b), Operand(0.0)));
          d = autograd::where(zero_base, Operand(0.0), d);
        }
        gb = autograd::mul(g, cj(d));
      }
      break;
    }
    case BinaryOp::Atan2: {
      const Tensor denom = autograd::add(autograd::mul(a, a), autograd::mul(b, b));
      if (need_a) ga = autograd::div(autograd::mul(g, b), denom);
      if (need_b) gb = autograd::div(autograd::neg(autograd::mul(g, a)), denom);
      break;
    }
    case BinaryOp::Hypot:
      if (need_a) ga = autograd::div(autograd::mul(g, a), out);
      if (need_b) gb = autograd::div(autograd::mul(g, b), out);
      break;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      // The larger (smaller) operand gets the gradient; ties split it.
      const bool mx = op == BinaryOp::Maximum;
      const Tensor tie = as_weight(ops::eq(a, b), g);
      const Tensor half = autograd::mul(tie, Operand(0.5));
      if (need_a) {
        const Tensor win = as_weight(mx ? ops::gt(a, b) : ops::lt(a, b), g);
        ga = autograd::mul(g, ops::add(win, half));
      }
      if (need_b) {
        const Tensor win = as_weight(mx ? ops::gt(b, a) : ops::lt(b, a), g);
        gb = autograd::mul(g, ops::add(win, half));
      }
      break;
    }
    case BinaryOp::Fmax:
    case BinaryOp::Fmin: {
      // torch: a gets the gradient where a wins or b is NaN; b where b wins
      // strictly or a is NaN.
      const bool mx = op == BinaryOp::Fmax;
      const Tensor a_nan = ops::ne(a, a), b_nan = ops::ne(b, b);
      if (need_a) {
        const Tensor win = ops::compare(ops::CompareOp::LogicalOr, mx ? ops::ge(a, b) : ops::le(a, b),
                                        b_nan);
        ga = autograd::mul(g, as_weight(win, g));
      }
      if (need_b) {
        Tensor win = ops::compare(ops::CompareOp::LogicalOr, mx ? ops::gt(b, a) : ops::lt(b, a),
                                  a_nan);
        gb = autograd::mul(g, as_weight(win, g));
      }
      break;
    }
    case BinaryOp::ThresholdBackward:
      // (g, y) -> y <= 0 ? 0 : g: linear in g with the same mask; no gradient for y
      if (need_a) ga = autograd::binary(BinaryOp::ThresholdBackward, g, b);
      break;
  }
  return {ga, gb};
}

bool needs_out(BinaryOp op) { return op == BinaryOp::Pow || op == BinaryOp::Hypot; }

// What a node keeps of an operand: the tensor (saved) or the number.
struct OperandSlot {
  bool is_scalar = true;
  Scalar scalar;
  size_t index = 0;  // into the node's saved tensors
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
  size_t out = 0;  // the saved result (pow, hypot)
};

TensorList apply_binary(FormulaNode& n, TensorList& g, BinaryOp op, const Scalar& alpha,
                        const Slots& s) {
  const Operand av = restore(n, s.a), bv = restore(n, s.b);
  const Tensor o = needs_out(op) ? n.saved(s.out) : Tensor();
  return binary_grads(op, g[0], av, bv, o, alpha, n.needs(0), n.needs(1));
}

// torch's CUDA autocast lists: pow runs in float32 (and so does a number
// divided by a tensor: torch's __rtruediv__ is reciprocal() * number), atan2 in
// the widest input type. Undefined when autocast does not apply.
Tensor autocast_binary(BinaryOp op, const Operand& a, const Operand& b,
                       const ops::BinaryArgs& args) {
  const bool fp32 = op == BinaryOp::Pow || (op == BinaryOp::Div && a.is_scalar());
  if (!fp32 && op != BinaryOp::Atan2) return Tensor();
  const auto run = [&](const autocast::Scope& ac) {
    auto cast = [&](const Operand& o) { return o.is_scalar() ? o : Operand(ac.cast(o.tensor)); };
    return autograd::binary(op, cast(a), cast(b), args);
  };
  if (fp32) {
    const Tensor& first = a.is_scalar() ? b.tensor : a.tensor;
    if (auto ac = autocast::enter(first, autocast::kCudaList, autocast::Policy::Float32)) {
      return run(ac);
    }
    return Tensor();
  }
  if (auto ac = autocast::enter_promote({&a.tensor, &b.tensor}, autocast::kCudaList)) return run(ac);
  return Tensor();
}

}  // namespace

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const ops::BinaryArgs& args,
              const Tensor& out, bool inplace) {
  if (autocast::any_enabled() && !inplace && !out.defined()) {
    if (Tensor r = autocast_binary(op, a, b, args); r.defined()) return r;
  }
  const bool grad = GradMode::is_enabled() && (differentiable(a) || differentiable(b));
  if (inplace) {
    const Tensor& self = a.tensor;
    check_inplace(self);
    // The formula may need self's value from before the write -- and so may
    // an operand that shares self's memory (x.mul_(x)).
    const bool keep_self = grad && op != BinaryOp::Add && op != BinaryOp::Sub;
    const Tensor before = keep_self ? ops::clone(self) : Tensor();
    const bool b_aliases = keep_self && !b.is_scalar() && b.tensor.storage() == self.storage();
    const Tensor b_before = b_aliases ? (b.tensor.is_same(self) ? before : ops::clone(b.tensor))
                                      : Tensor();
    ops::binary(op, a, b, args, out, true);
    mark_dirty(self);
    if (!grad) return self;
    if (!is_floating_or_complex(self.dtype())) return self;
    const Scalar alpha = args.alpha;
    auto slots = std::make_shared<Slots>();
    auto node = record_inplace(backward_name(op), self, {&b.tensor},
                               [op, alpha, slots](FormulaNode& n, TensorList& g) -> TensorList {
                                 return apply_binary(n, g, op, alpha, *slots);
                               });
    slots->a = keep(*node, Operand(before), before);
    slots->b = b_aliases ? keep(*node, Operand(b_before), b_before) : keep(*node, b, b.tensor);
    if (needs_out(op)) slots->out = node->save(self, /*is_output=*/true);
    return self;
  }
  if (out.defined()) {
    check_out_no_grad(ops::binary_name(op), {&a.tensor, &b.tensor});
    Tensor r = ops::binary(op, a, b, args, out, false);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::binary(op, a, b, args);
  if (!grad || !is_floating_or_complex(r.dtype())) return r;
  const Scalar alpha = args.alpha;
  auto slots = std::make_shared<Slots>();
  auto node = record(backward_name(op), {&a.tensor, &b.tensor}, {&r},
                     [op, alpha, slots](FormulaNode& n, TensorList& g) -> TensorList {
                       return apply_binary(n, g, op, alpha, *slots);
                     });
  const bool light = op == BinaryOp::Add || op == BinaryOp::Sub;
  slots->a = keep(*node, a, light ? Tensor() : a.tensor);
  slots->b = keep(*node, b, light ? Tensor() : b.tensor);
  if (needs_out(op)) slots->out = node->save(r, /*is_output=*/true);
  return r;
}

Tensor compare(ops::CompareOp op, const Operand& a, const Operand& b, const Tensor& out,
               bool inplace) {
  if (inplace) {
    check_inplace(a.tensor);
    ops::compare(op, a, b, out, true);
    mark_dirty(a.tensor);
    if (GradMode::is_enabled() && requires_grad(a.tensor)) {
      record_inplace("CompareBackward0", a.tensor, {},
                     [](FormulaNode&, TensorList& g) -> TensorList { return {zeros_like(g[0])}; });
    }
    return a.tensor;
  }
  Tensor r = ops::compare(op, a, b, out);
  if (out.defined()) mark_dirty(out);
  return r;
}

// ---- the shorthands formulas use ------------------------------------------------------

Tensor add(const Operand& a, const Operand& b, const Scalar& alpha) {
  return autograd::binary(BinaryOp::Add, a, b, {alpha});
}
Tensor sub(const Operand& a, const Operand& b, const Scalar& alpha) {
  return autograd::binary(BinaryOp::Sub, a, b, {alpha});
}
Tensor mul(const Operand& a, const Operand& b) { return autograd::binary(BinaryOp::Mul, a, b); }
Tensor div(const Operand& a, const Operand& b) { return autograd::binary(BinaryOp::Div, a, b); }
Tensor pow(const Operand& a, const Operand& b) { return autograd::binary(BinaryOp::Pow, a, b); }
Tensor neg(const Tensor& t) { return autograd::binary(BinaryOp::Mul, t, Operand(int64_t(-1))); }

Tensor scaled(const Tensor& t, const Scalar& s) {
  if (s.to_double() == 1.0 && !(s.is_complex() && s.im != 0.0)) return t;
  return autograd::mul(t, Operand(s));
}

void add_into(const Tensor& self, const Tensor& other) { ops::add_(self, other); }

}  // namespace ember::autograd
