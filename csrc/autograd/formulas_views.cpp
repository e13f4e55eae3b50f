// Views: the forward is tensor/views.hpp's (no copy); the backward maps the
// gradient of the view back to the input's shape. Reshaping views reshape the
// gradient back, permutations permute it back, expand sums it, and views that
// pick part of the input (select, slice, narrow, diagonal, as_strided) write
// it into zeros of the input's shape. Multi-output views (split, chunk,
// unbind) have one node whose backward joins the gradients (cat, stack).
#include <algorithm>
#include <numeric>
#include <utility>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

// Records a one-input view op whose backward is f(grad).
template <typename F>
Tensor finish(Tensor out, const Tensor& self, const char* name, F f) {
  mark_view(out, self);
  if (needs_grad(self)) {
    record(name, {&self}, {&out}, [f](FormulaNode&, TensorList& g) -> TensorList {
      return {f(g[0])};
    });
  }
  return out;
}

// The backward of a view that picks part of its input: zeros of the input's
// shape with the gradient written where `pick` (the same view, applied to the
// zeros) says.
template <typename Pick>
Tensor finish_picking(Tensor out, const Tensor& self, const char* name, Pick pick) {
  const Shape sizes = self.sizes();
  const ScalarType dtype = self.dtype();
  const Device device = self.device();
  return finish(std::move(out), self, name, [=](const Tensor& g) {
    Tensor z = zeros(sizes, dtype, device);
    autograd::copy_(pick(z), g);
    return z;
  });
}

std::vector<Tensor> finish_multi(std::vector<Tensor> outs, const Tensor& self, const char* name,
                                 std::function<Tensor(const TensorList&)> join) {
  for (const Tensor& o : outs) mark_view(o, self);
  if (needs_grad(self)) {
    record(name, std::vector<Tensor>{self}, outs,
           [join](FormulaNode&, TensorList& g) -> TensorList { return {join(g)}; });
  }
  return outs;
}

// No two elements of (sizes, strides) share an address.
bool non_overlapping(const Shape& sizes, const Shape& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims that move
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return true;
    if (sizes[i] > 1) dims.emplace_back(strides[i], sizes[i]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;  // the largest offset reached by the smaller-stride dims
  for (const auto& [stride, size] : dims) {
    if (stride <= extent) return false;
    extent += (size - 1) * stride;
  }
  return true;
}

}  // namespace

Tensor view(const Tensor& t, const Shape& shape) {
  const Shape in = t.sizes();
  return finish(ember::view(t, shape), t, "ViewBackward0",
                [in](const Tensor& g) { return autograd::reshape(g, in); });
}

Tensor reshape(const Tensor& t, const Shape& shape) {
  const Shape in = t.sizes();
  Tensor out = ops::reshape(t, shape);
  auto back = [in](const Tensor& g) { return autograd::reshape(g, in); };
  if (out.storage() == t.storage()) return finish(std::move(out), t, "ViewBackward0", back);
  if (needs_grad(t)) {
    record("UnsafeViewBackward0", {&t}, {&out},
           [back](FormulaNode&, TensorList& g) -> TensorList { return {back(g[0])}; });
  }
  return out;
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  Tensor out = ops::flatten(t, start_dim, end_dim);
  if (out.is_same(t)) return out;
  const Shape in = t.sizes();
  auto back = [in](const Tensor& g) { return autograd::reshape(g, in); };
  if (out.storage() == t.storage()) return finish(std::move(out), t, "ViewBackward0", back);
  if (needs_grad(t)) {
    record("UnsafeViewBackward0", {&t}, {&out},
           [back](FormulaNode&, TensorList& g) -> TensorList { return {back(g[0])}; });
  }
  return out;
}

Tensor squeeze(const Tensor& t) {
  const Shape in = t.sizes();
  return finish(ember::squeeze(t), t, "SqueezeBackward0",
                [in](const Tensor& g) { return autograd::reshape(g, in); });
}

Tensor squeeze(const Tensor& t, const std::vector<int64_t>& dims) {
  const Shape in = t.sizes();
  return finish(ember::squeeze(t, dims), t, dims.size() == 1 ? "SqueezeBackward1" : "SqueezeBackward2",
                [in](const Tensor& g) { return autograd::reshape(g, in); });
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  const int64_t d = wrap_dim(dim, t.dim() + 1);
  return finish(ember::unsqueeze(t, dim), t, "UnsqueezeBackward0",
                [d](const Tensor& g) { return autograd::squeeze(g, {d}); });
}

Tensor permute(const Tensor& t, const std::vector<int64_t>& dims) {
  Tensor out = ember::permute(t, dims);
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(wrap_dim(dims[i], t.dim()))] = static_cast<int64_t>(i);
  }
  return finish(std::move(out), t, "PermuteBackward0",
                [inverse](const Tensor& g) { return autograd::permute(g, inverse); });
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  return finish(ember::transpose(t, d0, d1), t, "TransposeBackward0",
                [d0, d1](const Tensor& g) { return autograd::transpose(g, d0, d1); });
}

