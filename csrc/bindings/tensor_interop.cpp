// Zero-copy interop: NumPy (from_numpy, numpy(), __array__) and the CUDA Array
// Interface v3 (DLPack is in tensor_dlpack.cpp). NumPy is never imported by ember itself: an
// ndarray argument means numpy is already loaded, and numpy() imports it on
// first use through pybind11.
//
// Foreign memory stays owned by its Python object: the storage holds a
// reference and drops it under the GIL when the last view dies.
#include <Python.h>
#include <pybind11/numpy.h>

#include <cstring>
#include <string>

#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"
#include "runtime/stream.hpp"

namespace ember::bindings {

namespace {


// Deleter of storages that keep a Python object alive; may run on any thread
// with or without the GIL.
void decref_owner(void* ctx) {
  if (!interpreter_alive()) return;  // the object dies with the interpreter
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(ctx));
  PyGILState_Release(g);
}

DataPtr py_owner(py::handle obj) {
  Py_INCREF(obj.ptr());
  return DataPtr{nullptr, obj.ptr(), &decref_owner};
}

// Bytes from the first to one past the last element (strides >= 0).
size_t extent_bytes(const Shape& sizes, const Shape& strides, size_t item) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return static_cast<size_t>(last + 1) * item;
}

const char* unsupported_numpy_types =
    "The only supported types are: float64, float32, float16, complex64, complex128, int64, "
    "int32, int16, int8, uint8, and bool.";

ScalarType dtype_from_kind(char kind, size_t size, const std::string& what) {
  switch (kind) {
    case 'b':
      if (size == 1) return ScalarType::Bool;
      break;
    case 'u':
      if (size == 1) return ScalarType::UInt8;
      break;
    case 'i':
      if (size == 1) return ScalarType::Int8;
      if (size == 2) return ScalarType::Int16;
      if (size == 4) return ScalarType::Int32;
      if (size == 8) return ScalarType::Int64;
      break;
    case 'f':
      if (size == 2) return ScalarType::Float16;
      if (size == 4) return ScalarType::Float32;
      if (size == 8) return ScalarType::Float64;
      break;
    case 'c':
      if (size == 8) return ScalarType::ComplexFloat;
      if (size == 16) return ScalarType::ComplexDouble;
      break;
    default:
      break;
  }
  throw TypeError(detail::str("can't convert ", what, ". ", unsupported_numpy_types));
}

// Complex elements are read as one aligned {re, im} pair (tensor/complex.hpp):
// foreign complex data must be aligned to its element size (NumPy's and CUDA's
// allocations are; a view at an odd float offset is not).
void check_complex_alignment(const void* data, ScalarType t, const char* what) {
  if (!is_complex(t)) return;
  const size_t item = element_size(t);
  EMBER_CHECK_VALUE(reinterpret_cast<uintptr_t>(data) % item == 0, what, " holds ",
                    dtype_name(t), " data at an address that is not a multiple of ", item,
                    " bytes; ember reads complex elements as aligned pairs. Copy the data first.");
}

// NumPy / array-interface type strings ("<f4", "|b1").
std::string typestr(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "|b1";
    case ScalarType::UInt8: return "|u1";
    case ScalarType::Int8: return "|i1";
    case ScalarType::Int16: return "<i2";
    case ScalarType::Int32: return "<i4";
    case ScalarType::Int64: return "<i8";
    case ScalarType::Float16: return "<f2";
    case ScalarType::Float32: return "<f4";
    case ScalarType::Float64: return "<f8";
    case ScalarType::ComplexFloat: return "<c8";
    case ScalarType::ComplexDouble: return "<c16";
    default: break;
  }
  throw TypeError(detail::str("Got unsupported ScalarType ", torch_scalar_name(t)));
}

#if EMBER_WITH_CUDA
// The device that owns a CUDA pointer (the current device for null).
int pointer_device(const void* ptr) {
  if (ptr == nullptr) return cuda::current_device();
  cudaPointerAttributes attr{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
  EMBER_CHECK_VALUE(attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged,
                    "__cuda_array_interface__ data pointer is not device memory");
  return attr.device;
}

#endif

Shape byte_strides(const Tensor& t) {
  Shape s = t.strides();
  for (int64_t& v : s) v *= static_cast<int64_t>(t.itemsize());
  return s;
}


py::object cuda_array_interface(const Tensor& t) {
  if (!t.is_cuda()) {
    throw py::attribute_error(detail::str(
        "Can't get __cuda_array_interface__ on non-CUDA tensor (", t.device().str(),
        "). If CUDA data is required use tensor.cuda() to copy tensor to device memory."));
  }
  py::dict d;
  d["shape"] = ints_to_tuple(t.sizes());
  d["typestr"] = typestr(t.dtype());
  d["descr"] = py::make_tuple(py::make_tuple("", typestr(t.dtype())));
  d["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(t.numel() ? t.data_ptr() : nullptr),
                             false);
  d["strides"] = t.is_contiguous() ? py::object(py::none()) : py::object(ints_to_tuple(byte_strides(t)));
  d["version"] = 3;
#if EMBER_WITH_CUDA
  d["stream"] = protocol_stream(t.device().index);
#endif
  return d;
}

}  // namespace

