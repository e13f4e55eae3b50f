// Memory overlap checks of written tensors (torch's assert_no_internal_overlap
// and assert_no_partial_overlap), shared by every op that writes into a tensor
// it did not allocate (in-place ops, out=, copy_, fill_, random draws).
// A tensor with no elements overlaps nothing, itself included.
#pragma once

#include "tensor/tensor.hpp"

namespace ember::ops {

// True when two elements of `t` share one memory location (a dim of size > 1
// with stride 0, as expand() makes).
bool has_internal_overlap(const Tensor& t);
// RuntimeError with torch's message when has_internal_overlap(t).
void check_no_internal_overlap(const Tensor& t);
// True when the byte ranges that `a` and `b` touch intersect.
bool may_overlap(const Tensor& a, const Tensor& b);
// RuntimeError with torch's message when `in` shares memory with `out` without
// being exactly out's elements (then each element is read before the same step
// writes it, which is safe).
void check_no_partial_overlap(const Tensor& out, const Tensor& in);

}  // namespace ember::ops
