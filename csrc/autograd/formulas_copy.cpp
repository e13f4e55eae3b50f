// Copies and in-place writes: clone, contiguous, to (dtype and device moves),
// cat, stack, and the in-place writes Python can make without math (copy_,
// fill_, zero_). Every in-place write checks for leaves, bumps the version
// counter and, when the graph needs it, rebases the history of the tensor
// written (through CopySlices for views: dispatch.cpp).
#include <type_traits>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/index/join.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

Tensor zeros(const Shape& sizes, ScalarType dtype, const Device& device) {
  Tensor t = Tensor::empty(sizes, dtype, device);
  ops::zero_(t);
  return t;
}

Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.dtype(), t.device()); }

Tensor ones_like(const Tensor& t) {
  Tensor o = Tensor::empty(t.sizes(), t.dtype(), t.device());
  ops::fill_(o, Scalar::from_int(1));
  return o;
}

bool is_expandable_to(const Shape& shape, const Shape& to) {
  if (shape.size() > to.size()) return false;
  const size_t off = to.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1 && shape[i] != to[off + i]) return false;
  }
  return true;
}

Tensor clone(const Tensor& t) {
  Tensor out = ops::clone(t);
  if (needs_grad(t)) {
    record("CloneBackward0", {&t}, {&out},
           [](FormulaNode&, TensorList& g) -> TensorList { return {g[0]}; });
  }
  return out;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = ops::contiguous(t);
  if (needs_grad(t)) {
    record("CloneBackward0", {&t}, {&out},
           [](FormulaNode&, TensorList& g) -> TensorList { return {g[0]}; });
  }
  return out;
}

Tensor to(const Tensor& t, const Device& device, ScalarType dtype, bool non_blocking, bool copy,
          bool pin_memory) {
  Tensor out = ops::to(t, device, dtype, non_blocking, copy, pin_memory);
  if (out.is_same(t) || !is_floating_or_complex(dtype) || !needs_grad(t)) return out;
  const Device src_device = t.device();
  const ScalarType src_dtype = t.dtype();
  record("ToCopyBackward0", {&t}, {&out},
         [src_device, src_dtype](FormulaNode&, TensorList& g) -> TensorList {
           return {autograd::to(g[0], src_device, src_dtype)};
         });
  return out;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (autocast::any_enabled() && !tensors.empty()) {  // torch's cpu list: widest input type
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : tensors) ptrs.push_back(&t);
    if (auto ac = autocast::enter_promote(ptrs, autocast::kCpuList)) {
      return autograd::cat(ac.cast(tensors), dim);
    }
  }
  Tensor out = ops::cat(tensors, dim);
  if (!needs_grad(tensors)) return out;
  // Each input's extent along the dim (legacy-skipped empty 1-D inputs get none).
  const Tensor* ref = nullptr;
  for (const Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.sizes()[0] == 0)) {
      ref = &t;
      break;
    }
  }
  if (!ref) return out;
  const int64_t d = wrap_dim(dim, ref->dim());
  std::vector<int64_t> sizes;
  for (const Tensor& t : tensors) {
    sizes.push_back(t.dim() == 1 && t.sizes()[0] == 0 && ref->dim() != 1 ? -1 : t.sizes()[d]);
  }
  record("CatBackward0", tensors, {out}, [d, sizes](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList grads(sizes.size());
    int64_t offset = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] < 0) continue;
      if (n.needs(i)) grads[i] = autograd::narrow(g[0], d, offset, sizes[i]);
      offset += sizes[i];
    }
    return grads;
  });
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (autocast::any_enabled() && !tensors.empty()) {  // torch's cpu list: widest input type
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : tensors) ptrs.push_back(&t);
    if (auto ac = autocast::enter_promote(ptrs, autocast::kCpuList)) {
      return autograd::stack(ac.cast(tensors), dim);
    }
  }
  Tensor out = ops::stack(tensors, dim);
  if (!needs_grad(tensors)) return out;
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  const size_t n_in = tensors.size();
  record("StackBackward0", tensors, {out}, [d, n_in](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList grads(n_in);
    for (size_t i = 0; i < n_in; ++i) {
      if (n.needs(i)) grads[i] = autograd::select(g[0], d, static_cast<int64_t>(i));
    }
    return grads;
  });
  return out;
}

void copy_(const Tensor& dst, const Tensor& src, bool non_blocking) {
  check_inplace(dst);
  ops::copy_(dst, src, non_blocking);
  mark_dirty(dst);
  if (!needs_grad(dst, src)) return;
  const Shape src_sizes = src.sizes();
  const Device src_device = src.device();
  const ScalarType src_dtype = src.dtype();
  record_inplace("CopyBackwards", dst, {&src},
                 [=](FormulaNode& n, TensorList& g) -> TensorList {
                   TensorList grads(2);
                   if (n.needs(0)) grads[0] = zeros_like(g[0]);
                   if (n.needs(1) && is_floating_or_complex(src_dtype)) {
                     grads[1] = autograd::to(sum_to(g[0], src_sizes), src_device, src_dtype);
                   }
                   return grads;
                 });
}

void fill_(const Tensor& t, const Scalar& v) {
  check_inplace(t);
  ops::fill_(t, v);
  mark_dirty(t);
  if (!needs_grad(t)) return;
  record_inplace("FillBackward0", t, {}, [](FormulaNode&, TensorList& g) -> TensorList {
    return {zeros_like(g[0])};
  });
}

void fill_(const Tensor& t, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor "
              "with ", value.dim(), " dimensions.");
  check_inplace(t);
  if (value.is_cpu() && !t.is_cpu()) {
    // torch's fill_ of a device tensor from a CPU value: a fill with the
    // value's number (no overlap check, as every fill of a number)
    ops::fill_(t, dispatch(value.dtype(), [&](auto tag) {
                 using T = typename decltype(tag)::type;
                 const T x = *static_cast<const T*>(value.data_ptr());
                 if constexpr (std::is_same<T, bool>::value) {
                   return Scalar::from_bool(x);
                 } else if constexpr (std::is_integral<T>::value) {
                   return Scalar::from_int(static_cast<int64_t>(x));
                 } else if constexpr (std::is_same<T, double>::value) {
                   return Scalar::from_double(x);
                 } else {
                   return Scalar::from_double(static_cast<double>(static_cast<float>(x)));
                 }
               }));
  } else {
    ops::copy_(t, value.is_cpu() || value.device() == t.device()
                      ? value
                      : ops::to(value, t.device(), value.dtype()));
  }
  mark_dirty(t);
  if (!needs_grad(t, value)) return;
  const Device vd = value.device();
  const ScalarType vt = value.dtype();
  record_inplace("FillBackward1", t, {&value}, [vd, vt](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList grads(2);
    if (n.needs(0)) grads[0] = zeros_like(g[0]);
    if (n.needs(1)) grads[1] = autograd::to(sum_to(g[0], {}), vd, vt);
    return grads;
  });
}

void overwritten(const Tensor& t, const char* node_name) {
  mark_dirty(t);
  if (!needs_grad(t)) return;
  record_inplace(node_name, t, {}, [](FormulaNode&, TensorList& g) -> TensorList {
    return {zeros_like(g[0])};
  });
}

void zero_(const Tensor& t) {
  check_inplace(t);
  ops::zero_(t);
  mark_dirty(t);
  if (!needs_grad(t)) return;
  record_inplace("ZeroBackward0", t, {}, [](FormulaNode&, TensorList& g) -> TensorList {
    return {zeros_like(g[0])};
  });
}

}  // namespace ember::autograd
