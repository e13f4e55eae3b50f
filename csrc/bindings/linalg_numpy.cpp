// The CPU products' bridge to NumPy (ops/blas/blas_cpu.hpp): numpy.matmul on
// zero-copy views of ember's CPU tensors, so NumPy's BLAS does the work.
// NumPy is imported on the first CPU product, never at `import ember`. The
// bridge takes the GIL itself (ops may be called from threads without it);
// NumPy releases it again inside its BLAS loops.
#include "bindings/tensor_common.hpp"
#include "ops/blas/blas_cpu.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

struct NumpyFns {
  PyObject* matmul;
  PyObject* multiply;
  PyObject* add;
  PyObject* copyto;
};

// Imported once; the references are kept until exit (never released from
// a static destructor after the interpreter is gone).
const NumpyFns& numpy_fns() {
  static NumpyFns* fns = [] {
    py::module_ np = py::module_::import("numpy");
    auto get = [&](const char* name) { return py::object(np.attr(name)).release().ptr(); };
    return new NumpyFns{get("matmul"), get("multiply"), get("add"), get("copyto")};
  }();
  return *fns;
}

py::object scalar_to_py(const Scalar& s) {
  if (s.is_bool()) return py::bool_(s.b);
  if (s.is_integral()) return py::int_(s.i);
  if (s.is_complex()) {
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(s.d, s.im));
  }
  return py::float_(s.d);
}

bool is_real(const Scalar& s) { return !s.is_complex() || s.im == 0.0; }
bool is_one(const Scalar& s) { return s.is_bool() ? s.b : s.to_double() == 1.0 && is_real(s); }
bool is_zero(const Scalar& s) { return s.to_double() == 0.0 && is_real(s); }

void numpy_matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
                  const Scalar& beta) {
  py::gil_scoped_acquire gil;
  try {
    const NumpyFns& np = numpy_fns();
    auto fn = [](PyObject* f) { return py::reinterpret_borrow<py::object>(f); };
    py::object A = tensor_to_numpy(a, false), B = tensor_to_numpy(b, false);
    py::object O = tensor_to_numpy(out, false);
    if (is_one(alpha) && is_zero(beta)) {
      fn(np.matmul)(A, B, py::arg("out") = O);
      return;
    }
    py::object P = fn(np.matmul)(A, B);
    if (!is_one(alpha)) fn(np.multiply)(P, scalar_to_py(alpha), py::arg("out") = P);
    if (is_zero(beta)) {
      fn(np.copyto)(O, P);
      return;
    }
    if (!is_one(beta)) fn(np.multiply)(O, scalar_to_py(beta), py::arg("out") = O);
    fn(np.add)(O, P, py::arg("out") = O);
  } catch (py::error_already_set& e) {
    throw Error(detail::str("NumPy's matmul failed on the CPU product: ", e.what()));
  }
}

}  // namespace

void register_numpy_bridge() { ops::cpu_blas::set_matmul_bridge(&numpy_matmul); }

}  // namespace ember::bindings
