// Advanced indexing: index (a gather) and index_put_ (a scatter). The
// gradient of a gather is a scatter-add of the gradient into zeros (indices
// may repeat); the gradient of index_put_ is the gradient with the written
// places zeroed (or kept, with accumulate) for self, and the gradient
// gathered at those places, summed to the shape of values, for values.
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "ops/index/index.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  Tensor out = ops::index(self, indices);
  if (!needs_grad(self)) return out;
  const Shape sizes = self.sizes();
  const ScalarType dtype = self.dtype();
  const Device device = self.device();
  record("IndexBackward0", {&self}, {&out},
         [=](FormulaNode&, TensorList& g) -> TensorList {
           Tensor z = zeros(sizes, dtype, device);
           autograd::index_put_(z, indices, g[0], /*accumulate=*/true);
           return {z};
         });
  return out;
}

void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate) {
  check_inplace(self);
  ops::index_put_(self, indices, values, accumulate);
  mark_dirty(self);
  if (!needs_grad(self, values)) return;
  const Shape vsizes = values.sizes();
  const ScalarType vtype = values.dtype();
  const Device vdevice = values.device();
  record_inplace("IndexPutBackward0", self, {&values},
                 [=](FormulaNode& n, TensorList& g) -> TensorList {
                   TensorList grads(2);
                   if (n.needs(0)) {
                     if (accumulate) {
                       grads[0] = g[0];
                     } else {
                       grads[0] = autograd::clone(g[0]);
                       Tensor zero = zeros({}, g[0].dtype(), g[0].device());
                       autograd::index_put_(grads[0], indices, zero, false);
                     }
                   }
                   if (n.needs(1) && is_floating_or_complex(vtype)) {
                     // values may have extra leading 1s that the indexed shape lacks.
                     Shape trimmed = vsizes;
                     while (!trimmed.empty() && trimmed.front() == 1 &&
                            trimmed.size() > static_cast<size_t>(g[0].dim())) {
                       trimmed.erase(trimmed.begin());
                     }
                     Tensor r = sum_to(autograd::index(g[0], indices), trimmed);
                     if (trimmed.size() != vsizes.size()) r = autograd::reshape(r, vsizes);
                     grads[1] = autograd::to(r, vdevice, vtype);
                   }
                   return grads;
                 });
}

}  // namespace ember::autograd
