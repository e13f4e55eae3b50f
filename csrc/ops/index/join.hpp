// Joining tensors: cat and stack, and flip (copies, on the tensors' device, in the
// dtype they promote to).
#pragma once

#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

// torch.cat: all tensors on one device, equal sizes except in `dim`; 1-D
// tensors with 0 elements are skipped (torch's legacy rule).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
// torch.stack: all tensors of one shape, joined along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
// torch.flip without autograd: a contiguous copy of x with the order along each
// of `dims` (wrapped, distinct: the caller checks) reversed, in one pass over any
// number of dims (x read through a view with those strides negated).
Tensor flip(const Tensor& x, const std::vector<int64_t>& dims);

}  // namespace ember::ops
