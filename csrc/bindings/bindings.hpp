// Shared helpers of the binding files. Each concept has its own bind_<concept>
// function, defined in the file of the same name and called from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace py = pybind11;

namespace ember::bindings {

void bind_errors(py::module_& m);
void bind_device(py::module_& m);
void bind_cuda_device(py::module_& cuda);
void bind_demo(py::module_& m);
void bind_stream(py::module_& cuda);
void bind_event(py::module_& cuda);
void bind_memory(py::module_& cuda);
void bind_memory_testing(py::module_& m);
void bind_dtype(py::module_& m);
void bind_tensor(py::module_& m);
void bind_tensor_creation(py::module_& m);
void bind_autograd(py::module_& m);  // after bind_tensor: adds to ember.Tensor
void bind_autograd_function(py::module_& m);
void bind_optim(py::module_& m);
void bind_nn_loss(py::module_& m);  // after bind_linalg (adds to _C._nn)
void bind_nn_conv(py::module_& m);      // after bind_nn_loss (adds to _C._nn)
void bind_nn_norm(py::module_& m);  // after bind_nn_loss (adds to _C._nn)
void bind_linalg(py::module_& m);  // after bind_tensor: adds Tensor methods
void bind_math(py::module_& m);
void bind_complex(py::module_& m);  // after bind_tensor: adds Tensor methods
void bind_random(py::module_& m, py::module_& cuda);  // after bind_tensor
void bind_amp(py::module_& m);  // autocast state, GradScaler kernels
void bind_jit(py::module_& cuda);  // RawKernel/RawModule/jiterator cores (after bind_tensor)
void bind_jit_testing(py::module_& m);
void bind_c_api(py::module_& m);  // the extensions' C API capsule
void bind_fft(py::module_& m);  // ember._C._fft: cuFFT cores and the plan cache

// A Device from what Python users pass: ember.device, "cuda:1", "cpu", or an
// int (a CUDA ordinal). Throws TypeError/RuntimeError for anything else.
Device device_from_py(py::handle obj, py::handle index = py::none());

// The CUDA ordinal meant by a `device=` argument: None or a negative int mean
// "the current device" and give -1; "cpu" raises ValueError.
int cuda_index_from_py(py::handle obj);

// The stream a `stream=` argument names (defined in bindings/stream.cpp, the
// one stream parser of every binding):
// - None (or absent: nullptr) -> the current stream of `device` (-1: of the
//   current device);
// - an ember.cuda.Stream, or any object with the CUDA stream protocol,
//   __cuda_stream__() -> (0, handle) (torch >= 2.10, CuPy, cuda.core); ember
//   does not guess from attribute names (wrap others in ExternalStream);
// - an int, a raw cudaStream_t on `device`, only when `allow_handle`.
// TypeError for anything else; ValueError when `device` >= 0 and the stream
// belongs to another device.
cuda::StreamView stream_from_py(py::handle obj, int device = -1, bool allow_handle = false);

// A cudaStream_t given as a non-negative int (TypeError / ValueError naming
// `what` otherwise).
cuda::StreamHandle handle_from_int(py::handle obj, const char* what);

// The Python type name of obj for messages, as torch writes it (tp_name:
// "int", "numpy.ndarray"); defined in bindings/tensor_common.cpp.
std::string type_name(py::handle obj);

// Runs f with the GIL released when `release` (CPU work big enough to let
// other Python threads run meanwhile; f must not touch Python objects).
template <typename F>
decltype(auto) maybe_nogil(bool release, F&& f) {
  if (!release) return f();
  py::gil_scoped_release nogil;
  return f();
}

}  // namespace ember::bindings
