#include "ops/index/index.hpp"
#include "tensor/complex_views.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>

#include "ops/copy/copy.hpp"
#include "ops/index/join.hpp"
#include "ops/index/scatter_gather.hpp"
#include "runtime/errors.hpp"
#include "tensor/convert.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

const Device kCpu(DeviceType::CPU);

bool is_mask(const Tensor& t) {
  return t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8;
}

// What index() and index_put_() share: a view of self restrided to the result
// shape (stride 0 over the broadcast index dims) and the element offsets that
// the indices add, expanded to the same shape.
struct Plan {
  Shape out_shape;
  Tensor base;     // view of self, out_shape, zero strides over B
  Tensor offsets;  // int64 element offsets, out_shape, zero strides outside B
};

// An index as int64 on `dev`. A pageable CPU index (a list, a CPU tensor) goes up
// to a GPU without waiting for the GPU's queue (`to`'s non_blocking from pageable
// memory stages the bytes before it returns, so the source may die at once); a
// pinned one is copied blocking, since the caller may write it right after.
Tensor index_on(const Tensor& idx, const Device& dev) {
  const bool async = idx.is_cpu() && dev.is_cuda() && !idx.is_pinned();
  return to(idx, dev, ScalarType::Int64, async);
}

// Masks become their nonzero coordinates; every index is int64 on self's device.
std::vector<std::pair<int64_t, Tensor>> expand_indices(const Tensor& self,
                                                       const std::vector<Tensor>& indices) {
  std::vector<std::pair<int64_t, Tensor>> out;
  int64_t d = 0;
  for (const Tensor& idx : indices) {
    if (!idx.defined()) {
      ++d;
      continue;
    }
    if (is_mask(idx)) {
      // A 0-d mask has one coordinate column for a dim it does not have (the
      // bindings apply 0-d masks as a new dim of size 1 instead).
      if (d + std::max<int64_t>(idx.dim(), 1) > self.dim()) {
        throw IndexError(detail::str("too many indices for tensor of dimension ", self.dim()));
      }
      for (int64_t k = 0; k < idx.dim(); ++k) {
        if (idx.sizes()[k] != self.sizes()[d + k]) {
          throw IndexError(detail::str("The shape of the mask ", shape_str(idx.sizes()),
                                       " at index ", k,
                                       " does not match the shape of the indexed tensor ",
                                       shape_str(self.sizes()), " at index ", d + k));
        }
      }
      std::vector<Tensor> cols = nonzero_columns(idx);
      for (Tensor& c : cols) out.emplace_back(d++, index_on(c, self.device()));
      continue;
    }
    if (!is_integral(idx.dtype(), false)) {
      throw IndexError("tensors used as indices must be long, int, byte or bool tensors");
    }
    EMBER_CHECK(d < self.dim(), "too many indices for tensor of dimension ", self.dim());
    out.emplace_back(d++, index_on(idx, self.device()));
  }
  return out;
}

