// torch.einsum: Einstein summation, computed with matrix products of views.
//
// The equation is parsed (letters, one "..." per operand, optional "->"; the
// implicit output is the letters used once, in alphabetical order, after the
// ellipsis dims). Repeated letters in one operand take its diagonal (a view).
// Operands are contracted left to right, two at a time: a letter of both
// operands is a batch dim when it is still needed (in the output or a later
// operand) and a contracted dim otherwise; each pair becomes one bmm of
// permuted views reshaped to [batch, m, k] @ [batch, k, n], which copies only
// when the strides do not allow the reshape. Letters of only one operand that
// are not needed any more are summed first (a product with a vector of ones).
// The result is a permuted view of the last product.
#pragma once

#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace ember::ops
