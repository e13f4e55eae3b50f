// The optimisers' fused steps from Python (ember.optim calls these once per
// parameter group): lists of tensors in, the update in autograd/optim.cpp
// (contiguous stand-ins, version bumps) and ops/optim. The GIL is released
// when a parameter is on the CPU.
#include <pybind11/stl.h>

#include "autograd/optim.hpp"
#include "bindings/tensor_common.hpp"

namespace ember::bindings {

namespace {

bool any_cpu(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) {
    if (t.is_cpu()) return true;
  }
  return false;
}

}  // namespace

void bind_optim(py::module_& m) {
  m.def(
      "_sgd_step",
      [](py::handle params, py::handle grads, py::handle bufs, std::vector<bool> first,
         double lr, double momentum, double dampening, double weight_decay, bool nesterov,
         bool maximize) {
        auto p = tensor_list_arg(params, "params"), g = tensor_list_arg(grads, "grads"),
             b = tensor_list_arg(bufs, "momentum_buffers");
        const ops::SgdOptions o{lr, momentum, dampening, weight_decay, nesterov, maximize};
        maybe_nogil(any_cpu(p), [&] {
          autograd::sgd_step(std::move(p), std::move(g), std::move(b), first, o);
        });
      },
      py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("first"),
      py::arg("lr"), py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"),
      py::arg("nesterov"), py::arg("maximize"));
  m.def(
      "_adam_step",
      [](py::handle params, py::handle grads, py::handle exp_avgs, py::handle exp_avg_sqs,
         py::handle max_sqs, std::vector<int64_t> steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        auto p = tensor_list_arg(params, "params"), g = tensor_list_arg(grads, "grads"),
             ea = tensor_list_arg(exp_avgs, "exp_avgs"),
             es = tensor_list_arg(exp_avg_sqs, "exp_avg_sqs"),
             mx = tensor_list_arg(max_sqs, "max_exp_avg_sqs");
        const ops::AdamOptions o{lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                                 decoupled};
        maybe_nogil(any_cpu(p), [&] {
          autograd::adam_step(std::move(p), std::move(g), std::move(ea), std::move(es),
                              std::move(mx), steps, o);
        });
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("max_exp_avg_sqs"), py::arg("steps"), py::arg("lr"), py::arg("beta1"),
      py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("amsgrad"),
      py::arg("maximize"), py::arg("decoupled"));
}

}  // namespace ember::bindings
