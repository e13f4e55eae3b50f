// ember._C._linalg: the LAPACK-shaped cores of ember.linalg (ops/linalg/
// linalg.hpp), which ember/linalg.py composes into torch.linalg's functions,
// and the CPU BLAS/LAPACK locator: the first CPU product or factorization asks
// ember/_lapack_locate.py (once, with the GIL) where NumPy's bundled OpenBLAS
// is; nothing re-enters Python after that.
#include <string>
#include <vector>

#include "bindings/tensor_common.hpp"
#include "ops/linalg/lapack_api.hpp"
#include "ops/linalg/linalg.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

std::vector<std::string> locate_lapack() {
  py::gil_scoped_acquire gil;
  std::vector<std::string> files;
  try {
    py::object c = py::module_::import("ember._lapack_locate").attr("candidates")();
    for (py::handle f : c) files.push_back(py::str(f));
  } catch (py::error_already_set& e) {
    // The message of ensure_loaded names what was tried; a locator failure
    // leaves only the system's names.
    e.restore();
    PyErr_Clear();
  }
  return files;
}

py::object opt(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

}  // namespace

void bind_linalg_lapack(py::module_& m) {
  ops::lapack::set_locator(&locate_lapack);
  namespace L = ops::linalg;
  py::module_ s = m.def_submodule("_linalg", "ember.linalg's LAPACK/cuSOLVER cores");
  using rel = py::call_guard<py::gil_scoped_release>;
  s.def("lu_factor_", &L::lu_factor_, py::arg("A"), rel());
  s.def("lu_solve_", &L::lu_solve_, py::arg("LU"), py::arg("pivots"), py::arg("B"),
        py::arg("trans"), rel());
  s.def("cholesky_", &L::cholesky_, py::arg("A"), py::arg("upper"), rel());
  s.def("cholesky_solve_", &L::cholesky_solve_, py::arg("L"), py::arg("B"), py::arg("upper"),
        rel());
  s.def("triangular_solve_", &L::triangular_solve_, py::arg("A"), py::arg("B"), py::arg("upper"),
        py::arg("left"), py::arg("trans"), py::arg("unitriangular"), rel());
  s.def("geqrf_", &L::geqrf_, py::arg("A"), rel());
  s.def("orgqr_", &L::orgqr_, py::arg("A"), py::arg("tau"), rel());
  s.def("ormqr_", &L::ormqr_, py::arg("A"), py::arg("tau"), py::arg("C"), py::arg("left"),
        py::arg("trans"), rel());
  s.def("syevd_", &L::syevd_, py::arg("A"), py::arg("upper"), py::arg("vectors"), rel());
  s.def(
      "svd_",
      [](const Tensor& A, bool full, bool vectors) {
        std::tuple<Tensor, Tensor, Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = L::svd_(A, full, vectors);
        }
        return py::make_tuple(opt(std::get<0>(r)), std::get<1>(r), opt(std::get<2>(r)),
                              std::get<3>(r));
      },
      py::arg("A"), py::arg("full"), py::arg("vectors"));
  s.def(
      "lstsq_",
      [](const Tensor& A, const Tensor& B, const std::string& driver, double rcond) {
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = L::lstsq_(A, B, driver, rcond);
        }
        return py::make_tuple(opt(std::get<0>(r)), opt(std::get<1>(r)), std::get<2>(r));
      },
      py::arg("A"), py::arg("B"), py::arg("driver"), py::arg("rcond"));
  s.def(
      "geev_",
      [](const Tensor& A, bool vectors) {
        std::tuple<Tensor, Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = L::geev_(A, vectors);
        }
        return py::make_tuple(std::get<0>(r), opt(std::get<1>(r)), std::get<2>(r));
      },
      py::arg("A"), py::arg("vectors"));
  s.def("ldl_factor_", &L::ldl_factor_, py::arg("A"), py::arg("upper"), py::arg("hermitian"),
        rel());
  s.def("ldl_solve_", &L::ldl_solve_, py::arg("LD"), py::arg("pivots"), py::arg("B"),
        py::arg("upper"), py::arg("hermitian"), rel());
  s.def("lapack_library", [] { return L::lapack_library(); },
        "The BLAS/LAPACK file the CPU's products and factorizations use (opens it).");
  s.def("lapack_loaded", [] { return ops::lapack::loaded(); });
  s.def("cusolver_loaded", [] {
#if EMBER_WITH_CUDA
    return L::internal::cusolver_loaded();
#else
    return false;
#endif
  });
}

}  // namespace ember::bindings