// `checks`, when given, runs on the result's shape before any index is read
// (index_put_'s value checks come before the bounds checks, as in torch).
// `op` names the op in the record of a bad GPU index.
Plan make_plan(const Tensor& self, const std::vector<Tensor>& indices, const char* op,
               const std::function<void(const Shape&)>& checks = nullptr) {
  auto adv = expand_indices(self, indices);
  EMBER_CHECK(!adv.empty(), "index: no index tensors were given");
  Shape B = adv[0].second.sizes();
  for (size_t j = 1; j < adv.size(); ++j) {
    try {
      B = broadcast_shapes(B, adv[j].second.sizes());
    } catch (const Error&) {
      std::string shapes;
      for (const auto& a : adv) shapes += (shapes.empty() ? "" : ", ") + shape_str(a.second.sizes());
      throw IndexError(detail::str("shape mismatch: indexing tensors could not be broadcast "
                                   "together with shapes ", shapes));
    }
  }
  // torch's AdvancedIndex: an indexed dim of size 0 with a nonempty index
  // shape can only be out of bounds, whatever else is empty (checked before
  // the empty-output shortcut below, on both devices).
  if (numel_of(B) != 0) {
    for (const auto& a : adv) {
      if (self.sizes()[a.first] == 0) {
        throw IndexError("index is out of bounds for dimension with size 0");
      }
    }
  }
  bool adjacent = true;
  for (size_t j = 1; j < adv.size(); ++j) adjacent = adjacent && adv[j].first == adv[j - 1].first + 1;
  // Dims of self that are not indexed, split into those before and after the
  // indexed block (all "after" when the indexed dims are not adjacent).
  std::vector<bool> indexed(self.dim(), false);
  for (const auto& a : adv) indexed[a.first] = true;
  const int64_t first = adv.front().first;
  Shape before_sizes, before_strides, after_sizes, after_strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (indexed[d]) continue;
    const bool before = adjacent && d < first;
    (before ? before_sizes : after_sizes).push_back(self.sizes()[d]);
    (before ? before_strides : after_strides).push_back(self.strides()[d]);
  }
  Plan p;
  p.out_shape = before_sizes;
  p.out_shape.insert(p.out_shape.end(), B.begin(), B.end());
  p.out_shape.insert(p.out_shape.end(), after_sizes.begin(), after_sizes.end());
  checked_numel(p.out_shape, self.itemsize());

  Shape base_strides = before_strides;
  base_strides.insert(base_strides.end(), B.size(), 0);
  base_strides.insert(base_strides.end(), after_strides.begin(), after_strides.end());
  p.base = self.view_with(p.out_shape, base_strides, self.storage_offset());
  if (checks) checks(p.out_shape);
  if (numel_of(p.out_shape) == 0) {
    // Nothing is read or written: as in torch, the indices are not checked
    // (x[[5], 2:2] of a 2x2 tensor is empty, not an IndexError).
    p.offsets = Tensor::empty({0}, ScalarType::Int64, self.device())
                    .view_with(p.out_shape, Shape(p.out_shape.size(), 0), 0);
    return p;
  }

  // Offsets over B, then viewed with zero strides over the other dims.
  std::vector<Tensor> idx;
  Shape dims, sizes, strides;
  for (const auto& a : adv) {
    idx.push_back(contiguous(expand(a.second, B)));
    dims.push_back(a.first);
    sizes.push_back(self.sizes()[a.first]);
    strides.push_back(self.strides()[a.first]);
  }
  Tensor off = Tensor::empty(B, ScalarType::Int64, self.device());
#if EMBER_WITH_CUDA
  if (self.is_cuda()) {
    internal::index_offsets_cuda(idx, dims, sizes, strides, off, op);
  } else {
    internal::index_offsets_cpu(idx, dims, sizes, strides, off);
  }
#else
  internal::index_offsets_cpu(idx, dims, sizes, strides, off);
#endif
  Shape off_strides(before_sizes.size(), 0);
  const Shape bs = contiguous_strides(B);
  off_strides.insert(off_strides.end(), bs.begin(), bs.end());
  off_strides.insert(off_strides.end(), after_sizes.size(), 0);
  p.offsets = off.view_with(p.out_shape, off_strides, 0);
  return p;
}

#if EMBER_WITH_CUDA
int64_t prod_of(const Shape& s, int64_t from, int64_t to) {
  int64_t p = 1;
  for (int64_t d = from; d < to; ++d) p *= s[d];
  return p;
}

