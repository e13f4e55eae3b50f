// Argument parsing shared by the tensor bindings, and ember.Size.
#include <Python.h>

#include <string>

#include "bindings/tensor_common.hpp"
#include "autograd/meta.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

PyTypeObject* g_size_type = nullptr;

PyObject* size_repr(PyObject* self) {
  std::string out = "ember.Size([";
  const Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    if (i) out += ", ";
    out += PyUnicode_AsUTF8(r);
    Py_DECREF(r);
  }
  out += "])";
  return PyUnicode_FromStringAndSize(out.data(), static_cast<Py_ssize_t>(out.size()));
}

PyObject* size_numel(PyObject* self, PyObject*) {
  long long n = 1;
  const Py_ssize_t k = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < k; ++i) {
    const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
    if (v == -1 && PyErr_Occurred()) return nullptr;
    n *= v;
  }
  return PyLong_FromLongLong(n);
}

PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, "The number of elements a tensor of this shape holds."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot size_slots[] = {
    {Py_tp_repr, reinterpret_cast<void*>(size_repr)},
    {Py_tp_methods, size_methods},
    {Py_tp_doc, const_cast<char*>("A tensor's shape, like torch.Size: a tuple of ints.")},
    {0, nullptr}};

PyType_Spec size_spec = {"ember.Size", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                         size_slots};

[[noreturn]] void overflow(const char* fn, const char* arg) {
  PyErr_Clear();
  throw Error(detail::str(fn, "(): argument '", arg,
                          "' does not fit in a 64-bit integer (Overflow when unpacking long)"));
}

}  // namespace

void init_size_type(py::module_& m) {
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyTuple_Type));
  PyObject* type = PyType_FromSpecWithBases(&size_spec, bases);
  Py_XDECREF(bases);
  if (!type) throw py::error_already_set();
  g_size_type = reinterpret_cast<PyTypeObject*>(type);  // kept for the module's lifetime
  m.attr("Size") = py::handle(type);
}

std::string type_name(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

std::vector<Tensor> tensor_list_arg(py::handle seq, const char* what) {
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

py::object size_to_py(const Shape& s) {
  const auto n = static_cast<Py_ssize_t>(s.size());
  PyObject* t = g_size_type->tp_alloc(g_size_type, n);
  if (!t) throw py::error_already_set();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(s[i]);
    if (!v) {
      Py_DECREF(t);
      throw py::error_already_set();
    }
    PyTuple_SET_ITEM(t, i, v);
  }
  return py::reinterpret_steal<py::object>(t);
}

py::tuple ints_to_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    PyTuple_SET_ITEM(t.ptr(), i, PyLong_FromLongLong(s[i]));
  }
  return t;
}

int64_t int_arg(py::handle obj, const char* fn, const char* arg) {
  PyObject* p = obj.ptr();
  if (PyLong_Check(p) && !PyBool_Check(p)) {
    int overflowed = 0;
    const long long v = PyLong_AsLongLongAndOverflow(p, &overflowed);
    if (overflowed) overflow(fn, arg);
    return v;
  }
  if (!PyBool_Check(p) && !PyFloat_Check(p) && PyIndex_Check(p)) {
    // NumPy integers and one-element integer tensors.
    PyObject* i = PyNumber_Index(p);
    if (!i) throw py::error_already_set();
    int overflowed = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i, &overflowed);
    Py_DECREF(i);
    if (overflowed) overflow(fn, arg);
    return v;
  }
  throw TypeError(detail::str(fn, "(): argument '", arg, "' must be int, not ", type_name(obj)));
}

Shape int_list_arg(py::handle obj, const char* fn, const char* arg) {
  PyObject* p = obj.ptr();
  if (!PyTuple_Check(p) && !PyList_Check(p)) {
    throw TypeError(detail::str(fn, "(): argument '", arg, "' must be tuple of ints, not ",
                                type_name(obj)));
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(p);
  PyObject** items = PySequence_Fast_ITEMS(p);
  Shape out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = items[i];
    if (PyLong_Check(v) && !PyBool_Check(v)) {
      int overflowed = 0;
      out[i] = PyLong_AsLongLongAndOverflow(v, &overflowed);
      if (overflowed) overflow(fn, arg);
    } else if (!PyBool_Check(v) && !PyFloat_Check(v) && PyIndex_Check(v)) {
      out[i] = int_arg(v, fn, arg);
    } else {
      throw TypeError(detail::str(fn, "(): argument '", arg,
                                  "' must be tuple of ints, but found element of type ",
                                  type_name(v), " at pos ", i));
    }
  }
  return out;
}

