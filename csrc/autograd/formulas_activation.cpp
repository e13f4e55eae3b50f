// The fused activations as one autograd node each: the forward is one pass
// (ops::activation) and so is the backward (ops::activation_backward), where a
// composition of torch's formula would take four to six kernels. In-place
// forms save what torch saves: the output for elu/selu/celu (the derivative is
// a function of it), for leaky_relu with a slope >= 0 and for hardtanh (where
// the output is <= 0, or at a bound, exactly where the input was, so the same
// kernel reads it); a copy of the input for the others.
#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/functions_activation.hpp"
#include "ops/copy/copy.hpp"
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

void refuse_double_backward(ActivationOp op) {
  if (GradMode::is_enabled())
    throw Error(detail::str("the derivative of ", ops::activation_name(op),
                            "'s backward is not implemented in ember: call backward()/"
                            "autograd.grad() through it without create_graph=True"));
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
    const Tensor before = grad && !from_output ? ops::clone(x) : Tensor();
    ops::activation(op, x, args, Tensor(), true);
    mark_dirty(x);
    if (!grad) return x;
    auto node = record_inplace(backward_name(op), x, {},
                               [op, args, from_output](FormulaNode& n, TensorList& g) -> TensorList {
                                 refuse_double_backward(op);
                                 return {ops::activation_backward(
                                     op, g[0], n.saved(0), args,
                                     from_output && op == ActivationOp::Elu)};
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
                       refuse_double_backward(op);
                       return {ops::activation_backward(op, g[0], n.saved(0), args, false)};
                     });
  node->save(x);
  return r;
}

}  // namespace ember::autograd
