// batch_norm and layer_norm as one node each, with fused backward kernels
// (ops/norm.hpp). The nodes save the contiguous input, the statistics the
// forward used (mean and 1/std per channel or row, in float32 -- float64 for
// float64 inputs) and the weight.
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy.hpp"
#include "ops/norm.hpp"
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

void no_double_backward(const char* op) {
  EMBER_CHECK(!GradMode::is_enabled(), op,
              ": double backward (backward with create_graph=True through ", op,
              ") is not supported by ember; compute the normalisation from elementary ops if "
              "you need second derivatives");
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
      [training, ws, bs](FormulaNode& n, TensorList& g) -> TensorList {
        no_double_backward("batch_norm");
        const ops::NormGrads r =
            ops::batch_norm_backward(g[0], n.saved(0), n.saved(1), n.saved(2), n.saved(3),
                                     training, n.needs(0), n.needs(1) && ws.defined,
                                     n.needs(2) && bs.defined);
        return {r.input, ws.grad(r.weight), bs.grad(r.bias)};
      });
  node->save(f.x);
  node->save(f.mean);
  node->save(f.invstd);
  node->save(weight);
  return f.out;
}

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const ops::LayerNormForward f = ops::layer_norm_forward(input, normalized_shape, weight, bias, eps);
  if (!needs_grad(input, weight, bias)) return f.out;
  const ParamSpec ws = ParamSpec::of(weight), bs = ParamSpec::of(bias);
  const int64_t N = numel_of(normalized_shape);
  auto node = record(
      "NativeLayerNormBackward0", {&input, &weight, &bias}, {&f.out},
      [N, ws, bs](FormulaNode& n, TensorList& g) -> TensorList {
        no_double_backward("layer_norm");
        const ops::NormGrads r = ops::layer_norm_backward(
            g[0], n.saved(0), n.saved(1), n.saved(2), n.saved(3), N, n.needs(0),
            n.needs(1) && ws.defined, n.needs(2) && bs.defined);
        Tensor gi = r.input;
        return {gi, ws.grad(r.weight), bs.grad(r.bias)};
      });
  node->save(f.x);
  node->save(f.mean);
  node->save(f.rstd);
  node->save(weight);
  return f.out;
}

}  // namespace ember::autograd
