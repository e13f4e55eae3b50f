// The optimisers' fused steps from Python (ember.optim calls these once per
// parameter group): lists of tensors in, parameters and states updated in
// place, versions bumped. The GIL is released for CPU updates.
#include <pybind11/stl.h>

#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/optim_step.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

std::vector<Tensor> tensors(py::handle seq, const char* what) {
  std::vector<Tensor> out;
  if (seq.is_none()) return out;
  PyObject* fast = PySequence_Fast(seq.ptr(), what);
  if (!fast) throw py::error_already_set();
  py::object guard = py::reinterpret_steal<py::object>(fast);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject** items = PySequence_Fast_ITEMS(fast);
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(tensor_arg(items[i], what));
  return out;
}

void bump(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) autograd::bump_version(t);
}

bool any_cpu(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) {
    if (t.is_cpu()) return true;
  }
  return false;
}

}  // namespace

void bind_autograd_optim(py::module_& m) {
  m.def(
      "_sgd_step",
      [](py::handle params, py::handle grads, py::handle bufs, std::vector<bool> first,
         double lr, double momentum, double dampening, double weight_decay, bool nesterov,
         bool maximize) {
        const auto p = tensors(params, "params"), g = tensors(grads, "grads"),
                   b = tensors(bufs, "momentum_buffers");
        const ops::SgdOptions o{lr, momentum, dampening, weight_decay, nesterov, maximize};
        if (any_cpu(p)) {
          py::gil_scoped_release nogil;
          ops::sgd_step(p, g, b, first, o);
        } else {
          ops::sgd_step(p, g, b, first, o);
        }
        bump(p);
        bump(b);
      },
      py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("first"),
      py::arg("lr"), py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"),
      py::arg("nesterov"), py::arg("maximize"));
  m.def(
      "_adam_step",
      [](py::handle params, py::handle grads, py::handle exp_avgs, py::handle exp_avg_sqs,
         py::handle max_sqs, std::vector<int64_t> steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        const auto p = tensors(params, "params"), g = tensors(grads, "grads"),
                   ea = tensors(exp_avgs, "exp_avgs"), es = tensors(exp_avg_sqs, "exp_avg_sqs"),
                   mx = tensors(max_sqs, "max_exp_avg_sqs");
        const ops::AdamOptions o{lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                                 decoupled};
        if (any_cpu(p)) {
          py::gil_scoped_release nogil;
          ops::adam_step(p, g, ea, es, mx, steps, o);
        } else {
          ops::adam_step(p, g, ea, es, mx, steps, o);
        }
        bump(p);
        bump(ea);
        bump(es);
        bump(mx);
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("max_exp_avg_sqs"), py::arg("steps"), py::arg("lr"), py::arg("beta1"),
      py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("amsgrad"),
      py::arg("maximize"), py::arg("decoupled"));
}

}  // namespace ember::bindings
