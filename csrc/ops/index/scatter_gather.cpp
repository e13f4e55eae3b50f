#include "ops/index/scatter_gather.hpp"

#include <string>

#include "ops/copy/copy.hpp"
#include "ops/index/scatter_functors.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"
#include "tensor/shape.hpp"

namespace ember::ops {

namespace {

// A tensor's sizes and strides with a 0-d tensor counted as one dim of size 1.
Shape sizes1(const Tensor& t) { return t.dim() == 0 ? Shape{1} : t.sizes(); }
Shape strides1(const Tensor& t) { return t.dim() == 0 ? Shape{1} : t.strides(); }

Tensor int64_index(const Tensor& index, const Tensor& self, const char* op) {
  if (index.dtype() != ScalarType::Int64 && index.dtype() != ScalarType::Int32) {
    throw Error(detail::str(op, "(): Expected dtype int32/int64 for index"));
  }
  check_same_device(self, index);
  return index.dtype() == ScalarType::Int64 ? index : to(index, index.device(), ScalarType::Int64);
}

// self viewed with index's sizes, stride 0 along dim.
Tensor restrided(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape st = strides1(t);
  st[dim] = 0;
  return t.view_with(shape, st, t.storage_offset());
}

bool in_range(int64_t k, int64_t size, bool wrap) {
  return wrap ? (k >= -size && k < size) : (k >= 0 && k < size);
}

void check_cpu(const Tensor& index, const Shape& shape, int64_t size, int64_t dim,
               std::optional<int64_t> ignore, const IndexRule& rule) {
  const IterLayout<1> it = make_iter<1>(shape, {&index});
  for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = *reinterpret_cast<const int64_t*>(p[0] + i * s[0]);
      if (ignore && k == *ignore) continue;
      if (!in_range(k, size, rule.wrap)) throw_index_error(rule, k, dim, size);
    }
  });
}

template <typename T>
struct GatherRow {
  int64_t size, stride, dim;
  bool wrap;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
      if (wrap && k < 0) k += size;
      *reinterpret_cast<T*>(p[0] + i * s[0]) =
          *reinterpret_cast<const T*>(p[1] + i * s[1] + k * stride * int64_t(sizeof(T)));
    }
  }
};

template <int R, typename T>
struct ScatterRow {
  int64_t size, stride;
  bool wrap;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
      if (wrap && k < 0) k += size;
      T* d = reinterpret_cast<T*>(p[0] + i * s[0] + k * stride * int64_t(sizeof(T)));
      const T v = *reinterpret_cast<const T*>(p[2] + i * s[2]);
      if constexpr (R == int(ScatterReduce::None)) {
        *d = v;
      } else {
        *d = scatter_combine<R>(*d, v);
      }
    }
  }
};

std::string dims_str(const Tensor& t) { return shape_str(t.sizes()); }

int64_t prod(const Shape& s, int64_t from, int64_t to) {
  int64_t p = 1;
  for (int64_t d = from; d < to; ++d) p *= s[d];
  return p;
}

// index's sizes equal self's except along dim (its rows line up with self's).
bool same_lead(const Shape& is, const Shape& ss, int64_t dim) {
  for (size_t d = 0; d < is.size(); ++d) {
    if (static_cast<int64_t>(d) != dim && is[d] != ss[d]) return false;
  }
  return true;
}

// index is one vector along dim viewed with zero strides over the other dims.
bool one_vector(const Tensor& iv, const Shape& is, int64_t dim) {
  for (size_t d = 0; d < is.size(); ++d) {
    if (static_cast<int64_t>(d) != dim && is[d] != 1 && iv.stride(d) != 0) return false;
  }
  return true;
}

}  // namespace

