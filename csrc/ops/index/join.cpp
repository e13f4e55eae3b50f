#include "ops/index/join.hpp"

#include <algorithm>

#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

bool skipped(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  ScalarType dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) {
    check_same_device(tensors[0], t);
    dtype = promote_types(dtype, t.dtype());
  }
  // The first tensor that is not skipped defines the shape.
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    if (!skipped(t)) {
      ref = &t;
      break;
    }
  }
  if (!ref) return Tensor::empty({0}, dtype, tensors[0].device());
  EMBER_CHECK(ref->dim() > 0, "zero-dimensional tensor (at position ", ref - tensors.data(),
              ") cannot be concatenated");
  const int64_t d = wrap_dim(dim, ref->dim());
  Shape shape = ref->sizes();
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ",
                ref->dim(), " and ", t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      EMBER_CHECK(k == d || t.sizes()[k] == shape[k],
                  "Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  shape[k], " but got size ", t.sizes()[k], " for tensor number ", i,
                  " in the list.");
    }
    total += t.sizes()[d];
  }
  shape[d] = total;
  Tensor out = Tensor::empty(shape, dtype, tensors[0].device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    copy_(narrow(out, d, offset, t.sizes()[d]), t);
    offset += t.sizes()[d];
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got ",
                shape_str(tensors[0].sizes()), " at entry 0 and ", shape_str(tensors[i].sizes()),
                " at entry ", i);
    parts.push_back(unsqueeze(tensors[i], d));
  }
  return cat(parts, d);
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& dims) {
  Shape strides = x.strides();
  int64_t offset = x.storage_offset();
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, std::max<int64_t>(x.dim(), 1));
    if (x.dim() == 0 || x.sizes()[w] <= 1) continue;
    offset += (x.sizes()[w] - 1) * strides[w];
    strides[w] = -strides[w];
  }
  // Only this function sees the negative strides: the copy's layout (tensor/iter.hpp)
  // and offsets are signed byte arithmetic.
  const Tensor view = x.view_with(x.sizes(), strides, offset);
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  copy_(out, view);
  return out;
}

}  // namespace ember::ops
