// gather / scatter_ (autograd/scatter.hpp): the formulas of gather, scatter
// and scatter-add, in terms of themselves (so create_graph works).
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/scatter.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

// The gradient of src from the output gradient g: g gathered at index, in
// src's shape (zeros outside index's corner when src is larger; summed to a
// number for a value).
Tensor src_grad(const Tensor& g, int64_t dim, const Tensor& index, const ops::IndexRule& rule,
                const Shape& src_sizes, bool src_is_value) {
  const ops::IndexRule r{rule.op, rule.wrap, rule.message};
  Tensor picked = autograd::gather(g, dim, index, r);
  if (src_is_value) return sum_to(picked, Shape{});
  if (picked.sizes() == src_sizes) return picked;
  Tensor full = zeros(src_sizes, g.dtype(), g.device());
  const Tensor corner = full.view_with(index.sizes(), full.strides(), full.storage_offset());
  ops::copy_(corner, picked);
  return full;
}

}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, const ops::IndexRule& rule,
              const Tensor& out) {
  if (out.defined()) check_out_no_grad("gather", {&self, &out});
  Tensor result = ops::gather(self, dim, index, rule, out);
  if (out.defined() || !needs_grad(self)) return result;
  const Shape sizes = self.sizes();
  const ScalarType dtype = self.dtype();
  const Device device = self.device();
  const ops::IndexRule r = rule;
  record("GatherBackward0", {&self}, {&result},
         [=](FormulaNode&, TensorList& g) -> TensorList {
           Tensor z = zeros(sizes, dtype, device);
           autograd::scatter_(z, dim, index, g[0], ops::ScatterReduce::Add, r);
           return {z};
         });
  return result;
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
              ops::ScatterReduce reduce, const ops::IndexRule& rule, bool src_is_value) {
  check_inplace(self);
  const bool grad = needs_grad(self, src);
  if (grad && reduce != ops::ScatterReduce::None && reduce != ops::ScatterReduce::Add) {
    throw NotImplementedError(detail::str(
        rule.op, ": the derivative of the multiplying / max / min scatter kernel is taken by "
                 "ember.scatter_reduce and Tensor.index_reduce, not by this primitive"));
  }
  ops::scatter_(self, dim, index, src, reduce, rule, src_is_value);
  mark_dirty(self);
  if (!grad) return;
  const Shape src_sizes = src.sizes();
  const ScalarType src_dtype = src.dtype();
  const ops::IndexRule r = rule;
  record_inplace(
      reduce == ops::ScatterReduce::Add ? "ScatterAddBackward0" : "ScatterBackward0", self,
      {&src}, [=](FormulaNode& n, TensorList& g) -> TensorList {
        TensorList grads(2);
        if (n.needs(0)) {
          if (reduce == ops::ScatterReduce::Add) {
            grads[0] = g[0];
          } else {
            grads[0] = autograd::clone(g[0]);
            const Tensor zero = zeros({}, g[0].dtype(), g[0].device());
            autograd::scatter_(grads[0], dim, index, zero, ops::ScatterReduce::None, r, true);
          }
        }
        if (n.needs(1) && (is_floating(src_dtype) || is_complex(src_dtype))) {
          grads[1] = src_grad(g[0], dim, index, r, src_sizes, src_is_value);
        }
        return grads;
      });
}

}  // namespace ember::autograd
