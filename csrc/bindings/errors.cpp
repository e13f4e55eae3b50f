// The one place where ember's C++ exceptions become Python exceptions.
#include <Python.h>

#include "bindings/bindings.hpp"
#include "runtime/errors.hpp"
#include "runtime/library_errors.hpp"

namespace ember::bindings {

namespace {

PyObject* g_cuda_error = nullptr;
PyObject* g_oom_error = nullptr;
PyObject* g_compile_error = nullptr;

void set_attr(PyObject* obj, const char* name, size_t value) {
  PyObject* v = PyLong_FromSize_t(value);
  if (v) {
    PyObject_SetAttrString(obj, name, v);
    Py_DECREF(v);
  }
}

// Raises `type(message)` with extra integer attributes already set.
template <typename SetAttrs>
void raise_with_attrs(PyObject* type, const char* message, SetAttrs set_attrs) {
  PyObject* exc = PyObject_CallFunction(type, "s", message);
  if (!exc) return;  // the constructor's own error is already set
  set_attrs(exc);
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
}

}  // namespace

void bind_errors(py::module_& m) {
  py::module_ cuda = m.attr("cuda");
  g_cuda_error = PyErr_NewExceptionWithDoc(
      "ember.cuda.CudaError",
      "A CUDA runtime, driver or library call failed. `code` is the CUDA status number and "
      "`error_name` its name (e.g. 'cudaErrorInvalidDevice').",
      PyExc_RuntimeError, nullptr);
  g_oom_error = PyErr_NewExceptionWithDoc(
      "ember.cuda.OutOfMemoryError",
      "The GPU could not satisfy an allocation. Attributes: device, requested, gpu_total, "
      "gpu_free, allocated, reserved_unused, largest_free_block, limit (bytes).",
      PyExc_RuntimeError, nullptr);
  g_compile_error = PyErr_NewExceptionWithDoc(
      "ember.cuda.CompileError",
      "Runtime compilation (NVRTC) refused a CUDA source. `log` holds the compiler's output, "
      "whose line numbers are those of the source given (for the jiterator: of the code "
      "string).",
      PyExc_RuntimeError, nullptr);
  cuda.attr("CudaError") = py::handle(g_cuda_error);
  cuda.attr("OutOfMemoryError") = py::handle(g_oom_error);
  cuda.attr("CompileError") = py::handle(g_compile_error);

  m.def(
      "_raise_library_error",
      [](const std::string& library, int status) {
        const auto cublasTestCall = [](int s) { return s; };
        const auto nvrtcTestCall = [](int s) { return s; };
        const auto cuTestCall = [](int s) { return s; };
        const auto cufftTestCall = [](int s) { return s; };
        if (library == "cuBLAS") {
          EMBER_CUBLAS_CHECK(cublasTestCall(status));
        } else if (library == "NVRTC") {
          EMBER_NVRTC_CHECK(nvrtcTestCall(status));
        } else if (library == "CUDA driver") {
          EMBER_CU_CHECK(cuTestCall(status));
        } else if (library == "cuFFT") {
          EMBER_CUFFT_CHECK(cufftTestCall(status));
        } else {
          throw ValueError(detail::str("_raise_library_error: unknown library '", library,
                                       "' (known: cuBLAS, NVRTC, CUDA driver, cuFFT)"));
        }
      },
      py::arg("library"), py::arg("status"),
      "For tests: raises what a call of `library` that returned `status` raises (nothing for "
      "status 0).");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const OutOfMemoryError& e) {
      const OomInfo& i = e.info();
      raise_with_attrs(g_oom_error, e.what(), [&](PyObject* x) {
        set_attr(x, "device", static_cast<size_t>(i.device));
        set_attr(x, "requested", i.requested);
        set_attr(x, "gpu_total", i.gpu_total);
        set_attr(x, "gpu_free", i.gpu_free);
        set_attr(x, "allocated", i.allocated);
        set_attr(x, "reserved_unused", i.reserved_unused);
        set_attr(x, "largest_free_block", i.largest_free_block);
        set_attr(x, "limit", i.limit);
      });
    } catch (const CompileError& e) {
      raise_with_attrs(g_compile_error, e.what(), [&](PyObject* x) {
        PyObject* log = PyUnicode_DecodeUTF8(e.log().data(), Py_ssize_t(e.log().size()),
                                             "replace");
        if (log) PyObject_SetAttrString(x, "log", log);
        Py_XDECREF(log);
      });
    } catch (const CudaError& e) {
      raise_with_attrs(g_cuda_error, e.what(), [&](PyObject* x) {
        PyObject* code = PyLong_FromLong(e.code());
        PyObject* name = PyUnicode_FromString(e.name().c_str());
        if (code) PyObject_SetAttrString(x, "code", code);
        if (name) PyObject_SetAttrString(x, "error_name", name);
        Py_XDECREF(code);
        Py_XDECREF(name);
      });
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace ember::bindings
