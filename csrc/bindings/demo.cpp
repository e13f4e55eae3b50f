#include "bindings/bindings.hpp"
#include "ops/demo/saxpy.hpp"

namespace ember::bindings {

void bind_demo(py::module_& m) {
  m.def(
      "_saxpy_demo",
      [](int device, int64_t n) {
        ops::SaxpyReport r;
        {
          py::gil_scoped_release nogil;
          r = ops::saxpy_demo(device, n);
        }
        py::dict d;
        d["device"] = r.device;
        d["n"] = r.n;
        d["max_abs_error"] = r.max_abs_error;
        d["kernel_ms"] = r.kernel_ms;
        d["gbps"] = r.gbps;
        return d;
      },
      py::arg("device"), py::arg("n"),
      "y = 2.5*x + y on random data, on the CPU (device < 0) or a GPU, checked against a "
      "float64 reference.");
}

}  // namespace ember::bindings
