// How a reduction walks its input: output element o (in the contiguous order
// of the kept dims) reduces the R elements base(o) + r * stride_r.
//
// make_reduce_plan merges the reduced dims (sorted by stride) into one dim
// and the kept dims (in their order) as far as strides allow. Two shapes
// result:
//   Inner:  the reduced elements of an output are one strided row (stride_r
//           1 for contiguous rows: sum(dim=-1), full reductions);
//   Column: the innermost kept dim is contiguous, so neighbouring outputs read
//           neighbouring elements (sum(dim=0) of a matrix, middle dims).
// When the reduced dims do not merge into one (a sliced or interleaved
// layout), the plan asks for a copy with the reduced dims last (prepare()).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tensor/iter.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

struct ReducePlan {
  enum Kind { Inner, Column } kind = Inner;
  int64_t outputs = 1;    // M
  int64_t reduced = 1;    // R
  int64_t stride_r = 1;   // elements between consecutive reduced elements
  // The kept dims, innermost first (input strides in bytes), for the base
  // offset of output o; numel == outputs.
  IterLayout<1> kept;
  Tensor input;           // x, or its copy
  Shape out_shape;        // kept dims (keepdim applied by the caller)
};

// `reduce_dim[d]` says whether dim d is reduced.
ReducePlan make_reduce_plan(const Tensor& x, const std::vector<bool>& reduce_dim);

// The reduced dims of `dims` for a tensor of `ndim` dims (wrapping negative
// dims; RuntimeError for repeated dims, IndexError out of range).
std::vector<bool> reduced_dims(const std::optional<std::vector<int64_t>>& dims, int64_t ndim);

// The output shape with the reduced dims kept as size 1 (keepdim) or dropped.
Shape reduced_shape(const Shape& sizes, const std::vector<bool>& reduce_dim, bool keepdim);

}  // namespace ember::ops
