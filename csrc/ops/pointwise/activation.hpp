// torch.nn.functional's pointwise activations that torch runs as one kernel,
// each one fused elementwise pass here too (forward and backward), with their
// scalar parameters passed by value: hardswish, hardsigmoid, elu (elu, selu
// and celu are its three parametrisations), softplus, mish, leaky_relu,
// hardtanh, softshrink, hardshrink, log_sigmoid, threshold. relu, gelu, silu
// and sigmoid are unary ops (ops/pointwise/unary.hpp).
//
// Floating inputs only, as torch ("\"elu_cpu\" not implemented for 'Long'");
// float16 and bfloat16 compute in float32 and round once. Same three forms as
// the other elementwise ops: new result, out=, in-place.
#pragma once

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class ActivationOp : uint8_t {
  Hardswish,    // x * clamp(x + 3, 0, 6) / 6
  Hardsigmoid,  // clamp(x + 3, 0, 6) / 6
  Elu,          // a = alpha, b = scale, c = input_scale
  Softplus,     // a = beta, b = threshold
  Mish,         // x * tanh(softplus(x))
  LeakyRelu,    // a = negative_slope
  Hardtanh,     // a = min_val, b = max_val
  Softshrink,   // a = lambd
  Hardshrink,   // a = lambd
  LogSigmoid,   // -softplus(-x)
  Threshold,    // a = threshold, b = value
};

// The op's scalar parameters (see ActivationOp).
struct ActivationArgs {
  double a = 0.0, b = 0.0, c = 0.0;
};

// torch's name of the op ("hardswish", "elu", ...), for messages.
const char* activation_name(ActivationOp op);

// `out` undefined: a new tensor; `inplace`: out is x.
Tensor activation(ActivationOp op, const Tensor& x, const ActivationArgs& args,
                  const Tensor& out = Tensor(), bool inplace = false);

// grad * d op(x) / dx in one pass. `saved` is the input x, or for Elu with
// from_output the output y (torch's elu_backward with is_result: the in-place
// forms keep only the output).
Tensor activation_backward(ActivationOp op, const Tensor& grad, const Tensor& saved,
                           const ActivationArgs& args, bool from_output = false);

namespace internal {
void activation_cpu(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& args,
                    bool backward, bool from_output);
#if EMBER_WITH_CUDA
void activation_cuda(ActivationOp op, const ElementwiseIter& it, const ActivationArgs& args,
                     bool backward, bool from_output);
#endif
}  // namespace internal

}  // namespace ember::ops