void throw_index_error(const IndexRule& rule, int64_t k, int64_t dim, int64_t size) {
  switch (rule.message) {
    case IndexMessage::Bounds:
      throw Error(detail::str("index ", k, " is out of bounds for dimension ", dim, " with size ",
                              size));
    case IndexMessage::Data:
      throw Error(detail::str("INDICES element is out of DATA bounds, id=", k, " axis_dim=",
                              size, " (", rule.op, "(): index ", k,
                              " is out of bounds for dimension ", dim, " with size ", size, ")"));
    case IndexMessage::IndexBounds:
      throw IndexError(detail::str("index ", k, " is out of bounds for dimension ", dim,
                                   " with size ", size));
    case IndexMessage::OpIndexBounds:
      throw IndexError(detail::str(rule.op, "(): index ", k, " is out of bounds for dimension ",
                                   dim, " with size ", size));
    case IndexMessage::Self:
      throw IndexError(detail::str("index out of range in self (", rule.op, ": index ", k,
                                   " is out of bounds for dimension ", dim, " with size ", size,
                                   ")"));
    case IndexMessage::Flat:
      throw IndexError(detail::str("out of range: tried to access index ", k, " on a tensor of ",
                                   size, " elements."));
  }
  throw IndexError(detail::str("index ", k, " is out of bounds"));
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index_in, const IndexRule& rule,
              const Tensor& out_in) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = wrap_dim(dim, nd);
  const Tensor index = int64_index(index_in, self, "gather");
  const Shape ss = sizes1(self), is = sizes1(index);
  if (static_cast<int64_t>(is.size()) != nd) {
    throw Error("Index tensor must have the same number of dimensions as input tensor");
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim && is[d] > ss[d]) {
      throw Error(detail::str("Size does not match at dimension ", d, " expected index ",
                              dims_str(index), " to be no larger than self ", dims_str(self),
                              " apart from dimension ", dim));
    }
  }
  Tensor out = out_in;
  if (out.defined()) {
    EMBER_CHECK(out.sizes() == index.sizes() && out.dtype() == self.dtype(),
                "gather: out must have index's shape and self's dtype");
    check_same_device(self, out);
  } else {
    out = Tensor::empty(index.sizes(), self.dtype(), self.device());
  }
  if (index.numel() == 0) return out;
  if (self.dtype() == ScalarType::ComplexDouble) {
    // No 16-byte gather kernels: the real views, the index repeated over their last dim.
    const auto one_d = [](const Tensor& t) {
      return t.dim() == 0 ? t.view_with({1}, {1}, t.storage_offset()) : t;
    };
    Shape is2 = is, istr = strides1(index);
    is2.push_back(2);
    istr.push_back(0);
    gather(view_as_real(one_d(self)), dim, index.view_with(is2, istr, index.storage_offset()),
           rule, view_as_real(one_d(out)));
    return out;
  }
  const int64_t size = ss[dim], stride = strides1(self)[dim];
  const Tensor sv = restrided(self, is, dim);
  const Tensor iv = index.view_with(is, strides1(index), index.storage_offset());
  const Tensor ov = out.view_with(is, strides1(out), out.storage_offset());
#if EMBER_WITH_CUDA
  if (self.is_cuda()) {
    // Fast paths for contiguous tensors whose index rows line up with self's (any size,
    // int64 offsets); everything else takes the strided kernel.
    if (self.dim() > 0 && self.is_contiguous() && out.is_contiguous() && same_lead(is, ss, dim)) {
      if (dim == nd - 1 && iv.is_contiguous()) {  // take, gather(-1, i): vectorised indices
        internal::gather_last_cuda(out, self, iv, size, dim, rule);
        return out;
      }
      if (one_vector(iv, is, dim)) {  // index_select: a row copy
        internal::index_rows_cuda(out, self, iv, is[dim] == 1 ? 0 : iv.stride(dim),
                                  prod(ss, 0, dim), is[dim], size, prod(ss, dim + 1, nd), dim,
                                  rule);
        return out;
      }
    }
    internal::gather_dim_cuda(ov, sv, iv, size, stride, dim, rule);
    return out;
  }
#endif
  check_cpu(iv, is, size, dim, std::nullopt, rule);
  const IterLayout<3> it = make_iter<3>(is, {&ov, &sv, &iv});
  dispatch_bits(self.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, GatherRow<T>{size, stride, dim, rule.wrap});
  });
  return out;
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index_in, const Tensor& src_in,
              ScatterReduce reduce, const IndexRule& rule, bool src_is_value) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  dim = wrap_dim(dim, nd);
  const Tensor index = int64_index(index_in, self, rule.op);
  const Shape ss = sizes1(self), is = sizes1(index);
  if (src_in.dtype() != self.dtype()) {
    throw Error(detail::str(rule.op, "(): Expected self.dtype to be equal to src.dtype"));
  }
  if (static_cast<int64_t>(is.size()) != nd) {
    throw Error("Index tensor must have the same number of dimensions as self tensor");
  }
  Tensor src;
  if (src_is_value) {
    EMBER_CHECK(src_in.dim() == 0, rule.op, ": the value must be a 0-d tensor");
    const Tensor v = to(src_in, self.device(), self.dtype());
    src = v.view_with(is, Shape(is.size(), 0), v.storage_offset());
  } else {
    check_same_device(self, src_in);
    const Shape rs = sizes1(src_in);
    if (static_cast<int64_t>(rs.size()) != nd) {
      throw Error("Index tensor must have the same number of dimensions as src tensor");
    }
    bool ok = true;
    for (int64_t d = 0; d < nd; ++d) ok = ok && is[d] <= rs[d] && (d == dim || is[d] <= ss[d]);
    if (!ok) {
      throw Error(detail::str("Expected index ", dims_str(index), " to be no larger than self ",
                              dims_str(self), " apart from dimension ", dim,
                              " and to be no larger size than src ", dims_str(src_in)));
    }
    Tensor s = src_in;
    if (s.storage().get() == self.storage().get()) s = clone(s);  // read before writing
    src = s.view_with(is, strides1(s), s.storage_offset());
  }
  if (index.numel() == 0) return;
  if (is_complex(self.dtype()) && reduce == ScatterReduce::Add) {
    // A complex add adds both parts: the same scatter on the real views, the
    // index repeated over their last dim (of size 2). Exact, on both devices.
    const Tensor self1 = self.dim() == 0 ? self.view_with({1}, {1}, self.storage_offset()) : self;
    Shape is2 = is, istr = strides1(index);
    is2.push_back(2);
    istr.push_back(0);
    scatter_(view_as_real(self1), dim, index.view_with(is2, istr, index.storage_offset()),
             view_as_real(src), reduce, rule, false);
    return;
  }
  const int64_t size = ss[dim], stride = strides1(self)[dim];
  const Tensor sv = restrided(self, is, dim);
  const Tensor iv = index.view_with(is, strides1(index), index.storage_offset());
