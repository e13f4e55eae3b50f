#include "bindings/math_args.hpp"

#include <cstring>

namespace ember::bindings {

bool to_operand(PyObject* p, ops::Operand* out) {
  if (is_tensor(p)) {
    out->tensor = tensor_arg(p);
    return true;
  }
  if (PyFloat_CheckExact(p)) {
    out->scalar = Scalar::from_double(PyFloat_AS_DOUBLE(p));
    return true;
  }
  if (PyBool_Check(p)) {
    out->scalar = Scalar::from_bool(p == Py_True);
    return true;
  }
  if (PyLong_Check(p)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) {
      throw Error("Overflow when unpacking long: ember numbers must fit in 64-bit integers");
    }
    out->scalar = Scalar::from_int(v);
    return true;
  }
  if (PyFloat_Check(p)) {
    out->scalar = Scalar::from_double(PyFloat_AS_DOUBLE(p));
    return true;
  }
  if (PyComplex_Check(p)) {
    out->scalar = complex_scalar(p);
    return true;
  }
  if (std::strncmp(Py_TYPE(p)->tp_name, "numpy.", 6) == 0 && is_scalar_like(p)) {
    out->scalar = scalar_arg(p, "operator", "other");
    return true;
  }
  return false;
}

ops::Operand operand_arg(PyObject* obj, const char* fn, const char* arg) {
  ops::Operand o;
  if (!obj) throw TypeError(detail::str(fn, "() missing required argument '", arg, "'"));
  if (!to_operand(obj, &o)) {
    throw TypeError(detail::str(fn, "(): argument '", arg,
                                "' must be a Tensor or a Number, not ", type_name(obj)));
  }
  return o;
}

Scalar number_arg(PyObject* obj, const char* fn, const char* arg) {
  if (is_tensor(obj)) {
    throw TypeError(detail::str(fn, "(): argument '", arg, "' must be a Number, not Tensor"));
  }
  return scalar_arg(obj, fn, arg);
}

Tensor out_arg(PyObject* obj, const char* fn) {
  if (!obj || obj == Py_None) return Tensor();
  if (!is_tensor(obj)) {
    throw TypeError(detail::str(fn, "(): argument 'out' must be Tensor, not ", type_name(obj)));
  }
  return tensor_arg(obj);
}

std::optional<ScalarType> dtype_kw(PyObject* obj) {
  if (!obj || obj == Py_None) return std::nullopt;
  return dtype_from_py(obj);
}

bool bool_arg(PyObject* obj, bool fallback) {
  if (!obj) return fallback;
  const int r = PyObject_IsTrue(obj);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

PyObject* wrap(Tensor t) { return py::cast(std::move(t)).release().ptr(); }

bool worth_releasing_gil(std::initializer_list<const ops::Operand*> ops) {
  for (const ops::Operand* o : ops) {
    if (!o->is_scalar() && o->tensor.is_cpu() && o->tensor.numel() >= (int64_t(1) << 15)) {
      return true;
    }
  }
  return false;
}

void check_scalar_operands(std::initializer_list<const ops::Operand*> ops, ScalarType dtype) {
  for (const ops::Operand* o : ops) {
    if (o && o->is_scalar()) check_scalar_fits(o->scalar, dtype);
  }
}

namespace {
PyTypeObject* g_tensor_type = nullptr;
}  // namespace

void init_math_args(py::module_& m) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(m.attr("Tensor").ptr());
}

PyTypeObject* tensor_type() { return g_tensor_type; }

void add_tensor_methods(PyMethodDef* defs) {
  PyTypeObject* type = tensor_type();
  for (PyMethodDef* d = defs; d->ml_name; ++d) {
    PyObject* descr = PyDescr_NewMethod(type, d);
    if (!descr) throw py::error_already_set();
    const int rc = PyObject_SetAttrString(reinterpret_cast<PyObject*>(type), d->ml_name, descr);
    Py_DECREF(descr);
    if (rc < 0) throw py::error_already_set();
  }
}

void add_module_functions(py::module_& m, PyMethodDef* defs) {
  for (PyMethodDef* d = defs; d->ml_name; ++d) {
    PyObject* f = PyCFunction_NewEx(d, nullptr, m.attr("__name__").ptr());
    if (!f) throw py::error_already_set();
    m.attr(d->ml_name) = py::reinterpret_steal<py::object>(f);
  }
}

void register_math_functions(py::module_& m, PyMethodDef* defs) {
  py::tuple old = py::hasattr(m, "_math_functions") ? py::tuple(m.attr("_math_functions"))
                                                     : py::tuple();
  py::list names(old);
  for (PyMethodDef* d = defs; d->ml_name; ++d) names.append(py::str(d->ml_name));
  m.attr("_math_functions") = py::tuple(names);
}

}  // namespace ember::bindings
