#include "ops/reduce/reduce_plan.hpp"

#include <algorithm>

#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

struct Dim {
  int64_t size, stride;  // stride in elements
};

// Reduced dims sorted by stride, merged where contiguous; false when more
// than one dim remains.
bool merge_reduced(std::vector<Dim> r, int64_t* size, int64_t* stride) {
  std::sort(r.begin(), r.end(), [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  if (r.empty()) {
    *size = 1;
    *stride = 1;
    return true;
  }
  Dim m = r[0];
  for (size_t i = 1; i < r.size(); ++i) {
    if (r[i].stride != m.stride * m.size) return false;
    m.size *= r[i].size;
  }
  *size = m.size;
  *stride = m.stride;
  return true;
}

ReducePlan plan_for(const Tensor& x, const std::vector<bool>& red, bool* ok) {
  ReducePlan p;
  p.input = x;
  std::vector<Dim> r;
  std::vector<Dim> k;  // outermost first
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t s = x.sizes()[d];
    if (red[d]) {
      if (s != 1) r.push_back({s, x.strides()[d]});
    } else {
      p.out_shape.push_back(s);
      if (s != 1) k.push_back({s, x.strides()[d]});
    }
  }
  // Nothing to read: an empty reduced dim (each output reduces no element,
  // giving the op's identity: 0 for sum, nan for mean) or an empty kept dim
  // (no output). No layout is needed then, whatever the strides.
  int64_t reduced_count = 1;
  for (const Dim& d : r) reduced_count *= d.size;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (red[d] && x.sizes()[d] == 0) reduced_count = 0;
  }
  p.outputs = numel_of(p.out_shape);
  if (reduced_count == 0 || p.outputs == 0) {
    *ok = true;
    p.reduced = reduced_count;
    p.stride_r = 1;
    p.kept.ndim = 1;
    p.kept.shape[0] = p.outputs;
    p.kept.strides[0][0] = 0;  // every output's (empty) row starts at x's data
    p.kept.numel = p.outputs;
    p.kept.data[0] = static_cast<char*>(x.data_ptr());
    return p;
  }
  *ok = merge_reduced(r, &p.reduced, &p.stride_r);
  if (!*ok) return p;
  // Merge neighbouring kept dims (outer a, inner b) with stride_a == stride_b * size_b.
  std::vector<Dim> km;
  for (const Dim& d : k) {
    if (!km.empty() && km.back().stride == d.stride * d.size) {
      km.back().size *= d.size;
      km.back().stride = d.stride;
    } else {
      km.push_back(d);
    }
  }
  EMBER_CHECK(km.size() <= size_t(kMaxIterDims), "a reduction supports at most ", kMaxIterDims,
              " non-mergeable kept dimensions; make the tensor contiguous first");
  IterLayout<1>& it = p.kept;
  it.ndim = std::max<int>(1, static_cast<int>(km.size()));
  it.shape[0] = 1;
  it.strides[0][0] = 0;
  const int64_t item = static_cast<int64_t>(x.itemsize());
  for (size_t i = 0; i < km.size(); ++i) {  // innermost first
    const Dim& d = km[km.size() - 1 - i];
    it.shape[i] = d.size;
    it.strides[0][i] = d.stride * item;
  }
  p.outputs = numel_of(p.out_shape);
  it.numel = p.outputs;
  it.data[0] = static_cast<char*>(x.data_ptr());
  const bool inner_contig = !km.empty() && km.back().stride == 1;
  p.kind = (p.stride_r != 1 && inner_contig && p.reduced > 1) ? ReducePlan::Column
                                                              : ReducePlan::Inner;
  return p;
}

}  // namespace

std::vector<bool> reduced_dims(const std::optional<std::vector<int64_t>>& dims, int64_t ndim) {
  std::vector<bool> red(static_cast<size_t>(ndim), false);
  if (!dims || dims->empty()) {
    std::fill(red.begin(), red.end(), true);
    return red;
  }
  for (int64_t d : *dims) {
    const int64_t w = wrap_dim(d, ndim);
    if (ndim == 0) continue;
    if (red[w]) throw Error(detail::str("dim ", w, " appears multiple times in the list of dims"));
    red[w] = true;
  }
  return red;
}

Shape reduced_shape(const Shape& sizes, const std::vector<bool>& red, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!red[d]) {
      out.push_back(sizes[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

ReducePlan make_reduce_plan(const Tensor& x, const std::vector<bool>& red) {
  bool ok = false;
  ReducePlan p = plan_for(x, red, &ok);
  if (ok) return p;
  // Kept dims first, reduced dims last, copied contiguous: reduced dims merge.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!red[d]) perm.push_back(d);
  }
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (red[d]) perm.push_back(d);
  }
  const Tensor c = contiguous(permute(x, perm));
  std::vector<bool> red2(red.size(), false);
  const size_t kept = perm.size() - static_cast<size_t>(std::count(red.begin(), red.end(), true));
  for (size_t i = kept; i < red2.size(); ++i) red2[i] = true;
  p = plan_for(c, red2, &ok);
  EMBER_CHECK(ok, "internal error: reduction plan after a contiguous copy");
  return p;
}

}  // namespace ember::ops
