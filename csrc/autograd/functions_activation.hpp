// The fused activations (ops/pointwise/activation.hpp) with autograd, declared
// apart from functions.hpp so that adding them recompiles only their binding
// (bindings/nn_activation.cpp) and formulas (formulas_activation.cpp).
#pragma once

#include "ops/pointwise/activation.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

// One node (torch's name: HardswishBackward0, EluBackward0, ...) whose
// backward is one fused pass (ops::activation_backward), or with create_graph=True
// torch's formula from autograd ops (so second derivatives flow). softplus
// autocasts to float32 on CUDA (torch's list).
Tensor activation(ops::ActivationOp op, const Tensor& x, const ops::ActivationArgs& args,
                  const Tensor& out = Tensor(), bool inplace = false);

}  // namespace ember::autograd
