// pybind11 glue for ember extensions: ember.Tensor <-> ember::Tensor in
// function signatures, and ember's exceptions.
//
//   PYBIND11_MODULE(my_ext, m) {
//     ember::init_extension(m);  // imports ember's C API, registers the exceptions
//     m.def("scale_", [](ember::Tensor x, double a) { ... });
//   }
//
// A function taking ember::Tensor accepts an ember.Tensor (or subclass) and
// refuses anything else with pybind11's TypeError; returning one gives Python
// an ember.Tensor sharing that tensor (a new Python object, as ember's own
// functions return).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // std::vector<ember::Tensor>, std::optional, ... in signatures

#include "ember/tensor.h"

namespace ember {
namespace detail {

// ember.cuda.<name>, the class of ember's CUDA exceptions.
inline PyObject* cuda_exception(const char* name) {
  pybind11::object cls = pybind11::module_::import("ember.cuda").attr(name);
  return cls.ptr();  // ember.cuda keeps the class alive
}

inline void register_exceptions() {
  static bool done = false;
  if (done) return;
  done = true;
  pybind11::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(cuda_exception("OutOfMemoryError"), e.what());
    } catch (const CudaError& e) {
      PyErr_SetString(cuda_exception("CudaError"), e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace detail

// Call first in PYBIND11_MODULE: finds ember's C API (ImportError-like
// RuntimeError when ember is missing or of another C API version) and makes
// ember::Error and its subclasses raise ember's Python exceptions.
inline void init_extension(pybind11::module_& m) {
  (void)api();
  detail::register_exceptions();
  m.attr("__ember_c_api_version__") = EMBER_C_API_VERSION;
}

}  // namespace ember

namespace pybind11 {
namespace detail {

template <>
struct type_caster<ember::Tensor> {
  PYBIND11_TYPE_CASTER(ember::Tensor, const_name("ember.Tensor"));

  bool load(handle src, bool) {
    ember::detail::register_exceptions();
    EmberTensor* t = nullptr;
    if (ember::api().tensor_from_object(src.ptr(), &t) != EMBER_OK) return false;
    value = ember::Tensor(t);
    return true;
  }

  static handle cast(const ember::Tensor& t, return_value_policy, handle) {
    if (!t.defined()) return none().release();
    PyObject* obj = nullptr;
    const int status = ember::api().tensor_to_object(t.handle(), &obj);
    if (status != EMBER_OK) {
      PyErr_SetString(PyExc_RuntimeError, ember::api().last_error());
      return handle();
    }
    return handle(obj);
  }
};

}  // namespace detail
}  // namespace pybind11
