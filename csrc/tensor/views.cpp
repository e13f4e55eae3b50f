#include "tensor/views.hpp"

#include <algorithm>

#include "runtime/errors.hpp"

namespace ember {

Tensor try_view(const Tensor& t, const Shape& shape) {
  const Shape sizes = infer_size(shape, t.numel());
  Shape strides;
  if (!compute_view_strides(t.sizes(), t.strides(), sizes, &strides)) return Tensor();
  return t.view_with(sizes, std::move(strides), t.storage_offset());
}

Tensor view(const Tensor& t, const Shape& shape) {
  Tensor v = try_view(t, shape);
  if (!v.defined()) {
    throw Error(
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  }
  return v;
}

Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides,
                  std::optional<int64_t> offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of sizes and strides");
  const int64_t off = offset.value_or(t.storage_offset());
  EMBER_CHECK(off >= 0, "as_strided: Negative storage offset ", off, " is not allowed");
  const int64_t numel = checked_numel(sizes, t.itemsize());
  int64_t last = off;  // highest element index touched
  for (size_t i = 0; i < sizes.size(); ++i) {
    EMBER_CHECK(strides[i] >= 0, "as_strided: Negative strides are not supported at the moment, ",
                "got strides: ", shape_str(strides));
    int64_t span = 0;
    EMBER_CHECK(numel == 0 || (!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
                               !__builtin_add_overflow(last, span, &last)),
                "as_strided: the sizes and strides overflow");
  }
  const int64_t need = numel == 0 ? 0 : (last + 1) * static_cast<int64_t>(t.itemsize());
  const int64_t have = static_cast<int64_t>(t.storage()->nbytes());
  if (need > have) {
    throw Error(detail::str("setStorage: sizes ", shape_str(sizes), ", strides ",
                            shape_str(strides), ", storage offset ", off, ", and itemsize ",
                            t.itemsize(), " requiring a storage size of ", need,
                            " are out of bounds for storage of size ", have));
  }
  return t.view_with(sizes, strides, off);
}

Tensor squeeze(const Tensor& t) {
  Shape sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] == 1) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor squeeze(const Tensor& t, const std::vector<int64_t>& dims) {
  // A 0-d tensor takes dims 0 and -1 (both wrap to 0) and stays 0-d.
  std::vector<bool> seen(std::max<int64_t>(t.dim(), 1), false), drop(t.dim(), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, t.dim());
    EMBER_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    if (t.dim() > 0 && t.sizes()[w] == 1) drop[w] = true;
  }
  Shape sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (drop[d]) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t.dim() + 1);
  Shape sizes = t.sizes(), strides = t.strides();
  const int64_t st = d < t.dim() ? sizes[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, st);
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  const int64_t n = t.dim();
  if (static_cast<int64_t>(dims.size()) != n) {
    throw Error(detail::str("permute(): number of dimensions in the tensor input does not match "
                            "the length of the desired ordering of dimensions i.e. input.dim() = ",
                            n, " is not equal to len(dims) = ", dims.size()));
  }
  Shape sizes(n), strides(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = t.sizes()[d];
    strides[i] = t.strides()[d];
  }
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  const int64_t a = wrap_dim(d0, t.dim()), b = wrap_dim(d1, t.dim());
  Shape sizes = t.sizes(), strides = t.strides();
  if (t.dim() > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor t_2d(const Tensor& t) {
  EMBER_CHECK(t.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", t.dim(),
              "D");
  return t.dim() < 2 ? t.view_with(t.sizes(), t.strides(), t.storage_offset())
                     : transpose(t, 0, 1);
}

Tensor reverse_dims(const Tensor& t) {
  Shape sizes(t.sizes().rbegin(), t.sizes().rend());
  Shape strides(t.strides().rbegin(), t.strides().rend());
  return t.view_with(std::move(sizes), std::move(strides), t.storage_offset());
}

Tensor matrix_transpose(const Tensor& t, const char* name) {
  // torch 2.11: the identity on 0-d tensors (deprecated there, with a warning
  // that the binding gives); 1-D tensors raise.
  if (t.dim() == 0) return t;
  EMBER_CHECK(t.dim() >= 2, "tensor.", name, " is only supported on matrices or batches of ",
              "matrices. Got ", t.dim(), "-D tensor.");
  return transpose(t, -2, -1);
}

Tensor movedim(const Tensor& t, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  const int64_t n = t.dim();
  EMBER_CHECK(src.size() == dst.size(), "movedim: Invalid source or destination dims: source (",
              shape_str(src), " dims) should contain the same number of dims as destination (",
              shape_str(dst), " dims)");
  // A 0-d tensor takes dims 0 and -1 (both wrap to 0): one slot to check
  // repeats against, and nothing to move.
  const int64_t slots = std::max<int64_t>(n, 1);
  std::vector<int64_t> order(slots, -1);
  std::vector<bool> used_src(slots, false);
  for (size_t i = 0; i < src.size(); ++i) {
    const int64_t s = wrap_dim(src[i], n), d = wrap_dim(dst[i], n);
    EMBER_CHECK(!used_src[s], "movedim: repeated dim in `source` (", shape_str(src), ")");
    EMBER_CHECK(order[d] < 0, "movedim: repeated dim in `destination` (", shape_str(dst), ")");
    used_src[s] = true;
    order[d] = s;
  }
  if (n == 0) return permute(t, {});
  int64_t next = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (order[d] >= 0) continue;
    while (used_src[next]) ++next;
    order[d] = next++;
  }
  return permute(t, order);
}

