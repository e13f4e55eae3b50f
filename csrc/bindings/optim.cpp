// The optimisers' fused steps from Python (ember.optim calls these once per
// parameter group): lists of tensors in, parameters and states updated in
// place, versions bumped. Non-contiguous tensors go through contiguous
// stand-ins. The GIL is released for CPU updates.
#include <pybind11/stl.h>

#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/optim/optim_step.hpp"
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

// Tensors the kernels write must be contiguous: non-contiguous ones are
// replaced by contiguous copies, written back after the step.
struct WriteBack {
  std::vector<std::pair<Tensor, Tensor>> pairs;  // (original, contiguous stand-in)
  void fix(std::vector<Tensor>& ts) {
    for (Tensor& t : ts) {
      if (t.is_contiguous()) continue;
      Tensor c = ops::contiguous(t);
      pairs.emplace_back(t, c);
      t = c;
    }
  }
  void finish() {
    for (auto& [orig, c] : pairs) ops::copy_(orig, c);
  }
};

// Read-only operands (gradients) only need contiguous values.
void make_contiguous(std::vector<Tensor>& ts) {
  for (Tensor& t : ts) {
    if (!t.is_contiguous()) t = ops::contiguous(t);
  }
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
        auto p = tensors(params, "params"), g = tensors(grads, "grads"),
             b = tensors(bufs, "momentum_buffers");
        const auto orig_p = p, orig_b = b;
        const ops::SgdOptions o{lr, momentum, dampening, weight_decay, nesterov, maximize};
        auto run = [&] {
          WriteBack wb;
          wb.fix(p);
          wb.fix(b);
          make_contiguous(g);
          ops::sgd_step(p, g, b, first, o);
          wb.finish();
        };
        if (any_cpu(p)) {
          py::gil_scoped_release nogil;
          run();
        } else {
          run();
        }
        bump(orig_p);
        bump(orig_b);
      },
      py::arg("params"), py::arg("grads"), py::arg("momentum_buffers"), py::arg("first"),
      py::arg("lr"), py::arg("momentum"), py::arg("dampening"), py::arg("weight_decay"),
      py::arg("nesterov"), py::arg("maximize"));
  m.def(
      "_adam_step",
      [](py::handle params, py::handle grads, py::handle exp_avgs, py::handle exp_avg_sqs,
         py::handle max_sqs, std::vector<int64_t> steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        auto p = tensors(params, "params"), g = tensors(grads, "grads"),
             ea = tensors(exp_avgs, "exp_avgs"), es = tensors(exp_avg_sqs, "exp_avg_sqs"),
             mx = tensors(max_sqs, "max_exp_avg_sqs");
        const auto orig_p = p, orig_ea = ea, orig_es = es, orig_mx = mx;
        const ops::AdamOptions o{lr, beta1, beta2, eps, weight_decay, amsgrad, maximize,
                                 decoupled};
        auto run = [&] {
          WriteBack wb;
          wb.fix(p);
          wb.fix(ea);
          wb.fix(es);
          wb.fix(mx);
          make_contiguous(g);
          ops::adam_step(p, g, ea, es, mx, steps, o);
          wb.finish();
        };
        if (any_cpu(p)) {
          py::gil_scoped_release nogil;
          run();
        } else {
          run();
        }
        bump(orig_p);
        bump(orig_ea);
        bump(orig_es);
        bump(orig_mx);
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"),
      py::arg("max_exp_avg_sqs"), py::arg("steps"), py::arg("lr"), py::arg("beta1"),
      py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"), py::arg("amsgrad"),
      py::arg("maximize"), py::arg("decoupled"));
}

}  // namespace ember::bindings