Shape sizes_from_args(const py::args& args, const char* fn, const char* arg) {
  if (args.size() == 1) {
    PyObject* a = PyTuple_GET_ITEM(args.ptr(), 0);
    if (PyTuple_Check(a) || PyList_Check(a)) return int_list_arg(a, fn, arg);
  }
  return int_list_arg(args, fn, arg);
}

bool is_scalar_like(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || PyComplex_Check(p)) return true;
  if (is_tensor(obj)) return tensor_arg(obj).numel() == 1;
  // NumPy scalars (np.float32(1), np.int64(2), np.bool_(True)).
  PyTypeObject* t = Py_TYPE(p);
  const char* name = t->tp_name;
  return std::string(name).rfind("numpy.", 0) == 0 && !PyObject_HasAttrString(p, "__len__") &&
         (PyIndex_Check(p) || PyNumber_Check(p));
}

void warn_if_discarding_imag(ScalarType from, ScalarType to) {
  if (!is_complex(from) || is_complex(to)) return;
  if (PyErr_WarnEx(PyExc_UserWarning,
                   "Casting complex values to real discards the imaginary part", 1) < 0) {
    throw py::error_already_set();
  }
}

Scalar complex_scalar(PyObject* p) {
  const Py_complex c = PyComplex_AsCComplex(p);  // __complex__ for NumPy's complex64
  if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return Scalar::from_complex(c.real, c.imag);
}

Scalar scalar_arg(py::handle obj, const char* fn, const char* arg) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) return Scalar::from_bool(p == Py_True);
  if (PyLong_Check(p)) {
    int overflowed = 0;
    const long long v = PyLong_AsLongLongAndOverflow(p, &overflowed);
    if (overflowed) overflow(fn, arg);
    return Scalar::from_int(v);
  }
  if (PyFloat_Check(p)) return Scalar::from_double(PyFloat_AS_DOUBLE(p));
  if (is_tensor(obj)) {
    const Tensor& t = tensor_arg(obj);
    if (t.numel() != 1) {
      throw Error(detail::str("a Tensor with ", t.numel(),
                              " elements cannot be converted to Scalar"));
    }
    return scalar_arg(tensor_item(t), fn, arg);
  }
  if (PyComplex_Check(p)) return complex_scalar(p);
  const std::string name = Py_TYPE(p)->tp_name;
  if (name == "numpy.bool" || name == "numpy.bool_") {
    return Scalar::from_bool(PyObject_IsTrue(p) == 1);
  }
  if (name.rfind("numpy.complex", 0) == 0) return complex_scalar(p);  // numpy.complex64 ...
  if (name.rfind("numpy.", 0) == 0) {
    if (PyIndex_Check(p)) return Scalar::from_int(int_arg(obj, fn, arg));
    if (PyNumber_Check(p) && !PyObject_HasAttrString(p, "__len__")) {
      const double d = PyFloat_AsDouble(p);
      if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      return Scalar::from_double(d);
    }
  }
  throw TypeError(detail::str(fn, "(): argument '", arg, "' must be a Number, not ",
                              type_name(obj)));
}

Device device_spec(py::handle obj) {
  PyObject* p = obj.ptr();
  if (p == Py_None) return default_device();  // ember.set_default_device, `with device(...)`
  if (PyUnicode_Check(p)) {  // the common spellings without parsing
    if (PyUnicode_CompareWithASCIIString(p, "cuda") == 0) return Device(DeviceType::CUDA);
    if (PyUnicode_CompareWithASCIIString(p, "cpu") == 0) return Device(DeviceType::CPU);
  }
  return device_from_py(obj);
}

Device device_arg(py::handle obj) { return resolve_device(device_spec(obj)); }

Tensor apply_requires_grad(Tensor t, bool requires_grad) {
  if (requires_grad) autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace ember::bindings
