// Shared helpers of the binding files. Each concept has its own bind_<concept>
// function, defined in the file of the same name and called from module.cpp.
#pragma once

#include <pybind11/pybind11.h>

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
void bind_autograd_optim(py::module_& m);
void bind_autograd_nn(py::module_& m);  // after bind_linalg (adds to _C._nn)
void bind_nn_conv(py::module_& m);      // after bind_autograd_nn (adds to _C._nn)
void bind_nn_norm(py::module_& m);  // after bind_autograd_nn (adds to _C._nn)
void bind_linalg(py::module_& m);  // after bind_tensor: adds Tensor methods
void bind_math(py::module_& m);
void bind_random(py::module_& m, py::module_& cuda);  // after bind_tensor
void bind_amp(py::module_& m);  // autocast state, GradScaler kernels

// A Device from what Python users pass: ember.device, "cuda:1", "cpu", or an
// int (a CUDA ordinal). Throws TypeError/RuntimeError for anything else.
Device device_from_py(py::handle obj, py::handle index = py::none());

// The CUDA ordinal meant by a `device=` argument: None or a negative int mean
// "the current device" and give -1; "cpu" raises ValueError.
int cuda_index_from_py(py::handle obj);

// The stream a `stream=` argument names: None -> the current stream of the
// current device; an ember.cuda.Stream; or any object with the CUDA stream
// protocol, __cuda_stream__() -> (0, handle) (torch >= 2.10, CuPy, cuda.core).
// Throws TypeError for anything else (defined in bindings/stream.cpp).
cuda::StreamView stream_from_py(py::handle obj);

}  // namespace ember::bindings
