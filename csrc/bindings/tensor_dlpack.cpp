// DLPack 1.x: __dlpack__ / __dlpack_device__ and ember.from_dlpack, with
// versioned capsules ("dltensor_versioned") and the legacy ones ("dltensor").
// The ABI structs and the tensor conversions are in tensor/dlpack.hpp. On the
// GPU the `stream` protocol is honoured by ordering streams with an event,
// never by waiting on the host.
#include <Python.h>

#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "tensor/dlpack.hpp"

namespace ember::bindings {

namespace {


constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kLegacyName = "dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";

// Destructor of the capsules ember produces: frees the managed tensor unless a
// consumer took it (and renamed the capsule).
void capsule_destructor(PyObject* cap) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (PyCapsule_IsValid(cap, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersionedName));
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(cap, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacyName));
    if (m && m->deleter) m->deleter(m);
  }
  PyErr_Restore(type, value, tb);
}

template <typename M>
void call_deleter_with_gil(M* m) {
  if (!m->deleter || !interpreter_alive()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  m->deleter(m);
  PyGILState_Release(g);
}

Tensor tensor_from_capsule(py::handle cap) {
  PyObject* c = cap.ptr();
  if (PyCapsule_IsValid(c, kVersionedName)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, kVersionedName));
    if (m->version.major != dlpack::kMajor) {
      throw py::buffer_error(detail::str("DLPack version ", m->version.major, ".",
                                         m->version.minor, " is not supported; ember reads "
                                         "version 1.x"));
    }
#if EMBER_WITH_CUDA
    if (m->dl_tensor.device.device_type == kDLCUDA) {
      cuda::check_device_index(m->dl_tensor.device.device_id);
    }
#endif
    Tensor t = dlpack::from_dltensor(m->dl_tensor, [m] { call_deleter_with_gil(m); });
    PyCapsule_SetName(c, kUsedVersionedName);
    return t;
  }
  if (PyCapsule_IsValid(c, kLegacyName)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kLegacyName));
#if EMBER_WITH_CUDA
    if (m->dl_tensor.device.device_type == kDLCUDA) {
      cuda::check_device_index(m->dl_tensor.device.device_id);
    }
#endif
    Tensor t = dlpack::from_dltensor(m->dl_tensor, [m] { call_deleter_with_gil(m); });
    PyCapsule_SetName(c, kUsedLegacyName);
    return t;
  }
  throw ValueError(
      "from_dlpack: the capsule is not an unconsumed DLPack capsule ('dltensor' or "
      "'dltensor_versioned'); a capsule can be consumed only once");
}

py::object dlpack_export(const Tensor& self, py::handle stream, py::handle max_version,
                         py::handle dl_device, py::handle copy) {
  Tensor t = self;
  bool copied = false;
  const bool no_copy = !copy.is_none() && !py::cast<bool>(copy);
  if (!dl_device.is_none()) {
    const auto dev = py::cast<py::tuple>(dl_device);
    const int type = py::cast<int>(dev[0]), id = py::cast<int>(dev[1]);
    const DLDevice mine = dlpack::to_dl_device(t);
    if (type != mine.device_type || id != mine.device_id) {
      if (type == kDLCPU && !no_copy) {
        py::gil_scoped_release nogil;
        t = ops::to(t, kCpu, t.dtype(), false, true);
        copied = true;
      } else {
        throw py::buffer_error(detail::str("__dlpack__: cannot export a ", t.device().str(),
                                           " tensor to DLPack device (", type, ", ", id, ")",
                                           no_copy ? " without a copy (copy=False)" : ""));
      }
    }
  }
  if (!copy.is_none() && py::cast<bool>(copy) && !copied) {
    py::gil_scoped_release nogil;
    t = ops::clone(t);
    copied = true;
  }
#if EMBER_WITH_CUDA
  if (self.is_cuda() && t.is_cuda()) {
    // The consumer's stream waits for ember's current stream on the GPU.
    int64_t s = stream.is_none() ? 1 : py::cast<int64_t>(stream);
    EMBER_CHECK_VALUE(s != 0, "__dlpack__: stream=0 is ambiguous for CUDA and not allowed by the "
                              "DLPack protocol; pass 1 for the legacy default stream");
    if (s != -1) {
      const int dev = t.device().index;
      order_streams(dev, protocol_stream(dev), s);
    }
  }
#else
  (void)stream;
#endif
  const bool versioned =
      !max_version.is_none() && py::cast<int>(py::cast<py::tuple>(max_version)[0]) >= 1;
  if (versioned) {
    DLManagedTensorVersioned* m = dlpack::to_versioned(t, copied);
    PyObject* cap = PyCapsule_New(m, kVersionedName, capsule_destructor);
    if (!cap) {
      m->deleter(m);
      throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(cap);
  }
  DLManagedTensor* m = dlpack::to_legacy(t);
  PyObject* cap = PyCapsule_New(m, kLegacyName, capsule_destructor);
  if (!cap) {
    m->deleter(m);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

}  // namespace

Tensor tensor_from_dlpack(py::handle obj) {
  if (PyCapsule_CheckExact(obj.ptr())) return tensor_from_capsule(obj);
  if (!PyObject_HasAttrString(obj.ptr(), "__dlpack__")) {
    throw TypeError(detail::str("from_dlpack expects an object with __dlpack__ or a DLPack "
                                "capsule, got ", type_name(obj)));
  }
  py::object stream = py::none();
  if (PyObject_HasAttrString(obj.ptr(), "__dlpack_device__")) {
    py::tuple dev = obj.attr("__dlpack_device__")();
    const int type = py::cast<int>(dev[0]);
    if (type == kDLCUDA) {
#if EMBER_WITH_CUDA
      const int id = py::cast<int>(dev[1]);
      cuda::check_device_index(id);
      stream = py::int_(protocol_stream(id));
#else
      throw Error("ember was built without CUDA support: CUDA DLPack tensors cannot be imported");
#endif
    }
  }
  py::object cap;
  try {
    cap = obj.attr("__dlpack__")(py::arg("stream") = stream,
                                 py::arg("max_version") = py::make_tuple(dlpack::kMajor,
                                                                         dlpack::kMinor));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    cap = obj.attr("__dlpack__")(py::arg("stream") = stream);  // a pre-1.0 producer
  }
  return tensor_from_capsule(cap);
}

void bind_tensor_dlpack(py::class_<Tensor>& cls, py::module_& m) {
  cls.def("__dlpack__", &dlpack_export, py::kw_only(), py::arg("stream") = py::none(),
          py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
          py::arg("copy") = py::none(),
          "Exports the tensor as a DLPack capsule (versioned when max_version >= (1, 0)). For "
          "CUDA tensors the consumer's `stream` waits on ember's current stream on the GPU.");
  cls.def("__dlpack_device__", [](const Tensor& t) {
    const DLDevice d = dlpack::to_dl_device(t);
    return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
  });
  m.def("from_dlpack", &tensor_from_dlpack, py::arg("ext_tensor"),
        "A tensor sharing the memory of a DLPack producer (an object with __dlpack__, or a "
        "capsule). The producer orders its work before ember's current stream on the GPU.");
}

}  // namespace ember::bindings
