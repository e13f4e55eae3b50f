// Helpers shared by the tensor binding files (dtype.cpp, tensor*.cpp): the
// dtype singletons, ember.Size, argument parsing for sizes, devices and
// scalars, and Python data <-> tensors.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "bindings/bindings.hpp"
#include "tensor/dtype.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::bindings {

// The Python object bound for ember.dtype.
struct DType {
  ScalarType type;
};

// ---- dtypes (dtype.cpp) ------------------------------------------------------
// The ember.float32 ... singleton of `t`.
py::object dtype_to_py(ScalarType t);
// True for an ember.dtype or one of Python's float, int and bool types.
bool is_dtype_like(py::handle obj);
// ember.dtype, or Python's float (float64), int (int64) and bool types as torch
// accepts them. TypeError for anything else.
ScalarType dtype_from_py(py::handle obj);
// None -> nullopt.
std::optional<ScalarType> optional_dtype(py::handle obj);

// ---- arguments (tensor_common.cpp) -----------------------------------------
bool is_tensor(py::handle obj);
// TypeError naming `what` when obj is not an ember.Tensor.
Tensor& tensor_arg(py::handle obj, const char* what = "argument");
// An optional tensor argument: None -> an undefined Tensor, else tensor_arg.
inline Tensor optional_tensor(py::handle obj, const char* what) {
  return obj.is_none() ? Tensor() : tensor_arg(obj, what);
}
// The CPU device, for conversions and host copies.
inline const Device kCpu{DeviceType::CPU};
// A sequence of ember.Tensors (None: empty); TypeError naming `what` otherwise.
std::vector<Tensor> tensor_list_arg(py::handle seq, const char* what);
// ember.Size([...]) (a tuple subclass).
py::object size_to_py(const Shape& s);
py::tuple ints_to_tuple(const Shape& s);
// An int (or anything with __index__, not bool unless allow_bool); TypeError otherwise.
int64_t int_arg(py::handle obj, const char* fn, const char* arg);
// A sequence of ints (tuple, list, ember.Size); TypeError otherwise.
Shape int_list_arg(py::handle obj, const char* fn, const char* arg);
// Sizes given as f(2, 3) or f((2, 3)) or f([2, 3]).
Shape sizes_from_args(const py::args& args, const char* fn, const char* arg = "size");
// A Python number (bool, int, float, numpy scalar) or one-element tensor.
bool is_scalar_like(py::handle obj);
Scalar scalar_arg(py::handle obj, const char* fn, const char* arg);
// A Python complex (or an object with __complex__, such as numpy.complex64).
Scalar complex_scalar(PyObject* p);
// torch's UserWarning "Casting complex values to real discards the imaginary
// part" for a conversion from a complex dtype to a real one (needs the GIL;
// raises when warnings are errors).
void warn_if_discarding_imag(ScalarType from, ScalarType to);
// A device argument: None -> the default device (CPU unless ember.set_default_device
// or `with ember.device(...)` says otherwise); CUDA devices get their index resolved.
Device device_arg(py::handle obj);
// The same without resolving the index (no CUDA call).
Device device_spec(py::handle obj);
// The requires_grad= keyword of creation functions: marks `t` (a new leaf)
// as requiring grad; RuntimeError for non-floating dtypes (torch's message).
Tensor apply_requires_grad(Tensor t, bool requires_grad);

// ---- Python data (tensor_data.cpp) -----------------------------------------
// torch.tensor(data): nested sequences, scalars, NumPy arrays, tensors,
// objects with __cuda_array_interface__ or __dlpack__; always a copy.
Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, const Device& device,
                        bool pin_memory);
py::object tensor_tolist(const Tensor& t);
py::object tensor_item(const Tensor& t);
// A one-element CPU tensor read as a Python number (no device transfer).
py::object element_to_py(const Tensor& t);

// ---- interop (tensor_interop.cpp, tensor_dlpack.cpp) ------------------------
// False while the interpreter shuts down (Python objects must not be touched).
bool interpreter_alive();
#if EMBER_WITH_CUDA
// The number the DLPack and CUDA Array Interface protocols use for ember's
// current stream of `device`: 1 for the legacy default stream, else the handle.
int64_t protocol_stream(int device);
// Work queued later on the stream numbered `consumer` waits, on the GPU, for
// the work queued now on `producer` (protocol numbers: 1 legacy default, 2
// per-thread default, else a cudaStream_t). Never blocks the host.
void order_streams(int device, int64_t producer, int64_t consumer);
#endif
bool is_numpy_array(py::handle obj);
// Zero-copy views of a NumPy array, of a __cuda_array_interface__ object and
// of a DLPack producer (or capsule).
Tensor tensor_from_numpy(py::handle arr);
Tensor tensor_from_cai(py::handle obj);
Tensor tensor_from_dlpack(py::handle obj);
py::object tensor_to_numpy(const Tensor& t, bool force);

// ---- indexing (tensor_indexing.cpp) ----------------------------------------
py::object tensor_getitem(const Tensor& self, py::handle index);
void tensor_setitem(const Tensor& self, py::handle index, py::handle value);

// ---- the binding functions of the tensor files -----------------------------
void init_size_type(py::module_& m);
void bind_tensor_views(py::class_<Tensor>& cls);
void bind_tensor_interop(py::class_<Tensor>& cls, py::module_& m);
void bind_tensor_dlpack(py::class_<Tensor>& cls, py::module_& m);
void bind_tensor_creation(py::module_& m);
// The tensor returned to Python for an in-place method: `self` itself.
inline py::object same(py::object self) { return self; }

}  // namespace ember::bindings
