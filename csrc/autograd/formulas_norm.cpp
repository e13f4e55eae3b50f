// batch_norm and layer_norm as one node each, with fused backward kernels
// (ops/nn/norm.hpp). The nodes save the input, the statistics the forward used
// (mean and 1/std per channel or row, in float32 -- float64 for float64
// inputs) and the weight. Backward with create_graph=True recomputes the
// statistics from differentiable ops instead, so second derivatives work.
#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "ops/nn/group_norm.hpp"
#include "ops/nn/norm.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

// Where a parameter's gradient must land: its dtype and shape.
struct ParamSpec {
  bool defined = false;
  ScalarType dtype = ScalarType::Float32;
  Shape sizes;
  static ParamSpec of(const Tensor& t) {
    ParamSpec s;
    if (t.defined()) {
      s.defined = true;
      s.dtype = t.dtype();
      s.sizes = t.sizes();
    }
    return s;
  }
  Tensor grad(const Tensor& g_acc) const {
    if (!defined || !g_acc.defined()) return Tensor();
    const Tensor g = ops::to(g_acc, g_acc.device(), dtype);
    return g.sizes() == sizes ? g : ops::reshape(g, sizes);
  }
};

Tensor mean_keep(const Tensor& t, const std::vector<int64_t>& dims) {
  return autograd::reduce(ops::ReduceOp::Mean, t, dims, true);
}

Tensor sum_drop(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : autograd::reduce(ops::ReduceOp::Sum, t, dims, false);
}

// A gradient with history in the parameter's dtype and shape.
Tensor param_grad_graph(const ParamSpec& p, const Tensor& g) {
  if (!p.defined || !g.defined()) return Tensor();
  Tensor r = g.dtype() == p.dtype ? g : autograd::to(g, g.device(), p.dtype);
  return r.sizes() == p.sizes ? r : autograd::reshape(r, p.sizes);
}

// The backward of a normalisation from differentiable ops, for backward with
// create_graph=True (double backward): the statistics are recomputed with
// history. stat_dims: the dims the statistics reduce; param_dims: the dims
// summed for the weight/bias gradients; w: the weight broadcastable to x (or
// undefined). With mean/invstd defined (batch_norm in evaluation), those
// constants are used instead of the batch's statistics.
struct Composite {
  Tensor dx, dw, db;
};
Composite norm_backward_graph(const Tensor& g, const Tensor& x, const Tensor& w,
                              const std::vector<int64_t>& stat_dims,
                              const std::vector<int64_t>& param_dims, double eps,
                              const Tensor& mean, const Tensor& invstd) {
  Composite r;
  const Tensor gw = w.defined() ? autograd::mul(g, w) : g;
  Tensor xhat;
  if (mean.defined()) {
    xhat = autograd::mul(autograd::sub(x, mean), invstd);
    r.dx = autograd::mul(gw, invstd);
  } else {
    const Tensor xc = autograd::sub(x, mean_keep(x, stat_dims));
    const Tensor var = mean_keep(autograd::mul(xc, xc), stat_dims);
    const Tensor is = autograd::pow(autograd::add(var, ops::Operand(eps)), ops::Operand(-0.5));
    xhat = autograd::mul(xc, is);
    const Tensor inner = autograd::sub(autograd::sub(gw, mean_keep(gw, stat_dims)),
                                       autograd::mul(xhat, mean_keep(autograd::mul(gw, xhat),
                                                                     stat_dims)));
    r.dx = autograd::mul(is, inner);
  }
  r.dw = sum_drop(autograd::mul(g, xhat), param_dims);
  r.db = sum_drop(g, param_dims);
  return r;
}