// index()'s GPU fast paths, for a contiguous self indexed by one tensor at dim
// d with nothing but whole dims (undefined entries) before it:
// - an integer tensor: index_select's row copy (out viewed [outer, n, inner],
//   one index read per row, 16-byte units; a bad index is recorded as by the
//   general path's offsets kernel, under "index", and reads a zero row);
// - a mask over every dim of self: one selection pass over the mask and the
//   values (x[mask], masked_select);
// - a mask over dims [d, d + k): its flat indices, then the same row copy.
// An undefined result: the general path applies (and raises what it raises).
Tensor index_fast_cuda(const Tensor& self, const std::vector<Tensor>& indices) {
  if (!self.is_cuda() || self.dim() == 0 || !self.is_contiguous()) return Tensor();
  int64_t d = -1;
  for (size_t j = 0; j < indices.size(); ++j) {
    if (!indices[j].defined()) continue;
    if (d >= 0) return Tensor();
    d = static_cast<int64_t>(j);
  }
  if (d < 0 || d >= self.dim()) return Tensor();
  const Tensor& idx = indices[d];
  const Shape& ss = self.sizes();
  const size_t es = self.itemsize();
  Shape B;
  int64_t k = 1;  // self's dims the index covers
  Tensor rows;    // int64 row indices, contiguous
  if (is_mask(idx)) {
    k = idx.dim();
    if (k == 0 || d + k > self.dim() || idx.device() != self.device()) return Tensor();
    for (int64_t i = 0; i < k; ++i) {
      if (idx.sizes()[i] != ss[d + i]) return Tensor();
    }
    if (d == 0 && k == self.dim() && (es == 1 || es == 2 || es == 4 || es == 8 || es == 16) &&
        reinterpret_cast<uintptr_t>(self.data_ptr()) % es == 0) {
      return internal::masked_gather_cuda(self, idx);
    }
    rows = internal::nonzero_flat_cuda(idx);
    B = {rows.numel()};
  } else {
    if (!is_integral(idx.dtype(), false)) return Tensor();
    B = idx.sizes();
    if (numel_of(B) != 0 && ss[d] == 0) {
      throw IndexError("index is out of bounds for dimension with size 0");
    }
  }
  Shape out_shape(ss.begin(), ss.begin() + d);
  out_shape.insert(out_shape.end(), B.begin(), B.end());
  out_shape.insert(out_shape.end(), ss.begin() + d + k, ss.end());
  checked_numel(out_shape, es);
  Tensor out = Tensor::empty(out_shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;  // as the general path: no index is read
  if (!rows.defined()) rows = contiguous(index_on(idx, self.device()));
  const IndexRule rule{"index", true, IndexMessage::IndexBounds};
  internal::index_rows_cuda(out, self, rows, 1, prod_of(ss, 0, d), numel_of(B),
                            prod_of(ss, d, d + k), prod_of(ss, d + k, self.dim()), d, rule);
  return out;
}
#endif

template <typename T>
void gather_row(char* const* p, const int64_t* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
    *reinterpret_cast<T*>(p[0] + i * s[0]) =
        *reinterpret_cast<const T*>(p[1] + i * s[1] + off * int64_t(sizeof(T)));
  }
}

template <typename T>
void scatter_row(char* const* p, const int64_t* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
    *reinterpret_cast<T*>(p[0] + i * s[0] + off * int64_t(sizeof(T))) =
        *reinterpret_cast<const T*>(p[1] + i * s[1]);
  }
}

// dst[off] += src in dst's type (bool: or), for index_put_(accumulate=True).
template <typename T>
void scatter_add_row(char* const* p, const int64_t* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t off = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
    T* d = reinterpret_cast<T*>(p[0] + i * s[0] + off * int64_t(sizeof(T)));
    const T v = *reinterpret_cast<const T*>(p[1] + i * s[1]);
    if constexpr (std::is_same<T, bool>::value) {
      *d = *d || v;
    } else if constexpr (is_reduced_float<T>::value) {
      *d = T(static_cast<float>(*d) + static_cast<float>(v));
    } else {
      *d = static_cast<T>(*d + v);
    }
  }
}

}  // namespace

namespace internal {

void index_offsets_cpu(const std::vector<Tensor>& idx, const Shape& dims, const Shape& sizes,
                       const Shape& strides, const Tensor& out) {
  const int64_t n = out.numel();
  auto* o = static_cast<int64_t*>(out.data_ptr());
  std::memset(o, 0, n * sizeof(int64_t));
  for (size_t j = 0; j < idx.size(); ++j) {
    const auto* v = static_cast<const int64_t*>(idx[j].data_ptr());
    const int64_t size = sizes[j], stride = strides[j];
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = v[i];
      if (k < -size || k >= size) {
        throw IndexError(detail::str("index ", k, " is out of bounds for dimension ", dims[j],
                                     " with size ", size));
      }
      if (k < 0) k += size;
      o[i] += k * stride;
    }
  }
}

}  // namespace internal