Tensor expand(const Tensor& t, const Shape& sizes) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  EMBER_CHECK(n >= t.dim(), "expand(", shape_str(t.sizes()), ", size=", shape_str(sizes),
              "): the number of sizes provided (", n,
              ") must be greater or equal to the number of dimensions in the tensor (", t.dim(),
              ")");
  Shape out_sizes(n), out_strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t off = n - 1 - i;
    const int64_t src_d = t.dim() - 1 - off;
    const int64_t want = sizes[i];
    if (src_d < 0) {
      EMBER_CHECK(want >= 0, "The expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      out_sizes[i] = want;
      out_strides[i] = 0;
      continue;
    }
    const int64_t have = t.sizes()[src_d];
    const int64_t size = want == -1 ? have : want;
    if (have != size) {
      EMBER_CHECK(have == 1, "The expanded size of the tensor (", size,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", shape_str(sizes), ".  Tensor sizes: ", shape_str(t.sizes()));
      EMBER_CHECK(size >= 0, "Trying to create tensor with negative dimension ", size, ": ",
                  shape_str(sizes));
      out_sizes[i] = size;
      out_strides[i] = 0;
    } else {
      out_sizes[i] = size;
      out_strides[i] = t.strides()[src_d];
    }
  }
  return t.view_with(std::move(out_sizes), std::move(out_strides), t.storage_offset());
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(t.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, t.dim());
  const int64_t size = t.sizes()[d];
  EMBER_CHECK(length >= 0, "narrow(): length must be non-negative.");
  if (start < -size || start > size) {
    throw IndexError(detail::str("start out of range (expected to be in range of [", -size, ", ",
                                 size, "], but got ", start, ")"));
  }
  if (start < 0) start += size;
  EMBER_CHECK(start <= size - length, "start (", start, ") + length (", length,
              ") exceeds dimension size (", size, ").");
  Shape sizes = t.sizes();
  sizes[d] = length;
  return t.view_with(std::move(sizes), t.strides(), t.storage_offset() + start * t.strides()[d]);
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  if (t.dim() == 0) throw IndexError("slice() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, t.dim());
  EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
  const int64_t size = t.sizes()[d];
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t b = start ? clamp(*start) : 0;
  const int64_t e = std::max(b, stop ? clamp(*stop) : size);
  Shape sizes = t.sizes(), strides = t.strides();
  sizes[d] = (e - b + step - 1) / step;
  strides[d] = t.strides()[d] * step;
  return t.view_with(std::move(sizes), std::move(strides),
                     t.storage_offset() + b * t.strides()[d]);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  if (t.dim() == 0) throw IndexError("select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, t.dim());
  const int64_t size = t.sizes()[d];
  if (index < -size || index >= size) {
    throw IndexError(detail::str("select(): index ", index, " out of range for tensor of size ",
                                 shape_str(t.sizes()), " at dimension ", d));
  }
  if (index < 0) index += size;
  Shape sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return t.view_with(std::move(sizes), std::move(strides),
                     t.storage_offset() + index * t.strides()[d]);
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, t.dim());
  const int64_t size = t.sizes()[d];
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=",
              split_size);
  EMBER_CHECK(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, ",
              "but got dimension size of ", size);
  std::vector<Tensor> out;
  if (size == 0) {
    out.push_back(narrow(t, d, 0, 0));
    return out;
  }
  for (int64_t start = 0; start < size; start += split_size) {
    out.push_back(narrow(t, d, start, std::min(split_size, size - start)));
  }
  return out;
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes,
                                     int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, t.dim());
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, ",
                "but got split_sizes=", shape_str(sizes));
    total += s;
  }
  EMBER_CHECK(total == t.sizes()[d], "split_with_sizes expects split_sizes to sum exactly to ",
              t.sizes()[d], " (input tensor's size at dimension ", d, "), but got split_sizes=",
              shape_str(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  EMBER_CHECK(t.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, t.dim());
  const int64_t size = t.sizes()[d];
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    // torch: `chunks` empty pieces.
    return split_with_sizes(t, std::vector<int64_t>(chunks, 0), d);
  }
  return split(t, split_size, d);
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t.dim());
  if (t.dim() == 0) {
    throw IndexError(detail::str("Dimension specified as ", d, " but tensor has no dimensions"));
  }
  std::vector<Tensor> out;
  out.reserve(t.sizes()[d]);
  for (int64_t i = 0; i < t.sizes()[d]; ++i) out.push_back(select(t, d, i));
  return out;
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  // As torch: the dims are wrapped first (IndexError when out of range: a 0-d
  // or 1-D tensor has no dim 1), then must differ, which needs 2 dims.
  const int64_t a = wrap_dim(dim1, t.dim()), b = wrap_dim(dim2, t.dim());
  EMBER_CHECK(a != b, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t len, start = t.storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(t.sizes()[a], t.sizes()[b] - offset), 0);
    if (len > 0) start += offset * t.strides()[b];
  } else {
    len = std::max<int64_t>(std::min(t.sizes()[a] + offset, t.sizes()[b]), 0);
    if (len > 0) start -= offset * t.strides()[a];
  }
  Shape sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == a || d == b) continue;
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(t.strides()[a] + t.strides()[b]);
  return t.view_with(std::move(sizes), std::move(strides), start);
}

Tensor view_dtype(const Tensor& t, ScalarType dtype) {
  EMBER_CHECK(element_size(dtype) == t.itemsize(),
              "Tensor.view(dtype) with a dtype of a different size is not supported by ember: ",
              dtype_name(t.dtype()), " has ", t.itemsize(), " bytes per element, ",
              dtype_name(dtype), " has ", element_size(dtype));
  return Tensor(t.storage(), dtype, t.sizes(), t.strides(), t.storage_offset());
}

}  // namespace ember