// (N, C, *) -> the dims other than 1, and the shape [1, C, 1, ...].
std::vector<int64_t> all_but_channel(int64_t ndim) {
  std::vector<int64_t> d{0};
  for (int64_t i = 2; i < ndim; ++i) d.push_back(i);
  return d;
}
Shape channel_shape(int64_t ndim, int64_t C) {
  Shape s(static_cast<size_t>(ndim), 1);
  s[1] = C;
  return s;
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  const ops::BatchNormForward f = ops::batch_norm_forward(input, running_mean, running_var, weight,
                                                          bias, training, momentum, eps);
  if (training && input.numel() > 0) {
    if (running_mean.defined()) mark_dirty(running_mean);
    if (running_var.defined()) mark_dirty(running_var);
  }
  if (!needs_grad(input, weight, bias) || !is_floating(input.dtype())) return f.out;
  const ParamSpec ws = ParamSpec::of(weight), bs = ParamSpec::of(bias);
  auto node = record(
      "NativeBatchNormBackward0", {&input, &weight, &bias}, {&f.out},
      [training, eps, ws, bs](FormulaNode& n, TensorList& g) -> TensorList {
        const Tensor x = n.saved(0), w = n.saved(3);
        if (GradMode::is_enabled()) {  // create_graph: differentiable ops
          const int64_t nd = x.dim(), C = x.size(1);
          const Shape cs = channel_shape(nd, C);
          const Tensor wb = w.defined() ? autograd::reshape(w, cs) : Tensor();
          const Tensor m = training ? Tensor() : ops::reshape(n.saved(1), cs);
          const Tensor is = training ? Tensor() : ops::reshape(n.saved(2), cs);
          const std::vector<int64_t> dims = all_but_channel(nd);
          const Composite r = norm_backward_graph(g[0], x, wb, dims, dims, eps, m, is);
          return {n.needs(0) ? r.dx : Tensor(), n.needs(1) ? param_grad_graph(ws, r.dw) : Tensor(),
                  n.needs(2) ? param_grad_graph(bs, r.db) : Tensor()};
        }
        const ops::NormGrads r = ops::batch_norm_backward(
            g[0], ops::contiguous(x), n.saved(1), n.saved(2), w, training, n.needs(0),
            n.needs(1) && ws.defined, n.needs(2) && bs.defined);
        return {r.input, ws.grad(r.weight), bs.grad(r.bias)};
      });
  node->save(input);
  node->save(f.mean);
  node->save(f.invstd);
  node->save(weight);
  return f.out;
}

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  // torch's CUDA autocast list: float32
  EMBER_AUTOCAST(Float32, kCudaList, input,
                 return autograd::layer_norm(ac.cast(input), normalized_shape, ac.cast(weight),
                                             ac.cast(bias), eps));
  const ops::LayerNormForward f = ops::layer_norm_forward(input, normalized_shape, weight, bias, eps);
  if (!needs_grad(input, weight, bias)) return f.out;
  const ParamSpec ws = ParamSpec::of(weight), bs = ParamSpec::of(bias);
  const int64_t N = numel_of(normalized_shape);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  auto node = record(
      "NativeLayerNormBackward0", {&input, &weight, &bias}, {&f.out},
      [N, k, eps, ws, bs](FormulaNode& n, TensorList& g) -> TensorList {
        const Tensor x = n.saved(0), w = n.saved(3);
        if (GradMode::is_enabled()) {  // create_graph: differentiable ops
          std::vector<int64_t> stat_dims, lead_dims;
          for (int64_t d = 0; d < x.dim(); ++d) (d < x.dim() - k ? lead_dims : stat_dims).push_back(d);
          const Composite r =
              norm_backward_graph(g[0], x, w, stat_dims, lead_dims, eps, Tensor(), Tensor());
          return {n.needs(0) ? r.dx : Tensor(), n.needs(1) ? param_grad_graph(ws, r.dw) : Tensor(),
                  n.needs(2) ? param_grad_graph(bs, r.db) : Tensor()};
        }
        const ops::NormGrads r = ops::layer_norm_backward(
            g[0], ops::contiguous(x), n.saved(1), n.saved(2), w, N, n.needs(0),
            n.needs(1) && ws.defined, n.needs(2) && bs.defined);
        return {r.input, ws.grad(r.weight), bs.grad(r.bias)};
      });
  node->save(input);
  node->save(f.mean);
  node->save(f.rstd);
  node->save(weight);
  return f.out;
}

Tensor group_norm(const Tensor& input, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  // torch's CUDA autocast list: float32
  EMBER_AUTOCAST(Float32, kCudaList, input,
                 return autograd::group_norm(ac.cast(input), groups, ac.cast(weight),
                                             ac.cast(bias), eps));
  const ops::GroupNormForward f = ops::group_norm_forward(input, groups, weight, bias, eps);
  if (!needs_grad(input, weight, bias)) return f.out;
  const ParamSpec ws = ParamSpec::of(weight), bs = ParamSpec::of(bias);
  auto node = record(
      "NativeGroupNormBackward0", {&input, &weight, &bias}, {&f.out},
      [groups, eps, ws, bs](FormulaNode& n, TensorList& g) -> TensorList {
        const Tensor x = n.saved(0), w = n.saved(3);
        if (GradMode::is_enabled()) {  // create_graph: differentiable ops on (N, G, D, S)
          const int64_t N = x.size(0), C = x.size(1);
          const int64_t S = N * C == 0 ? 0 : x.numel() / (N * C);
          const Shape s4{N, groups, C / groups, S};
          const Tensor x4 = autograd::reshape(x, s4);
          const Tensor g4 = autograd::reshape(g[0], s4);
          const Tensor w4 = w.defined() ? autograd::reshape(w, Shape{1, groups, C / groups, 1})
                                        : Tensor();
          const Composite r = norm_backward_graph(g4, x4, w4, {2, 3}, {0, 3}, eps, Tensor(),
                                                  Tensor());
          return {n.needs(0) ? autograd::reshape(r.dx, x.sizes()) : Tensor(),
                  n.needs(1) ? param_grad_graph(ws, r.dw) : Tensor(),
                  n.needs(2) ? param_grad_graph(bs, r.db) : Tensor()};
        }
        const ops::NormGrads r = ops::group_norm_backward(
            g[0], ops::contiguous(x), n.saved(1), n.saved(2), w, groups, n.needs(0),
            n.needs(1) && ws.defined, n.needs(2) && bs.defined);
        return {r.input, ws.grad(r.weight), bs.grad(r.bias)};
      });
  node->save(input);
  node->save(f.mean);
  node->save(f.rstd);
  node->save(weight);
  return f.out;
}

}  // namespace ember::autograd
