// nn.functional's losses that are one fused autograd node (ember._C._nn):
// mse_loss, ctc_loss. (linear is bound by the linear-algebra bindings.)
#include "autograd/functions.hpp"
#include <pybind11/stl.h>

#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

autograd::Reduction reduction_arg(py::handle r) {
  if (PyUnicode_Check(r.ptr())) {
    if (PyUnicode_CompareWithASCIIString(r.ptr(), "mean") == 0) return autograd::Reduction::Mean;
    if (PyUnicode_CompareWithASCIIString(r.ptr(), "sum") == 0) return autograd::Reduction::Sum;
    if (PyUnicode_CompareWithASCIIString(r.ptr(), "none") == 0) return autograd::Reduction::None;
  }
  throw ValueError(detail::str(py::cast<std::string>(py::str(r)),
                               " is not a valid value for reduction"));
}

}  // namespace

void bind_nn_loss(py::module_& m) {
  py::module_ nn = py::hasattr(m, "_nn") ? py::reinterpret_borrow<py::module_>(m.attr("_nn"))
                                         : m.def_submodule("_nn", "ember.nn.functional's core");
  nn.def(
      "mse_loss",
      [](const Tensor& input, const Tensor& target, py::handle reduction) {
        return autograd::mse_loss(input, target, reduction_arg(reduction));
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
      "mean((input - target) ** 2) (or 'sum', 'none') as one autograd node.");
  nn.def(
      "ctc_loss",
      [](const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
         const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity) {
        py::gil_scoped_release nogil;
        return autograd::ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                  zero_infinity);
      },
      py::arg("log_probs"), py::arg("targets"), py::arg("input_lengths"),
      py::arg("target_lengths"), py::arg("blank") = 0, py::arg("zero_infinity") = false,
      "Per-sample CTC negative log-likelihoods of (T, N, C) log-probabilities (no reduction), "
      "one autograd node.");
}

}  // namespace ember::bindings