Tensor t_2d(const Tensor& t) {
  return finish(ember::t_2d(t), t, "TBackward0", [](const Tensor& g) { return autograd::t_2d(g); });
}

Tensor reverse_dims(const Tensor& t) {
  return finish(ember::reverse_dims(t), t, "PermuteBackward0",
                [](const Tensor& g) { return autograd::reverse_dims(g); });
}

Tensor matrix_transpose(const Tensor& t, const char* name) {
  if (t.dim() == 0) return t;  // torch 2.11: the tensor itself, no node
  return finish(ember::matrix_transpose(t, name), t, "TransposeBackward0",
                [](const Tensor& g) { return autograd::matrix_transpose(g); });
}

Tensor movedim(const Tensor& t, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  return finish(ember::movedim(t, src, dst), t, "PermuteBackward0",
                [src, dst](const Tensor& g) { return autograd::movedim(g, dst, src); });
}

Tensor expand(const Tensor& t, const Shape& sizes) {
  const Shape in = t.sizes();
  return finish(ember::expand(t, sizes), t, "ExpandBackward0",
                [in](const Tensor& g) { return sum_to(g, in); });
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Tensor out = ember::narrow(t, dim, start, length);
  const int64_t d = wrap_dim(dim, t.dim());
  const int64_t s = start < 0 ? start + t.sizes()[d] : start;
  return finish_picking(std::move(out), t, "SliceBackward0", [d, s, length](const Tensor& z) {
    return autograd::narrow(z, d, s, length);
  });
}

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step) {
  return finish_picking(ember::slice(t, dim, start, stop, step), t, "SliceBackward0",
                        [=](const Tensor& z) { return autograd::slice(z, dim, start, stop, step); });
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  return finish_picking(ember::select(t, dim, index), t, "SelectBackward0",
                        [=](const Tensor& z) { return autograd::select(z, dim, index); });
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  return finish_picking(ember::diagonal(t, offset, dim1, dim2), t, "DiagonalBackward0",
                        [=](const Tensor& z) { return autograd::diagonal(z, offset, dim1, dim2); });
}

Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides,
                  std::optional<int64_t> offset) {
  Tensor out = ember::as_strided(t, sizes, strides, offset);
  if (!needs_grad(t)) {
    mark_view(out, t);
    return out;
  }
  EMBER_CHECK(t.is_contiguous(), "as_strided(): ember computes the gradient of as_strided only "
              "for a contiguous input; call .contiguous() first");
  EMBER_CHECK(non_overlapping(sizes, strides),
              "as_strided(): ember computes the gradient of as_strided only when the result's "
              "elements do not overlap");
  const int64_t rel = out.storage_offset() - t.storage_offset();
  return finish_picking(std::move(out), t, "AsStridedBackward0", [=](const Tensor& z) {
    return ember::as_strided(z, sizes, strides, z.storage_offset() + rel);
  });
}

// The multi-output views run the op first: its checks (a 0-d input raises
// the op's own error, as in torch) come before the dim is wrapped here.
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  std::vector<Tensor> outs = ember::split(t, split_size, dim);
  const int64_t d = wrap_dim(dim, t.dim());
  return finish_multi(std::move(outs), t, "SplitBackward0",
                      [d](const TensorList& g) { return autograd::cat(g, d); });
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes,
                                     int64_t dim) {
  std::vector<Tensor> outs = ember::split_with_sizes(t, sizes, dim);
  const int64_t d = wrap_dim(dim, t.dim());
  return finish_multi(std::move(outs), t, "SplitWithSizesBackward0",
                      [d](const TensorList& g) { return autograd::cat(g, d); });
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  std::vector<Tensor> outs = ember::chunk(t, chunks, dim);
  const int64_t d = wrap_dim(dim, t.dim());
  return finish_multi(std::move(outs), t, "SplitBackward0",
                      [d](const TensorList& g) { return autograd::cat(g, d); });
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  std::vector<Tensor> outs = ember::unbind(t, dim);
  const int64_t d = wrap_dim(dim, t.dim());
  return finish_multi(std::move(outs), t, "UnbindBackward0",
                      [d](const TensorList& g) { return autograd::stack(g, d); });
}

Tensor view_dtype(const Tensor& t, ScalarType dtype) {
  Tensor out = ember::view_dtype(t, dtype);
  EMBER_CHECK(!needs_grad(t) || dtype == t.dtype(),
              "view(dtype) of a tensor that requires grad is not differentiable: detach() it "
              "first");
  return out;
}

Tensor alias(const Tensor& t) { return t.view_with(t.sizes(), t.strides(), t.storage_offset()); }

void set_metadata_inplace(const Tensor& t, const Tensor& v) {
  check_inplace(t);
  const_cast<Tensor&>(t).set_metadata(v.sizes(), v.strides(), v.storage_offset());
  const AutogradMeta* vm = meta(v);
  if (!vm || !vm->grad_fn) return;
  AutogradMeta& m = materialize_meta(t);
  release_node(std::move(m.grad_fn));
  m.grad_fn = vm->grad_fn;
  m.output_nr = vm->output_nr;
}

}  // namespace ember::autograd
