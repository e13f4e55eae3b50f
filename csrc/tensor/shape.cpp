#include "tensor/shape.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "runtime/errors.hpp"

namespace ember {

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

int64_t checked_numel(const Shape& sizes, size_t itemsize) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s < 0) {
      throw Error(detail::str("Trying to create tensor with negative dimension ", s, ": ",
                              shape_str(sizes)));
    }
  }
  for (int64_t s : sizes) overflow = overflow || __builtin_mul_overflow(n, s, &n);
  int64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(n, static_cast<int64_t>(itemsize), &bytes);
  if (overflow) {
    throw Error(detail::str("Storage size calculation overflowed with sizes=", shape_str(sizes),
                            ": the tensor would need more than 2**63 bytes."));
  }
  return n;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

bool is_contiguous(const Shape& sizes, const Shape& strides) {
  for (int64_t s : sizes) {
    if (s == 0) return true;  // no elements: any strides
  }
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides) {
  if (sizes.size() == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (size_t d : perm) {
    if (sizes[d] == 1) continue;
    if (sizes[d] == 0) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

Shape dense_strides_like(const Shape& sizes, const Shape& strides) {
  if (!is_non_overlapping_and_dense(sizes, strides)) return contiguous_strides(sizes);
  if (is_contiguous(sizes, strides)) return contiguous_strides(sizes);
  // Same dimension order as the source, packed.
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  Shape out(sizes.size());
  int64_t acc = 1;
  for (size_t d : perm) {
    out[d] = acc;
    acc *= std::max<int64_t>(sizes[d], 1);
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  if (dim < -n || dim >= n) {
    throw IndexError(detail::str("Dimension out of range (expected to be in range of [", -n, ", ",
                                 n - 1, "], but got ", dim, ")"));
  }
  return dim < 0 ? dim + n : dim;
}

Shape infer_size(const Shape& shape, int64_t numel) {
  Shape out = shape;
  int64_t known = 1;
  int infer = -1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) throw Error("only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw Error(detail::str("invalid shape dimension ", shape[i], " at index ", i, " of shape ",
                              shape_str(shape)));
    } else {
      overflow = overflow || __builtin_mul_overflow(known, shape[i], &known);
    }
  }
  const bool ok = !overflow && (numel == known || (infer >= 0 && known > 0 && numel % known == 0));
  if (!ok) {
    throw Error(detail::str("shape '", shape_str(shape), "' is invalid for input of size ", numel));
  }
  if (infer >= 0) {
    // [0, -1] of 0 elements: the -1 cannot be inferred.
    if (known == 0) {
      throw Error(detail::str("cannot reshape tensor of 0 elements into shape ", shape_str(shape),
                              " because the unspecified dimension size -1 can be any value and "
                              "is ambiguous"));
    }
    out[infer] = numel / known;
  }
  return out;
}

bool compute_view_strides(const Shape& sizes, const Shape& strides, const Shape& new_sizes,
                          Shape* new_strides) {
  new_strides->assign(new_sizes.size(), 0);
  if (sizes.empty()) {  // a 0-d tensor: any shape of one element
    for (int64_t& s : *new_strides) s = 1;
    return true;
  }
  const int64_t numel = numel_of(sizes);
  if (numel == 0) {
    if (sizes == new_sizes) {
      *new_strides = strides;
    } else {
      *new_strides = contiguous_strides(new_sizes);
    }
    return true;
  }
  // Walk the old dims from the innermost outwards in chunks that are
  // contiguous among themselves; each chunk must be matched by new dims.
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    // A chunk ends where the next-outer dim is not contiguous with this one.
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        (*new_strides)[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      throw Error(detail::str("The size of tensor a (", da, ") must match the size of tensor b (",
                              db, ") at non-singleton dimension ", i));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace ember
