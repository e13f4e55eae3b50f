// ember.autograd.Function from Python: the node that runs a Python
// backward(ctx, *grads). _C._record_function makes it the grad_fn of the
// outputs of Function.apply; the engine calls it with the GIL taken back.
#include <Python.h>

#include "autograd/dispatch.hpp"
#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

using autograd::TensorList;

// Owns Python objects: released under the GIL.
class PyObjectHolder {
 public:
  explicit PyObjectHolder(py::object o) : p_(o.release().ptr()) {}
  ~PyObjectHolder() {
    if (!p_ || !interpreter_alive()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(p_);
    PyGILState_Release(g);
  }
  PyObjectHolder(const PyObjectHolder&) = delete;
  PyObjectHolder& operator=(const PyObjectHolder&) = delete;
  py::handle get() const { return p_; }

 private:
  PyObject* p_;
};

class PyFunctionNode final : public autograd::Node {
 public:
  PyFunctionNode(std::string name, py::object backward, py::object ctx,
                 std::vector<size_t> positions, size_t n_args)
      : name_(std::move(name)),
        backward_(std::move(backward)),
        ctx_(std::move(ctx)),
        positions_(std::move(positions)),
        n_args_(n_args) {}

  TensorList apply(TensorList&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple args(grads.size() + 1);
    args[0] = ctx_.get();
    for (size_t i = 0; i < grads.size(); ++i) {
      args[i + 1] = grads[i].defined() ? py::cast(grads[i]) : py::none();
    }
    py::object r = py::reinterpret_borrow<py::object>(backward_.get())(*args);
    py::tuple res = PyTuple_Check(r.ptr()) ? py::reinterpret_borrow<py::tuple>(r)
                                           : py::make_tuple(r);
    if (res.size() != n_args_) {
      throw Error(detail::str("function ", name_, " returned an incorrect number of gradients "
                              "(expected ", n_args_, ", got ", res.size(), ")"));
    }
    TensorList out(positions_.size());
    for (size_t k = 0; k < positions_.size(); ++k) {
      py::handle g = res[positions_[k]];
      if (!g.is_none()) out[k] = tensor_arg(g, "a gradient returned by backward()");
    }
    return out;
  }
  std::string name() const override { return name_; }
  bool materialize_grads() const override {  // ctx.set_materialize_grads(False)
    py::gil_scoped_acquire gil;
    py::handle ctx = ctx_.get();
    PyObject* v = PyObject_GetAttrString(ctx.ptr(), "materialize_grads");
    if (!v) {
      PyErr_Clear();
      return true;
    }
    const bool yes = PyObject_IsTrue(v) != 0;
    Py_DECREF(v);
    return yes;
  }
  void release_variables() override {
    py::gil_scoped_acquire gil;
    py::handle ctx = ctx_.get();
    if (PyObject_HasAttrString(ctx.ptr(), "_free")) ctx.attr("_free")();
  }

 private:
  std::string name_;
  PyObjectHolder backward_;
  PyObjectHolder ctx_;
  std::vector<size_t> positions_;  // the argument index of each tensor input
  size_t n_args_;
};

}  // namespace

void bind_autograd_function(py::module_& m) {
  m.def(
      "_record_function",
      [](const std::string& name, py::object backward, py::object ctx, py::tuple args,
         py::tuple outputs, py::handle non_differentiable) -> bool {
        std::vector<Tensor> inputs;
        std::vector<size_t> positions;
        for (size_t i = 0; i < args.size(); ++i) {
          if (is_tensor(args[i])) {
            inputs.push_back(tensor_arg(args[i]));
            positions.push_back(i);
          }
        }
        if (!autograd::needs_grad(inputs)) return false;
        auto node = std::make_shared<PyFunctionNode>(name, std::move(backward), std::move(ctx),
                                                     std::move(positions), args.size());
        node->next_edges = autograd::collect_next_edges(inputs);
        for (py::handle o : outputs) {
          if (!is_tensor(o)) continue;
          const Tensor& t = tensor_arg(o);
          bool skip = !is_floating_or_complex(t.dtype());
          for (py::handle nd : non_differentiable) skip = skip || nd.is(o);
          if (skip) {
            node->add_input_metadata(t);  // keeps output numbering; gets no history
            continue;
          }
          autograd::set_history(t, node);
        }
        return true;
      },
      py::arg("name"), py::arg("backward"), py::arg("ctx"), py::arg("args"), py::arg("outputs"),
      py::arg("non_differentiable"));
}

}  // namespace ember::bindings