bool interpreter_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

#if EMBER_WITH_CUDA
namespace {

cudaStream_t stream_from_protocol(int64_t s) {
  if (s == 1 || s == 0) return cudaStreamLegacy;
  if (s == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(s));
}

}  // namespace

int64_t protocol_stream(int device) {
  const cuda::StreamView s = cuda::current_stream(device);
  return s.is_default() ? 1 : static_cast<int64_t>(reinterpret_cast<uintptr_t>(s.handle()));
}

void order_streams(int device, int64_t producer, int64_t consumer) {
  const cudaStream_t p = stream_from_protocol(producer), c = stream_from_protocol(consumer);
  if (p == c) return;
  cuda::DeviceGuard guard(device);
  cudaEvent_t e = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  cudaError_t err = cudaEventRecord(e, p);
  if (err == cudaSuccess) err = cudaStreamWaitEvent(c, e, 0);
  EMBER_CUDA_WARN(cudaEventDestroy(e));
  EMBER_CUDA_CHECK(err);
}
#endif

bool is_numpy_array(py::handle obj) {
  PyTypeObject* t = Py_TYPE(obj.ptr());
  if (std::strcmp(t->tp_name, "numpy.ndarray") == 0) return true;
  PyObject* mro = t->tp_mro;
  if (!mro) return false;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); ++i) {
    auto* base = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i));
    if (std::strcmp(base->tp_name, "numpy.ndarray") == 0) return true;
  }
  return false;
}

Tensor tensor_from_numpy(py::handle obj) {
  if (!is_numpy_array(obj)) {
    throw TypeError(detail::str("expected np.ndarray (got ", type_name(obj), ")"));
  }
  auto arr = py::reinterpret_borrow<py::array>(obj);
  const py::dtype dt = arr.dtype();
  const char kind = dt.kind();
  const size_t item = static_cast<size_t>(dt.itemsize());
  const ScalarType st = dtype_from_kind(
      kind, item, "np.ndarray of type numpy." + py::cast<std::string>(py::str(dt)));
  if (dt.byteorder() == '>') {
    throw ValueError(
        "given numpy array has byte order different from the native byte order. Conversion "
        "between byte orders is currently not supported.");
  }
  const auto nd = static_cast<size_t>(arr.ndim());
  Shape sizes(nd), strides(nd);
  for (size_t i = 0; i < nd; ++i) {
    sizes[i] = static_cast<int64_t>(arr.shape(i));
    const auto sb = static_cast<int64_t>(arr.strides(i));
    if (sb < 0) {
      throw ValueError(
          "At least one stride in the given numpy array is negative, and tensors with negative "
          "strides are not currently supported. (You can probably work around this by making a "
          "copy of your array  with array.copy().) ");
    }
    if (sb % static_cast<int64_t>(item) != 0) {
      throw ValueError(
          "given numpy array strides not a multiple of the element byte size. Copy the numpy "
          "array to reallocate the memory.");
    }
    strides[i] = sb / static_cast<int64_t>(item);
  }
  void* data = const_cast<void*>(arr.data());
  check_complex_alignment(data, st, "the numpy array");
  const size_t nbytes = extent_bytes(sizes, strides, item);
  Storage s = wrap_storage(data, nbytes, kCpu, py_owner(obj));
  return Tensor(std::move(s), st, std::move(sizes), std::move(strides), 0);
}

py::object tensor_to_numpy(const Tensor& self, bool force) {
  Tensor t = self;
  if (t.is_cuda()) {
    if (!force) {
      throw TypeError(detail::str("can't convert ", t.device().str(),
                                  " device type tensor to numpy. Use Tensor.cpu() to copy the "
                                  "tensor to host memory first."));
    }
    py::gil_scoped_release nogil;
    t = ops::to(t, kCpu, t.dtype());
  }
  const py::dtype dt(typestr(t.dtype()));
  auto* keep = new Storage(t.storage());
  py::capsule base(keep, [](void* p) { delete static_cast<Storage*>(p); });
  Shape bs = byte_strides(t);
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  std::vector<py::ssize_t> strides(bs.begin(), bs.end());
  return py::array(dt, shape, strides, t.numel() ? t.data_ptr() : nullptr, base);
}

