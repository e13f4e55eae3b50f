// The fused activations as one autograd node each: the forward is one pass
// (ops::activation) and so is the backward (ops::activation_backward), where a
// composition of torch's formula would take four to six kernels. In-place
// forms save what torch saves: the output for elu/selu/celu (the derivative is
// a function of it), for leaky_relu with a slope >= 0 and for hardtanh (where
// the output is <= 0, or at a bound, exactly where the input was, so the same
// kernel reads it); a copy of the input for the others. With create_graph=True the
// backward is torch's formula written with autograd ops (second derivatives flow).
#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/functions_activation.hpp"
#include "ops/copy/copy.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/unary.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

using ops::ActivationOp;

const char* backward_name(ActivationOp op) {
  switch (op) {
    case ActivationOp::Hardswish: return "HardswishBackward0";
    case ActivationOp::Hardsigmoid: return "HardsigmoidBackward0";
    case ActivationOp::Elu: return "EluBackward0";
    case ActivationOp::Softplus: return "SoftplusBackward0";
    case ActivationOp::Mish: return "MishBackward0";
    case ActivationOp::LeakyRelu: return "LeakyReluBackward0";
    case ActivationOp::Hardtanh: return "HardtanhBackward0";
    case ActivationOp::Softshrink: return "SoftshrinkBackward0";
    case ActivationOp::Hardshrink: return "HardshrinkBackward0";
    case ActivationOp::LogSigmoid: return "LogSigmoidBackward0";
    case ActivationOp::Threshold: return "ThresholdBackward0";
  }
  return "ActivationBackward0";
}

// The in-place form can differentiate from its output (see the file comment).
bool inplace_from_output(ActivationOp op, const ops::ActivationArgs& a) {
  return op == ActivationOp::Elu || (op == ActivationOp::LeakyRelu && a.a >= 0.0) ||
         (op == ActivationOp::Hardtanh && a.a < a.b);
}

using ops::Operand;
using ops::UnaryOp;

Tensor un(UnaryOp op, const Tensor& x) { return autograd::unary(op, x); }
Tensor either(const Tensor& a, const Tensor& b) {
  return ops::compare(ops::CompareOp::LogicalOr, a, b);
}

// grad * f'(s) written with autograd-aware ops, so that create_graph=True gets second
// derivatives (the fused kernel is used otherwise). s is x, or y for Elu from_output.
Tensor differentiable_backward(ActivationOp op, const Tensor& g, const Tensor& s,
                               const ops::ActivationArgs& a, bool from_output) {
  switch (op) {
    case ActivationOp::Hardswish:
      return autograd::where(
          ops::le(s, Operand(-3.0)), Operand(0.0),
          autograd::where(ops::lt(s, Operand(3.0)),
                          autograd::mul(g, autograd::add(autograd::div(s, Operand(3.0)),
                                                         Operand(0.5))),
                          g));
    case ActivationOp::Hardsigmoid:
      return autograd::where(either(ops::le(s, Operand(-3.0)), ops::ge(s, Operand(3.0))),
                             Operand(0.0), autograd::mul(g, Operand(double(1.0f / 6.0f))));
    case ActivationOp::Elu: {
      const double negcoef = a.a * a.b, poscoef = a.b, negiptcoef = a.c;
      const Tensor neg =
          from_output
              ? autograd::mul(g, autograd::mul(autograd::add(s, Operand(negcoef)),
                                               Operand(negiptcoef)))
              : autograd::mul(g, autograd::mul(un(UnaryOp::Exp,
                                                  autograd::mul(s, Operand(negiptcoef))),
                                               Operand(negiptcoef * negcoef)));
      return autograd::where(ops::le(s, Operand(0.0)), neg, autograd::mul(g, Operand(poscoef)));
    }
    case ActivationOp::Softplus: {
      const Tensor bx = autograd::mul(s, Operand(a.a));
      return autograd::where(ops::gt(bx, Operand(a.b)), g,
                             autograd::mul(g, un(UnaryOp::Sigmoid, bx)));
    }
    case ActivationOp::Mish: {
      const Tensor sg = un(UnaryOp::Sigmoid, s);
      const Tensor t = un(UnaryOp::Tanh, autograd::activation(ActivationOp::Softplus, s,
                                                              {1.0, 20.0}));
      const Tensor d = autograd::add(
          t, autograd::mul(autograd::mul(s, sg),
                           autograd::sub(Operand(1.0), un(UnaryOp::Square, t))));
      return autograd::mul(g, d);
    }
    case ActivationOp::LeakyRelu:
      return autograd::where(ops::gt(s, Operand(0.0)), g, autograd::mul(g, Operand(a.a)));
    case ActivationOp::Hardtanh:
      return autograd::where(either(ops::le(s, Operand(a.a)), ops::ge(s, Operand(a.b))),
                             Operand(0.0), g);
    case ActivationOp::Softshrink:
    case ActivationOp::Hardshrink:
      return autograd::where(
          ops::compare(ops::CompareOp::LogicalAnd, ops::ge(s, Operand(-a.a)),
                       ops::le(s, Operand(a.a))),
          Operand(0.0), g);
    case ActivationOp::LogSigmoid:
      return autograd::mul(g, un(UnaryOp::Sigmoid, autograd::neg(s)));
    case ActivationOp::Threshold:
      return autograd::where(ops::le(s, Operand(a.a)), Operand(0.0), g);
  }
  throw Error("internal error: unknown activation op");
}

// The node's backward: one fused pass, or with create_graph=True the differentiable
// formula.
Tensor backward(ActivationOp op, const Tensor& g, const Tensor& s, const ops::ActivationArgs& a,
                bool from_output) {
  if (GradMode::is_enabled()) return differentiable_backward(op, g, s, a, from_output);
  return ops::activation_backward(op, g, s, a, from_output);
}

}  // namespace

Tensor activation(ActivationOp op, const Tensor& x, const ops::ActivationArgs& args,
                  const Tensor& out, bool inplace) {
  if (op == ActivationOp::Softplus && !inplace && !out.defined()) {
    EMBER_AUTOCAST(Float32, kCudaList, x, return autograd::activation(op, ac.cast(x), args));
  }
  const bool grad = needs_grad(x);
  if (inplace) {
    check_inplace(x);
    const bool from_output = inplace_from_output(op, args);
    // (a clone with history, so that create_graph=True differentiates through it)
    const Tensor before = grad && !from_output ? autograd::clone(x) : Tensor();
    ops::activation(op, x, args, Tensor(), true);
    mark_dirty(x);
    if (!grad) return x;
    const bool elu_from_output = from_output && op == ActivationOp::Elu;
    auto node = record_inplace(
        backward_name(op), x, {},
        [op, args, elu_from_output](FormulaNode& n, TensorList& g) -> TensorList {
          return {backward(op, g[0], n.saved(0), args, elu_from_output)};
        });
    node->save(from_output ? x : before, /*is_output=*/from_output);
    return x;
  }
  if (out.defined()) {
    check_out_no_grad(ops::activation_name(op), {&x});
    Tensor r = ops::activation(op, x, args, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::activation(op, x, args);
  if (!grad) return r;
  auto node = record(backward_name(op), {&x}, {&r},
                     [op, args](FormulaNode& n, TensorList& g) -> TensorList {
                       return {backward(op, g[0], n.saved(0), args, false)};
                     });
  node->save(x);
  return r;
}

}  // namespace ember::autograd
