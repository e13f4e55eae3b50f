// Joining tensors: cat and stack (copies, on the tensors' device, in the
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

}  // namespace ember::ops
