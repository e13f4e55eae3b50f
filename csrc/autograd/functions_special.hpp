// The special functions (ops/pointwise/special.hpp) with autograd, declared
// apart from functions.hpp so that adding them recompiles only their
// bindings (bindings/math_special.cpp) and formulas (formulas_special.cpp).
#pragma once

#include <utility>

#include "ops/elementwise.hpp"
#include "ops/pointwise/special.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

Tensor special_unary(ops::SpecialOp op, const Tensor& x, const ops::SpecialArgs& args = {},
                     const Tensor& out = Tensor(), bool inplace = false);
Tensor special_binary(ops::SpecialOp op, const ops::Operand& a, const ops::Operand& b,
                      const Tensor& out = Tensor(), bool inplace = false);
// (mantissa, exponent); the mantissa's gradient is grad / 2^exponent.
std::pair<Tensor, Tensor> frexp(const Tensor& x, const Tensor& mantissa = Tensor(),
                                const Tensor& exponent = Tensor());

}  // namespace ember::autograd