std::vector<Tensor> nonzero_columns(const Tensor& t) {
#if EMBER_WITH_CUDA
  if (t.is_cuda()) return internal::nonzero_columns_cuda(t);
#endif
  const Tensor c = contiguous(to(t, kCpu, ScalarType::Bool));
  const auto* v = static_cast<const bool*>(c.data_ptr());
  const int64_t n = c.numel(), nd = c.dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += v[i];
  std::vector<Tensor> cols;
  std::vector<int64_t*> out;
  for (int64_t d = 0; d < std::max<int64_t>(nd, 1); ++d) {
    cols.push_back(Tensor::empty({count}, ScalarType::Int64, kCpu));
    out.push_back(static_cast<int64_t*>(cols.back().data_ptr()));
  }
  if (nd == 0) {  // a 0-d mask: one coordinate of 0 if true
    if (count) out[0][0] = 0;
    return cols;
  }
  std::vector<int64_t> coord(nd, 0);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i]) {
      for (int64_t d = 0; d < nd; ++d) out[d][k] = coord[d];
      ++k;
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++coord[d] < c.sizes()[d]) break;
      coord[d] = 0;
    }
  }
  return cols;
}

Tensor nonzero(const Tensor& t) {
  EMBER_CHECK(t.dim() > 0, "nonzero: takes a tensor of at least one dim");
#if EMBER_WITH_CUDA
  if (t.is_cuda()) return internal::nonzero_cuda(t);
#endif
  return stack(nonzero_columns(t), 1);
}

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  if (self.dtype() == ScalarType::ComplexDouble) {
    // Through the float64 view (no 16-byte gather kernels): the indices
    // address the leading dims, the parts stay the last one.
    return view_as_complex(index(view_as_real(self), indices));
  }
#if EMBER_WITH_CUDA
  {
    Tensor fast = index_fast_cuda(self, indices);
    if (fast.defined()) return fast;
  }
#endif
  const Plan p = make_plan(self, indices, "index");
  Tensor out = Tensor::empty(p.out_shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
#if EMBER_WITH_CUDA
  if (self.is_cuda()) {
    internal::gather_cuda(out, p.base, p.offsets);
    return out;
  }
#endif
  const IterLayout<3> it = make_iter<3>(p.out_shape, {&out, &p.base, &p.offsets});
  dispatch_bits(self.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, gather_row<T>);
  });
  return out;
}

void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate) {
  if (is_complex(self.dtype()) && values.dtype() == self.dtype()) {
    // Through the real views: complex128 has no 16-byte scatter kernels, and
    // accumulating adds the parts.
    index_put_(view_as_real(self), indices, view_as_real(values), accumulate);
    return;
  }
  // Values on self's device, broadcast to the indexed shape; of self's dtype
  // (torch's index_put_ converts nothing: setitem of a number makes a value
  // of self's dtype, and a bool mask with one value goes through masked_fill).
  const auto checks = [&](const Shape& out_shape) {
    Shape b;
    try {
      b = broadcast_shapes(out_shape, values.sizes());
    } catch (const Error&) {
      b.clear();
    }
    if (b != out_shape) {
      throw Error(detail::str("shape mismatch: value tensor of shape ", shape_str(values.sizes()),
                              " cannot be broadcast to indexing result of shape ",
                              shape_str(out_shape)));
    }
    if (values.dtype() != self.dtype()) {
      throw Error(detail::str("Index put requires the source and destination dtypes match, got ",
                              torch_scalar_name(self.dtype()), " for the destination and ",
                              torch_scalar_name(values.dtype()), " for the source."));
    }
  };
  const Plan p = make_plan(self, indices, "index_put_", checks);
  Tensor v = to(values, self.device(), self.dtype());
  if (v.storage().get() == self.storage().get()) v = clone(v);  // read before writing
  v = expand(v, p.out_shape);
  if (numel_of(p.out_shape) == 0) return;
#if EMBER_WITH_CUDA
  if (self.is_cuda()) {
    if (accumulate) {
      internal::scatter_add_cuda(p.base, v, p.offsets);
    } else {
      internal::scatter_cuda(p.base, v, p.offsets);
    }
    return;
  }
#endif
  const IterLayout<3> it = make_iter<3>(p.out_shape, {&p.base, &v, &p.offsets});
  if (accumulate) {
    dispatch(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for_each_cpu(it, scatter_add_row<T>);
    });
    return;
  }
  dispatch_bits(self.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, scatter_row<T>);
  });
}

}  // namespace ember::ops