Tensor tensor_from_cai(py::handle obj) {
#if EMBER_WITH_CUDA
  py::dict d = obj.attr("__cuda_array_interface__");
  const int version = d.contains("version") ? py::cast<int>(d["version"]) : 0;
  EMBER_CHECK_VALUE(version <= 3, "__cuda_array_interface__ version ", version,
                    " is newer than ember understands (3)");
  if (d.contains("mask") && !d["mask"].is_none()) {
    throw TypeError("__cuda_array_interface__ with a mask is not supported by ember");
  }
  const std::string ts = py::cast<std::string>(d["typestr"]);
  EMBER_CHECK_TYPE(ts.size() >= 3, "bad __cuda_array_interface__ typestr '", ts, "'");
  const size_t item = static_cast<size_t>(std::stoul(ts.substr(2)));
  if (ts[0] == '>' && item > 1) {
    throw ValueError("__cuda_array_interface__ data in big-endian byte order is not supported");
  }
  const ScalarType st = dtype_from_kind(ts[1], item, "__cuda_array_interface__ typestr '" + ts + "'");
  const Shape sizes = int_list_arg(d["shape"], "as_tensor", "__cuda_array_interface__['shape']");
  Shape strides;
  if (d.contains("strides") && !d["strides"].is_none()) {
    strides = int_list_arg(d["strides"], "as_tensor", "__cuda_array_interface__['strides']");
    EMBER_CHECK_VALUE(strides.size() == sizes.size(),
                      "__cuda_array_interface__ strides and shape differ in length");
    for (int64_t& s : strides) {
      EMBER_CHECK_VALUE(s >= 0 && s % static_cast<int64_t>(item) == 0,
                        "__cuda_array_interface__ strides must be non-negative multiples of the "
                        "element size, got ", shape_str(strides));
      s /= static_cast<int64_t>(item);
    }
  } else {
    strides = contiguous_strides(sizes);
  }
  checked_numel(sizes, item);
  py::tuple data = d["data"];
  auto* ptr = reinterpret_cast<void*>(py::cast<uintptr_t>(data[0]));
  check_complex_alignment(ptr, st, "the __cuda_array_interface__ object");
  cuda::lazy_init();
  const int dev = pointer_device(ptr);
  if (d.contains("stream") && !d["stream"].is_none()) {
    const auto s = py::cast<int64_t>(d["stream"]);
    EMBER_CHECK_VALUE(s != 0, "__cuda_array_interface__ stream 0 is not allowed by the protocol");
    order_streams(dev, s, protocol_stream(dev));
  }
  const size_t nbytes = extent_bytes(sizes, strides, item);
  Storage storage = wrap_storage(ptr, nbytes, Device(DeviceType::CUDA, dev), py_owner(obj));
  return Tensor(std::move(storage), st, sizes, strides, 0);
#else
  (void)obj;
  throw Error("ember was built without CUDA support: __cuda_array_interface__ objects cannot be "
              "imported");
#endif
}

void bind_tensor_interop(py::class_<Tensor>& cls, py::module_& m) {
  cls.def(
      "numpy",
      [](const Tensor& t, bool force) {
        EMBER_CHECK(force || !autograd::requires_grad(t),
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                    "instead.");
        return tensor_to_numpy(t, force);
      },
      py::kw_only(), py::arg("force") = false,
          "A NumPy array sharing this CPU tensor's memory. CUDA tensors raise TypeError "
          "(use .cpu() first, or force=True to copy).");
  cls.def(
      "__array__",
      [](const Tensor& t, py::handle dtype, py::handle copy) {
        py::object a = tensor_to_numpy(t, false);
        if (!dtype.is_none()) a = a.attr("astype")(dtype, py::arg("copy") = false);
        if (!copy.is_none() && py::cast<bool>(copy)) a = a.attr("copy")();
        return a;
      },
      py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  cls.def_property_readonly("__cuda_array_interface__", &cuda_array_interface,
                            "The CUDA Array Interface v3 (CUDA tensors only), with ember's "
                            "current stream in 'stream'.");
  m.def("from_numpy", &tensor_from_numpy, py::arg("ndarray"),
        "A tensor sharing the NumPy array's memory (no copy).");
}

}  // namespace ember::bindings
