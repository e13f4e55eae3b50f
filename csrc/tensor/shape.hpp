// Sizes and strides: the arithmetic every view and creation function shares.
// Strides are in elements; all sizes are 64-bit and every product is checked
// for overflow.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

using Shape = std::vector<int64_t>;

// "[2, 3]"
std::string shape_str(const Shape& s);

// Product of `sizes`; RuntimeError for a negative size or when the product (or
// the byte count with `itemsize`) does not fit in int64.
int64_t checked_numel(const Shape& sizes, size_t itemsize = 1);
inline int64_t numel_of(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

Shape contiguous_strides(const Shape& sizes);
bool is_contiguous(const Shape& sizes, const Shape& strides);
// No two elements share memory and the elements fill a dense block in some
// order of dimensions (a permutation of a contiguous tensor).
bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides);
// The strides a dense copy of a tensor keeps (torch's preserve_format): the
// same order of dimensions when the tensor is non-overlapping and dense,
// contiguous strides otherwise.
Shape dense_strides_like(const Shape& sizes, const Shape& strides);

// Wraps a possibly negative dim into [0, ndim); IndexError when out of range.
// A 0-d tensor accepts dims -1 and 0 (as torch does).
int64_t wrap_dim(int64_t dim, int64_t ndim);

// Replaces one -1 in `shape` by what makes it hold `numel` elements; the
// message for a shape that cannot is torch's ("shape '[3, 5]' is invalid for
// input of size 12").
Shape infer_size(const Shape& shape, int64_t numel);

// Strides for viewing (sizes, strides) as `new_sizes` without copying, by
// torch's rule; false when the view needs a copy.
bool compute_view_strides(const Shape& sizes, const Shape& strides, const Shape& new_sizes,
                          Shape* new_strides);

// The broadcast shape of a and b; RuntimeError naming both when they do not fit.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace ember
