// nn.functional's fused activations (ember._C._nn): hardswish, hardsigmoid,
// elu (elu/selu/celu), softplus, mish, leaky_relu, hardtanh, softshrink,
// hardshrink, log_sigmoid, threshold -- one elementwise pass forward and one
// backward each (autograd/formulas_activation.cpp). ember/nn/functional.py
// keeps torch's Python-level argument checks and the integer fallbacks.
#include "autograd/functions_activation.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

using ops::ActivationArgs;
using ops::ActivationOp;

Tensor act(ActivationOp op, const Tensor& x, ActivationArgs a, bool inplace) {
  return autograd::activation(op, x, a, Tensor(), inplace);
}

}  // namespace

void bind_nn_activation(py::module_& m) {
  py::module_ nn = py::hasattr(m, "_nn") ? py::reinterpret_borrow<py::module_>(m.attr("_nn"))
                                         : m.def_submodule("_nn", "ember.nn.functional's core");
  nn.def(
      "hardswish",
      [](const Tensor& x, bool inplace) { return act(ActivationOp::Hardswish, x, {}, inplace); },
      py::arg("input"), py::arg("inplace") = false, "x * relu6(x + 3) / 6, one pass.");
  nn.def(
      "hardsigmoid",
      [](const Tensor& x, bool inplace) { return act(ActivationOp::Hardsigmoid, x, {}, inplace); },
      py::arg("input"), py::arg("inplace") = false, "relu6(x + 3) / 6, one pass.");
  nn.def(
      "elu",
      [](const Tensor& x, double alpha, double scale, double input_scale, bool inplace) {
        return act(ActivationOp::Elu, x, {alpha, scale, input_scale}, inplace);
      },
      py::arg("input"), py::arg("alpha") = 1.0, py::arg("scale") = 1.0,
      py::arg("input_scale") = 1.0, py::arg("inplace") = false,
      "scale * x for x > 0, else scale * alpha * (exp(x * input_scale) - 1) (elu, selu, celu).");
  nn.def(
      "softplus",
      [](const Tensor& x, double beta, double threshold) {
        return act(ActivationOp::Softplus, x, {beta, threshold}, false);
      },
      py::arg("input"), py::arg("beta") = 1.0, py::arg("threshold") = 20.0,
      "log(1 + exp(beta * x)) / beta, x where beta * x > threshold.");
  nn.def(
      "mish",
      [](const Tensor& x, bool inplace) { return act(ActivationOp::Mish, x, {}, inplace); },
      py::arg("input"), py::arg("inplace") = false, "x * tanh(softplus(x)), one pass.");
  nn.def(
      "leaky_relu",
      [](const Tensor& x, double slope, bool inplace) {
        return act(ActivationOp::LeakyRelu, x, {slope}, inplace);
      },
      py::arg("input"), py::arg("negative_slope") = 0.01, py::arg("inplace") = false,
      "x for x > 0, else negative_slope * x.");
  nn.def(
      "hardtanh",
      [](const Tensor& x, double lo, double hi, bool inplace) {
        return act(ActivationOp::Hardtanh, x, {lo, hi}, inplace);
      },
      py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0,
      py::arg("inplace") = false, "clamp(x, min_val, max_val) with hardtanh's gradient.");
  nn.def(
      "softshrink",
      [](const Tensor& x, double lambd) {
        return act(ActivationOp::Softshrink, x, {lambd}, false);
      },
      py::arg("input"), py::arg("lambd") = 0.5, "x - lambd, x + lambd or 0.");
  nn.def(
      "hardshrink",
      [](const Tensor& x, double lambd) {
        return act(ActivationOp::Hardshrink, x, {lambd}, false);
      },
      py::arg("input"), py::arg("lambd") = 0.5, "x where |x| > lambd, else 0.");
  nn.def(
      "log_sigmoid",
      [](const Tensor& x) { return act(ActivationOp::LogSigmoid, x, {}, false); },
      py::arg("input"), "log(sigmoid(x)) without overflow, one pass.");
  nn.def(
      "threshold",
      [](const Tensor& x, double threshold, double value, bool inplace) {
        return act(ActivationOp::Threshold, x, {threshold, value}, inplace);
      },
      py::arg("input"), py::arg("threshold"), py::arg("value"), py::arg("inplace") = false,
      "x where x > threshold, else value.");
}

}  // namespace ember::bindings
