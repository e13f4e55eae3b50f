// The activations' dtype rules and their CPU loops (the per-element bodies
// are activation_functors.hpp's; activation.cu runs them on the GPU).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")  // selects vectorise (as unary.cpp)
#endif

#include "ops/pointwise/activation.hpp"

#include "ops/elementwise_cpu.hpp"
#include "ops/pointwise/activation_functors.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

void run(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& args, bool backward,
         bool from_output) {
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::activation_cuda(op, it, args, backward, from_output);
#endif
  } else {
    internal::activation_cpu(op, it, args, backward, from_output);
  }
}

bool transcendental(ActivationOp op) {
  switch (op) {
    case ActivationOp::Elu: case ActivationOp::Softplus: case ActivationOp::Mish:
    case ActivationOp::LogSigmoid:
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* activation_name(ActivationOp op) {
  static const char* const names[] = {"hardswish",  "hardsigmoid", "elu",        "softplus",
                                      "mish",       "leaky_relu",  "hardtanh",   "softshrink",
                                      "hardshrink", "log_sigmoid", "threshold"};
  return names[static_cast<int>(op)];
}

Tensor activation(ActivationOp op, const Tensor& x, const ActivationArgs& args, const Tensor& out,
                  bool inplace) {
  const bool cuda = x.is_cuda() || (out.defined() && out.is_cuda());
  if (!is_floating(x.dtype())) not_implemented(activation_name(op), x.dtype(), cuda);
  const ElementwiseSpec spec{activation_name(op), x.dtype(), x.dtype(), x.dtype(), true};
  const Operand in(x);
  const ElementwiseIter it = make_elementwise(spec, inplace ? x : out, inplace, {&in});
  run(op, it, args, false, false);
  return it.out;
}

Tensor activation_backward(ActivationOp op, const Tensor& grad, const Tensor& saved,
                           const ActivationArgs& args, bool from_output) {
  const bool cuda = saved.is_cuda();
  if (!is_floating(saved.dtype())) not_implemented(activation_name(op), saved.dtype(), cuda);
  const ElementwiseSpec spec{activation_name(op), saved.dtype(), saved.dtype(), saved.dtype(),
                             true};
  const Operand g(grad), s(saved);
  const ElementwiseIter it = make_elementwise(spec, Tensor(), false, {&g, &s});
  run(op, it, args, true, from_output);
  return it.out;
}

namespace internal {

void activation_cpu(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& args,
                    bool backward, bool from_output) {
  // transcendental bodies: worth threads sooner
  CpuRunner r{it, transcendental(op) ? kElementwiseGrain / 16 : kElementwiseGrain};
  dispatch_activation(op, it, args, backward, from_output, r);
}

}  // namespace internal

}  // namespace ember::ops
