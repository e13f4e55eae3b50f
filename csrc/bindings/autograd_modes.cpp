// Autograd's modes from Python: anomaly detection (ember.autograd.set_detect_anomaly:
// the Python stack recorded with each node, the warning naming a failing node's
// forward) and saved-tensor hooks (ember.autograd.graph.saved_tensors_hooks:
// Python pack/unpack callables on the thread's stack).
#include <Python.h>

#include <string>

#include "autograd/anomaly_mode.hpp"
#include "autograd/saved_tensor_hooks.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

// A Python object owned from C++, released with the GIL (while the interpreter lives).
class OwnedPyObject {
 public:
  explicit OwnedPyObject(py::object o) : ptr_(o.release().ptr()) {}
  ~OwnedPyObject() {
    if (!interpreter_alive()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(ptr_);
    PyGILState_Release(g);
  }
  OwnedPyObject(const OwnedPyObject&) = delete;
  OwnedPyObject& operator=(const OwnedPyObject&) = delete;
  py::handle get() const noexcept { return ptr_; }

 private:
  PyObject* ptr_;
};

// ---- anomaly mode ---------------------------------------------------------------

std::string python_stack() {
  if (!interpreter_alive()) return {};
  py::gil_scoped_acquire gil;
  try {
    py::list frames = py::module_::import("traceback").attr("format_stack")();
    std::string out;
    for (py::handle f : frames) out += py::cast<std::string>(f);
    return out;
  } catch (py::error_already_set&) {
    return {};
  }
}

void warn_anomaly(const std::string& node_name, const std::string& trace) {
  if (!interpreter_alive()) return;
  py::gil_scoped_acquire gil;
  std::string msg = "Error detected in " + node_name + ". ";
  if (trace.empty()) {
    msg += "No forward pass information available. Enable detect anomaly during forward pass "
           "for more information.";
  } else {
    msg += "Traceback of forward call that caused the error:\n" + trace;
  }
  try {
    py::module_::import("warnings").attr("warn")(msg, py::handle(PyExc_UserWarning), 2);
  } catch (py::error_already_set&) {
    // -W error: the backward's own error is the one to see.
  }
}

// ---- saved-tensor hooks ---------------------------------------------------------

class PyPackedTensor final : public autograd::PackedTensor {
 public:
  PyPackedTensor(py::object packed, std::shared_ptr<OwnedPyObject> unpack_hook)
      : packed_(std::move(packed)), unpack_(std::move(unpack_hook)) {}
  Tensor unpack() override {
    py::gil_scoped_acquire gil;
    py::object r = unpack_->get()(packed_.get());
    if (!is_tensor(r)) {
      throw TypeError(detail::str(
          "Output of saved tensor unpack_hook expected to be a Tensor but got result of type ",
          py::cast<std::string>(py::type::of(r).attr("__name__"))));
    }
    return tensor_arg(r);
  }

 private:
  OwnedPyObject packed_;
  std::shared_ptr<OwnedPyObject> unpack_;
};

class PySavedTensorHooks final : public autograd::SavedTensorHooks {
 public:
  PySavedTensorHooks(py::object pack, py::object unpack)
      : pack_(std::make_shared<OwnedPyObject>(std::move(pack))),
        unpack_(std::make_shared<OwnedPyObject>(std::move(unpack))) {}
  std::shared_ptr<autograd::PackedTensor> pack(const Tensor& t) override {
    py::gil_scoped_acquire gil;
    py::object packed = pack_->get()(py::cast(t));
    return std::make_shared<PyPackedTensor>(std::move(packed), unpack_);
  }
  py::tuple callables() const {
    return py::make_tuple(py::reinterpret_borrow<py::object>(pack_->get()),
                          py::reinterpret_borrow<py::object>(unpack_->get()));
  }

 private:
  std::shared_ptr<OwnedPyObject> pack_;
  std::shared_ptr<OwnedPyObject> unpack_;
};

}  // namespace

void bind_autograd_modes(py::module_& m) {
  autograd::set_anomaly_trace_source(&python_stack);
  autograd::set_anomaly_reporter(&warn_anomaly);
  m.def(
      "_set_detect_anomaly",
      [](bool mode, bool check_nan) { autograd::AnomalyMode::set_enabled(mode, check_nan); },
      py::arg("mode"), py::arg("check_nan") = true);
  m.def("is_anomaly_enabled", &autograd::AnomalyMode::is_enabled);
  m.def("is_anomaly_check_nan_enabled", &autograd::AnomalyMode::should_check_nan);

  m.def(
      "_push_saved_tensors_hooks",
      [](py::object pack, py::object unpack) {
        autograd::push_saved_tensor_hooks(
            std::make_shared<PySavedTensorHooks>(std::move(pack), std::move(unpack)));
      },
      py::arg("pack_hook"), py::arg("unpack_hook"));
  m.def("_pop_saved_tensors_hooks", &autograd::pop_saved_tensor_hooks);
  m.def("_current_saved_tensors_hooks", []() -> py::object {
    auto hooks = autograd::current_saved_tensor_hooks();
    if (!hooks) return py::none();
    auto* py_hooks = dynamic_cast<PySavedTensorHooks*>(hooks.get());
    return py_hooks ? py::object(py_hooks->callables()) : py::object(py::none());
  });
}

}  // namespace ember::bindings