#if EMBER_WITH_CUDA
  if (self.is_cuda()) {
    if (!src_is_value && self.dim() > 0 && dim == nd - 1 && self.is_contiguous() &&
        iv.is_contiguous() && src.is_contiguous() && same_lead(is, ss, dim)) {
      internal::scatter_last_cuda(self, iv, src, size, dim, reduce, rule);  // no offset math
      return;
    }
    internal::scatter_dim_cuda(sv, iv, src, size, stride, dim, reduce, rule);
    return;
  }
#endif
  check_cpu(iv, is, size, dim, std::nullopt, rule);
  const IterLayout<3> it = make_iter<3>(is, {&sv, &iv, &src});
  if (reduce == ScatterReduce::None) {
    dispatch_bits(self.itemsize(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      for_each_cpu(it, ScatterRow<0, T>{size, stride, rule.wrap});
    });
    return;
  }
  dispatch(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (reduce) {
      case ScatterReduce::Add: return for_each_cpu(it, ScatterRow<1, T>{size, stride, rule.wrap});
      case ScatterReduce::Mul: return for_each_cpu(it, ScatterRow<2, T>{size, stride, rule.wrap});
      case ScatterReduce::Max: return for_each_cpu(it, ScatterRow<3, T>{size, stride, rule.wrap});
      default: return for_each_cpu(it, ScatterRow<4, T>{size, stride, rule.wrap});
    }
  });
}

bool masked_fill_fast(const Tensor& out, const Tensor& self, const Tensor& mask,
                      const Tensor& value) {
#if EMBER_WITH_CUDA
  if (!self.is_cuda() || !self.is_contiguous() || !out.is_contiguous()) return false;
  if (out.sizes() != self.sizes() || out.dtype() != self.dtype() ||
      out.device() != self.device()) {
    return false;
  }
  if (mask.dtype() != ScalarType::Bool || mask.device() != self.device() ||
      !mask.is_contiguous() || mask.dim() > self.dim()) {
    return false;
  }
  if (value.dim() != 0 || value.dtype() != self.dtype() || value.device() != self.device()) {
    return false;
  }
  // mask's sizes, leading ones dropped, must be self's trailing sizes
  const Shape& ms = mask.sizes();
  const Shape& ss = self.sizes();
  size_t lead = 0;
  while (lead < ms.size() && ms[lead] == 1) ++lead;
  const size_t k = ms.size() - lead;
  for (size_t i = 0; i < k; ++i) {
    if (ms[lead + i] != ss[ss.size() - k + i]) return false;
  }
  if (self.numel() > 0) internal::masked_fill_cuda(out, self, mask, value);
  return true;
#else
  (void)out, (void)self, (void)mask, (void)value;
  return false;
#endif
}

void check_index_range(const Tensor& index, int64_t size, int64_t dim,
                       std::optional<int64_t> ignore, const IndexRule& rule) {
  EMBER_CHECK(is_integral(index.dtype(), false), rule.op, ": expected an integer index tensor");
  if (index.numel() == 0) return;
  const Tensor idx = index.dtype() == ScalarType::Int64
                         ? index
                         : to(index, index.device(), ScalarType::Int64);
#if EMBER_WITH_CUDA
  if (idx.is_cuda()) {
    internal::check_index_range_cuda(idx, size, dim, ignore, rule);
    return;
  }
#endif
  check_cpu(idx, idx.sizes(), size, dim, ignore, rule);
}

}  // namespace ember::ops
