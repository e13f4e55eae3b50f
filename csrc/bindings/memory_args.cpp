#include "bindings/memory_args.hpp"

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::bindings {

namespace {

bool is_int(PyObject* obj) { return PyLong_Check(obj) && !PyBool_Check(obj); }

}  // namespace

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

}  // namespace ember::bindings
