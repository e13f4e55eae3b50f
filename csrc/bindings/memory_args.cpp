#include "bindings/memory_args.hpp"

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::bindings {

namespace {

std::string type_name(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

bool is_int(PyObject* obj) { return PyLong_Check(obj) && !PyBool_Check(obj); }

cuda::StreamHandle handle_from_int(PyObject* obj) {
  void* h = PyLong_AsVoidPtr(obj);
  if (h == nullptr && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<cuda::StreamHandle>(h);
}

}  // namespace

bool parse_fastcall(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                    const char* const* names, int count, int required, PyObject** out) {
  for (int i = 0; i < count; ++i) out[i] = nullptr;
  if (nargs > count) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname, count,
                 nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int found = -1;
    for (int i = 0; i < count; ++i) {
      if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0) found = i;
    }
    if (found < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
      return false;
    }
    if (out[found] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                   names[found]);
      return false;
    }
    out[found] = args[nargs + k];
  }
  for (int i = 0; i < required; ++i) {
    if (out[i] == nullptr) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, names[i]);
      return false;
    }
  }
  return true;
}

size_t size_from_py(PyObject* obj, const char* fname, const char* arg) {
  if (!is_int(obj)) {
    throw TypeError(detail::str(fname, "(): ", arg, " must be an int number of bytes, not ",
                                type_name(obj)));
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow < 0 || (overflow == 0 && v < 0)) {
    throw ValueError(detail::str(fname, "(): ", arg, " must not be negative"));
  }
  if (overflow > 0) return static_cast<size_t>(-1);  // a request no device can satisfy
  return static_cast<size_t>(v);
}

void* ptr_from_py(PyObject* obj, const char* fname) {
  if (!is_int(obj)) {
    throw TypeError(detail::str(fname, "(): expected the int address from "
                                       "caching_allocator_alloc, not ",
                                type_name(obj)));
  }
  void* p = PyLong_AsVoidPtr(obj);
  if (p == nullptr && PyErr_Occurred()) {
    PyErr_Clear();
    throw ValueError(detail::str(fname, "(): not a valid address"));
  }
  return p;
}

memory::Stream stream_from_py(PyObject* obj, int device) {
  if (obj == nullptr || obj == Py_None) {
    return cuda::current_stream(device < 0 ? cuda::current_device() : device);
  }
  if (is_int(obj)) {
    return memory::Stream(handle_from_int(obj), device < 0 ? cuda::current_device() : device);
  }
  // ember streams and anything with __cuda_stream__ (torch, CuPy): the one
  // converter of the streams layer, which also knows the stream's device.
  const cuda::StreamView v = stream_from_py(py::handle(obj));
  EMBER_CHECK_VALUE(device < 0 || device == v.device(), "The stream is on cuda:", v.device(),
                    " but device=cuda:", device, " was asked for: pass matching arguments.");
  return v;
}

}  // namespace ember::bindings
