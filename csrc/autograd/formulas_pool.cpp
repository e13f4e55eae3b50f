// Pooling nodes: MaxPool2DWithIndicesBackward0 (scatters the gradient to
// the saved argmax positions), AvgPool2DBackward0 and
// AdaptiveAvgPool2DBackward0 -- each one gathering kernel. Unbatched [C, H, W]
// input is pooled as one image. Not differentiable twice (RuntimeError under
// create_graph=True).
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "ops/nn/pool.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

Tensor batched(const Tensor& x, const char* op) {
  EMBER_CHECK(x.dim() == 3 || x.dim() == 4, op, "(): Expected 3D or 4D (batch mode) tensor "
              "with optional 0 dim batch size for input, but got: ", shape_str(x.sizes()));
  return x.dim() == 3 ? ember::unsqueeze(x, 0) : x;
}

// The result for x's batching: [C, OH, OW] for unbatched x.
Tensor unbatched_like(const Tensor& out4, const Tensor& x) {
  return x.dim() == 3 ? ember::squeeze(out4, std::vector<int64_t>{0}) : out4;
}

// The gradient as [N, C, OH, OW].
Tensor grad4(const Tensor& g) { return g.dim() == 3 ? ember::unsqueeze(g, 0) : g; }

}  // namespace

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const ops::Pool2dParams& p,
                                     bool return_indices) {
  const Tensor x4 = batched(x, "max_pool2d");
  auto [out4, ind4] = ops::max_pool2d(x4, p);
  Tensor out = unbatched_like(out4, x);
  Tensor ind = unbatched_like(ind4, x);
  if (needs_grad(x)) {
    auto node = record("MaxPool2DWithIndicesBackward0", {&x}, {&out},
                       [p](FormulaNode& n, TensorList& g) -> TensorList {
                         refuse_double_backward("max_pool2d");
                         const Tensor xi = n.saved(0);
                         const Tensor x4b = xi.dim() == 3 ? ember::unsqueeze(xi, 0) : xi;
                         const Tensor i4 = grad4(n.saved(1));
                         Tensor gi = ops::max_pool2d_backward(grad4(g[0]), x4b, i4, p);
                         return {ember::view(gi, xi.sizes())};
                       });
    node->save(x);
    node->save(ind);
  }
  return {out, return_indices ? ind : Tensor()};
}

Tensor avg_pool2d(const Tensor& x, const ops::Pool2dParams& p) {
  const Tensor x4 = batched(x, "avg_pool2d");
  Tensor out = unbatched_like(ops::avg_pool2d(x4, p), x);
  if (needs_grad(x)) {
    const Shape sizes = x4.sizes();
    const Shape in_sizes = x.sizes();
    const ScalarType dtype = x.dtype();
    const Device device = x.device();
    record("AvgPool2DBackward0", {&x}, {&out},
           [p, sizes, in_sizes, dtype, device](FormulaNode&, TensorList& g) -> TensorList {
             refuse_double_backward("avg_pool2d");
             // Only the input's geometry is needed: an empty tensor of its shape.
             const Tensor shape_of = ember::expand(
                 Tensor::empty({1, 1, 1, 1}, dtype, device), sizes);
             Tensor gi = ops::avg_pool2d_backward(grad4(g[0]), shape_of, p);
             return {ember::view(gi, in_sizes)};
           });
  }
  return out;
}

Tensor adaptive_avg_pool2d(const Tensor& x, int64_t oh, int64_t ow) {
  EMBER_CHECK(x.dim() == 3 || x.dim() == 4, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, "
              "but got ", shape_str(x.sizes()));
  const Tensor x4 = x.dim() == 3 ? ember::unsqueeze(x, 0) : x;
  Tensor out = unbatched_like(ops::adaptive_avg_pool2d(x4, oh, ow), x);
  if (needs_grad(x)) {
    const Shape sizes = x4.sizes();
    const Shape in_sizes = x.sizes();
    const ScalarType dtype = x.dtype();
    const Device device = x.device();
    record("AdaptiveAvgPool2DBackward0", {&x}, {&out},
           [sizes, in_sizes, dtype, device](FormulaNode&, TensorList& g) -> TensorList {
             refuse_double_backward("adaptive_avg_pool2d");
             const Tensor shape_of = ember::expand(
                 Tensor::empty({1, 1, 1, 1}, dtype, device), sizes);
             Tensor gi = ops::adaptive_avg_pool2d_backward(grad4(g[0]), shape_of);
             return {ember::view(gi, in_sizes)};
           });
  }
  return out;
}

}  // namespace ember::autograd
