// The one extension module, ember._C. Each concept binds itself.
#include "bindings/bindings.hpp"

namespace ember::bindings {
void bind_index_ops(py::module_& m);  // bindings/index_ops.cpp (ember._C._index)
void bind_sort(py::module_& m);  // bindings/sort.cpp: ember._C._sort, the sorting family's cores
}  // namespace ember::bindings

PYBIND11_MODULE(_C, m) {
  m.doc() = "ember's C++/CUDA core";
  m.attr("__version__") = EMBER_VERSION;
  m.attr("_compiled_with_cuda") = py::bool_(EMBER_WITH_CUDA != 0);
  py::module_ cuda = m.def_submodule("cuda", "ember.cuda's core");
  ember::bindings::bind_errors(m);
  ember::bindings::bind_device(m);
  ember::bindings::bind_cuda_device(cuda);
  ember::bindings::bind_demo(m);
  ember::bindings::bind_event(cuda);  // before bind_stream, whose methods take events
  ember::bindings::bind_stream(cuda);
  ember::bindings::bind_memory(cuda);
  ember::bindings::bind_memory_testing(m);
  ember::bindings::bind_dtype(m);
  ember::bindings::bind_tensor(m);
  ember::bindings::bind_tensor_creation(m);
  ember::bindings::bind_autograd(m);
  ember::bindings::bind_autograd_function(m);
  ember::bindings::bind_optim(m);
  ember::bindings::bind_linalg(m);
  ember::bindings::bind_nn_loss(m);
  ember::bindings::bind_nn_conv(m);
  ember::bindings::bind_nn_norm(m);
  ember::bindings::bind_index_ops(m);
  ember::bindings::bind_math(m);
  ember::bindings::bind_complex(m);
  ember::bindings::bind_random(m, cuda);
  ember::bindings::bind_amp(m);
  ember::bindings::bind_jit(cuda);
  ember::bindings::bind_jit_testing(m);
  ember::bindings::bind_c_api(m);
  ember::bindings::bind_sort(m);
  ember::bindings::bind_fft(m);
}
