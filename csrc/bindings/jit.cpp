// ember.cuda's runtime-compiled kernels: _JitModule (a source or a file, one
// compiled module per GPU architecture), _RawKernel (a kernel of a module,
// called like CuPy's RawKernel) and _JitFunction (the jiterator). The Python
// classes in ember/cuda/_raw.py and ember/cuda/jiterator.py wrap them.
//
// - Nothing compiles before the first launch (or compile()): constructing a
//   kernel at import time costs nothing and needs no GPU. The first launch on
//   a device compiles or loads the module with the GIL released; later ones
//   find the kernel in the object.
// - A call converts each Python argument by the kernel's parameter type
//   (ops/jit/kernel_signature.hpp, checked against the driver's sizes):
//   pointers take ember tensors on the launch device, None, or any object
//   with __cuda_array_interface__ or __dlpack__; integer parameters take ints
//   that fit; floating ones take numbers; bool takes bools; other types take a
//   NumPy scalar or bytes of the parameter's size. Anything else is a
//   TypeError naming the parameter, before anything is launched.
// - _RawKernel's tp_call is set directly (no Python-level __call__), so a
//   launch costs one C call plus the argument conversions.
#include <Python.h>
#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "bindings/bindings.hpp"
#include "bindings/fastcall.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

#if EMBER_WITH_CUDA
#include "ops/jit/jiterator.hpp"
#include "ops/jit/kernel_cache.hpp"
#include "ops/jit/kernel_signature.hpp"
#include "ops/jit/module.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/init.hpp"
#include "tensor/half.hpp"
#endif

namespace ember::bindings {

#if EMBER_WITH_CUDA

namespace {

using ops::jit::Kernel;
using ops::jit::Module;
using ops::jit::ParamKind;
using ops::jit::ParamType;

constexpr int kMaxDevices = 64;

int device_sm(int device) {
  const cuda::DeviceProperties& p = cuda::get_device_properties(device);
  return p.major * 10 + p.minor;
}

// A source (or a compiled file) and its modules, one per GPU architecture.
struct JitModuleObj {
  ops::jit::Source src;
  std::string path;  // a cubin/fatbin/PTX file instead of a source
  std::mutex mutex;
  std::map<int, std::shared_ptr<Module>> by_sm;
  std::string log;  // NVRTC's warnings of the last compilation

  // The module for `device`. Compiles or loads: call without the GIL.
  std::shared_ptr<Module> module_for(int device) {
    const int sm = path.empty() ? device_sm(device) : 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = by_sm.find(sm);
      if (it != by_sm.end()) return it->second;
    }
    std::shared_ptr<const ops::jit::Binary> binary;
    if (path.empty()) {
      binary = ops::jit::compile_or_load(src, sm).binary;
    } else {
      std::ifstream f(path, std::ios::binary);
      EMBER_CHECK_VALUE(f.good(), "RawModule: cannot read '", path, "'");
      std::stringstream ss;
      ss << f.rdbuf();
      auto b = std::make_shared<ops::jit::Binary>();
      b->image = ss.str();
      b->target = "file";
      b->key = sha256(b->image);
      b->image.push_back('\0');  // PTX text must end with a NUL
      binary = std::move(b);
    }
    std::shared_ptr<Module> m = Module::load(binary);
    std::lock_guard<std::mutex> lock(mutex);
    log = binary->log;
    return by_sm.emplace(sm, m).first->second;
  }
};

struct Param {
  ParamType type;
  size_t offset = 0, size = 0;
};

struct RawKernelObj {
  std::shared_ptr<JitModuleObj> module;
  std::string name;
  std::mutex mutex;
  std::array<std::atomic<Kernel*>, kMaxDevices> kernels{};
  std::vector<Param> params;  // known after the first load
  bool typed = false;         // the parameter types come from the source
  size_t bytes = 0;

  // The kernel on `device`, loading it first (call without the GIL).
  Kernel& kernel_for(int device) {
    EMBER_CHECK(device >= 0 && device < kMaxDevices, "device ", device, " out of range");
    if (Kernel* k = kernels[device].load(std::memory_order_acquire)) return *k;
    std::shared_ptr<Module> m = module->module_for(device);
    Kernel& k = m->kernel(name);
    std::lock_guard<std::mutex> lock(mutex);
    if (params.empty() && bytes == 0) describe(k);
    kernels[device].store(&k, std::memory_order_release);
    return k;
  }

  // The parameters from the driver's sizes and, where they agree, the types
  // read from the source.
  void describe(const Kernel& k) {
    std::optional<std::vector<ParamType>> parsed;
    if (!module->src.code.empty()) parsed = ops::jit::parse_kernel_params(module->src.code, name);
    const auto& sizes = k.param_sizes();
    typed = parsed && parsed->size() == sizes.size();
    for (size_t i = 0; i < sizes.size(); ++i) {
      Param p;
      p.offset = k.param_offsets()[i];
      p.size = sizes[i];
      if (typed) {
        p.type = (*parsed)[i];
        const size_t want = ops::jit::param_kind_size(p.type.kind);
        if (want != 0 && want != p.size) p.type.kind = ParamKind::Opaque;  // a typedef we misread
      }
      params.push_back(p);
    }
    bytes = k.param_bytes();
  }
};

RawKernelObj& raw_kernel(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  return *static_cast<RawKernelObj*>(inst->get_value_and_holder().value_ptr());
}

std::string describe_param(const RawKernelObj& k, size_t i) {
  const Param& p = k.params[i];
  if (!p.type.spelling.empty()) return "'" + p.type.spelling + "'";
  return detail::str("of ", p.size, " bytes");
}

[[noreturn]] void arg_error(PyObject* exc, const RawKernelObj& k, size_t i,
                            const std::string& what) {
  const std::string msg = detail::str("kernel '", k.name, "' argument ", i, " (parameter ",
                                      describe_param(k, i), "): ", what);
  PyErr_SetString(exc, msg.c_str());
  throw py::error_already_set();
}

PyObject* numpy_generic() {
  static PyObject* generic = [] {
    py::object generic = py::module_::import("numpy").attr("generic");
    return generic.release().ptr();
  }();
  return generic;
}

bool is_numpy_scalar(PyObject* obj) {
  PyTypeObject* t = Py_TYPE(obj);
  const char* name = t->tp_name;
  if (std::strncmp(name, "numpy.", 6) != 0) return false;
  const int r = PyObject_IsInstance(obj, numpy_generic());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

// A NumPy scalar's kind letter ('b', 'i', 'u', 'f', 'c', 'V', ...).
char numpy_kind(PyObject* obj) {
  py::handle h(obj);
  return py::cast<std::string>(h.attr("dtype").attr("kind"))[0];
}

bool is_integer_kind(ParamKind k) { return k >= ParamKind::Int8 && k <= ParamKind::UInt64; }
bool is_float_kind(ParamKind k) {
  return k == ParamKind::Float16 || k == ParamKind::BFloat16 || k == ParamKind::Float32 ||
         k == ParamKind::Float64;
}

ParamKind kind_of_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return ParamKind::Bool;
    case ScalarType::UInt8:
      return ParamKind::UInt8;
    case ScalarType::Int8:
      return ParamKind::Int8;
    case ScalarType::Int16:
      return ParamKind::Int16;
    case ScalarType::Int32:
      return ParamKind::Int32;
    case ScalarType::Int64:
      return ParamKind::Int64;
    case ScalarType::Float16:
      return ParamKind::Float16;
    case ScalarType::BFloat16:
      return ParamKind::BFloat16;
    case ScalarType::Float32:
      return ParamKind::Float32;
    case ScalarType::Float64:
      return ParamKind::Float64;
  }
  return ParamKind::Opaque;
}

// A tensor of dtype t may stand behind a T* of kind `pointee`: the same
// kind, or integers (and bool) of the same size (int* over uint32 data).
bool pointee_accepts(ParamKind pointee, ScalarType t) {
  if (pointee == ParamKind::Opaque) return true;
  const ParamKind k = kind_of_dtype(t);
  if (k == pointee) return true;
  const bool ints = (is_integer_kind(k) || k == ParamKind::Bool) &&
                    (is_integer_kind(pointee) || pointee == ParamKind::Bool);
  return ints && ops::jit::param_kind_size(k) == ops::jit::param_kind_size(pointee);
}

void pack_pointer(PyObject* obj, const RawKernelObj& k, size_t i, int device, char* dst,
                  std::vector<Tensor>& keep) {
  void* ptr = nullptr;
  if (obj != Py_None) {
    const Tensor* t = nullptr;
    if (is_tensor(obj)) {
      t = &tensor_arg(obj);
    } else if (PyObject_HasAttrString(obj, "__cuda_array_interface__")) {
      keep.push_back(tensor_from_cai(obj));
      t = &keep.back();
    } else if (PyObject_HasAttrString(obj, "__dlpack__")) {
      keep.push_back(tensor_from_dlpack(obj));
      t = &keep.back();
    } else {
      arg_error(PyExc_TypeError, k, i,
                detail::str("expected a CUDA tensor (an ember.Tensor, or an object with "
                            "__cuda_array_interface__ or __dlpack__) or None, got ",
                            type_name(obj)));
    }
    if (!t->is_cuda() || t->device().index != device) {
      arg_error(PyExc_ValueError, k, i,
                detail::str("the tensor is on ", t->device().str(),
                            " but the kernel runs on cuda:", device,
                            " (the stream's device): move it with .to('cuda:", device, "')"));
    }
    if (!pointee_accepts(k.params[i].type.pointee, t->dtype())) {
      arg_error(PyExc_TypeError, k, i,
                detail::str("got a tensor of dtype ", dtype_name(t->dtype()),
                            ", which this pointer does not point to: convert it with .to(...)"));
    }
    ptr = t->data_ptr();
  }
  std::memcpy(dst, &ptr, sizeof(ptr));
}

template <typename T>
void put(char* dst, T v) {
  std::memcpy(dst, &v, sizeof(T));
}

void pack_integer(PyObject* obj, ParamKind kind, const RawKernelObj& k, size_t i, char* dst) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  auto range = [&](long long lo, unsigned long long hi) {
    const bool ok = overflow == 0 && v >= lo && (v < 0 || static_cast<unsigned long long>(v) <= hi);
    if (!ok && !(kind == ParamKind::UInt64 && overflow > 0)) {
      arg_error(PyExc_OverflowError, k, i,
                detail::str(py::cast<std::string>(py::str(obj)), " does not fit in ",
                            ops::jit::param_kind_name(kind)));
    }
  };
  switch (kind) {
    case ParamKind::Int8:
      range(-128, 127);
      put<int8_t>(dst, int8_t(v));
      return;
    case ParamKind::UInt8:
      range(0, 255);
      put<uint8_t>(dst, uint8_t(v));
      return;
    case ParamKind::Int16:
      range(-32768, 32767);
      put<int16_t>(dst, int16_t(v));
      return;
    case ParamKind::UInt16:
      range(0, 65535);
      put<uint16_t>(dst, uint16_t(v));
      return;
    case ParamKind::Int32:
      range(INT32_MIN, INT32_MAX);
      put<int32_t>(dst, int32_t(v));
      return;
    case ParamKind::UInt32:
      range(0, UINT32_MAX);
      put<uint32_t>(dst, uint32_t(v));
      return;
    case ParamKind::Int64:
      range(INT64_MIN, INT64_MAX);
      put<int64_t>(dst, v);
      return;
    case ParamKind::UInt64: {
      const unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (PyErr_Occurred()) {
        PyErr_Clear();
        arg_error(PyExc_OverflowError, k, i,
                  detail::str(py::cast<std::string>(py::str(obj)), " does not fit in uint64"));
      }
      put<uint64_t>(dst, u);
      return;
    }
    default:
      break;
  }
}

void pack_float(double v, ParamKind kind, char* dst) {
  switch (kind) {
    case ParamKind::Float16:
      put<uint16_t>(dst, Half(static_cast<float>(v)).x);
      return;
    case ParamKind::BFloat16:
      put<uint16_t>(dst, BFloat16(static_cast<float>(v)).x);
      return;
    case ParamKind::Float32:
      put<float>(dst, static_cast<float>(v));
      return;
    default:
      put<double>(dst, v);
      return;
  }
}

// One argument into its parameter's bytes at dst.
void pack_arg(PyObject* obj, RawKernelObj& k, size_t i, int device, char* dst,
              std::vector<Tensor>& keep) {
  const Param& p = k.params[i];
  ParamKind kind = p.type.kind;
  if (kind == ParamKind::Opaque && !k.typed && p.size == 8 && (is_tensor(obj) || obj == Py_None)) {
    kind = ParamKind::Pointer;  // types unknown: an 8-byte parameter may take a tensor
  }
  if (kind == ParamKind::Pointer) return pack_pointer(obj, k, i, device, dst, keep);
  const bool np = !PyLong_Check(obj) && !PyFloat_Check(obj) && is_numpy_scalar(obj);
  if (kind == ParamKind::Opaque) {
    std::string bytes;
    if (np) {
      bytes = py::cast<std::string>(py::bytes(py::handle(obj).attr("tobytes")()));
    } else if (PyBytes_Check(obj)) {
      bytes = py::cast<std::string>(py::handle(obj));
    } else if (PyLong_Check(obj) && !PyBool_Check(obj) &&
               (p.size == 1 || p.size == 2 || p.size == 4 || p.size == 8)) {
      // Types unknown: an integer is packed as a signed integer of the size.
      static const ParamKind by_size[9] = {ParamKind::Opaque, ParamKind::Int8,   ParamKind::Int16,
                                           ParamKind::Opaque, ParamKind::Int32,  ParamKind::Opaque,
                                           ParamKind::Opaque, ParamKind::Opaque, ParamKind::Int64};
      return pack_integer(obj, by_size[p.size], k, i, dst);
    } else {
      arg_error(
          PyExc_TypeError, k, i,
          detail::str("ember cannot tell this parameter's type; pass a NumPy scalar of ", p.size,
                      " bytes (e.g. numpy.float32(x)) or a bytes object, got ", type_name(obj)));
    }
    if (bytes.size() != p.size) {
      arg_error(PyExc_TypeError, k, i,
                detail::str("got ", bytes.size(), " bytes, the parameter takes ", p.size));
    }
    std::memcpy(dst, bytes.data(), p.size);
    return;
  }
  const char np_kind = np ? numpy_kind(obj) : 0;
  if (kind == ParamKind::Bool) {
    if (PyBool_Check(obj) || np_kind == 'b') {
      put<bool>(dst, PyObject_IsTrue(obj) == 1);
      return;
    }
    arg_error(PyExc_TypeError, k, i, detail::str("expected a bool, got ", type_name(obj)));
  }
  const bool integral =
      (PyLong_Check(obj) && !PyBool_Check(obj)) || np_kind == 'i' || np_kind == 'u';
  if (is_integer_kind(kind)) {
    if (!integral) {
      arg_error(PyExc_TypeError, k, i,
                detail::str("expected an int, got ", type_name(obj),
                            is_tensor(obj) ? " (a 0-d tensor's value: .item())" : ""));
    }
    if (np) {
      py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Long(obj));
      if (!as_int) throw py::error_already_set();
      return pack_integer(as_int.ptr(), kind, k, i, dst);
    }
    return pack_integer(obj, kind, k, i, dst);
  }
  if (is_float_kind(kind)) {
    if (!(integral || PyFloat_Check(obj) || np_kind == 'f')) {
      arg_error(PyExc_TypeError, k, i,
                detail::str("expected a float, got ", type_name(obj),
                            is_tensor(obj) ? " (a 0-d tensor's value: .item())" : ""));
    }
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return pack_float(v, kind, dst);
  }
}

// (x, y, z) from an int or a tuple of 1 to 3 ints.
void dims_arg(PyObject* obj, unsigned (&out)[3], const char* what) {
  out[0] = out[1] = out[2] = 1;
  auto one = [&](PyObject* o, int d) {
    if (!PyLong_Check(o) || PyBool_Check(o)) {
      throw TypeError(
          detail::str(what, " must be an int or a tuple of 1 to 3 ints, got ", type_name(o)));
    }
    const long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    EMBER_CHECK_VALUE(v >= 1 && v <= 0xFFFFFFFFll, what, " dimensions must be positive, got ", v);
    out[d] = static_cast<unsigned>(v);
  };
  if (PyTuple_Check(obj) || PyList_Check(obj)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    if (n < 1 || n > 3) {
      throw TypeError(detail::str(what, " must have 1 to 3 dimensions, got ", n));
    }
    PyObject** items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t d = 0; d < n; ++d) one(items[d], static_cast<int>(d));
  } else {
    one(obj, 0);
  }
}

// kern(grid, block, args, shared_mem=0, stream=None)
PyObject* raw_kernel_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  EMBER_PY_TRY
  static const char* names[] = {"grid", "block", "args", "shared_mem", "stream", nullptr};
  PyObject *grid = nullptr, *block = nullptr, *kargs = nullptr, *smem = nullptr,
           *stream_obj = nullptr;
  if (!kwargs && PyTuple_GET_SIZE(args) == 3) {
    // The common call, kern(grid, block, args): no keyword parsing.
    grid = PyTuple_GET_ITEM(args, 0);
    block = PyTuple_GET_ITEM(args, 1);
    kargs = PyTuple_GET_ITEM(args, 2);
  } else if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OO:RawKernel.__call__",
                                          const_cast<char**>(names), &grid, &block, &kargs,
                                          &smem, &stream_obj)) {
    return nullptr;
  }
  RawKernelObj& k = raw_kernel(self);
  ops::jit::LaunchConfig cfg;
  dims_arg(grid, cfg.grid, "grid");
  dims_arg(block, cfg.block, "block");
  if (smem && smem != Py_None) {
    const long long s = PyLong_AsLongLong(smem);
    if (s == -1 && PyErr_Occurred()) throw py::error_already_set();
    EMBER_CHECK_VALUE(s >= 0 && s <= 0xFFFFFFFFll,
                      "shared_mem must be a non-negative number of "
                      "bytes, got ",
                      s);
    cfg.shared_mem = static_cast<unsigned>(s);
  }
  if (!PyTuple_Check(kargs) && !PyList_Check(kargs)) {
    throw TypeError(detail::str("kernel '", k.name,
                                "': args must be a tuple (or list) of the kernel's arguments, got ",
                                type_name(kargs)));
  }
  // No stream given: the current stream of the current device, so the launch
  // needs no device switch (Kernel::launch skips its guard).
  const bool on_current = !stream_obj || stream_obj == Py_None;
  const cuda::StreamView stream = stream_from_py(on_current ? Py_None : stream_obj);
  const int device = stream.device();
  Kernel* kernel = k.kernels[device].load(std::memory_order_acquire);
  if (!kernel) {
    py::gil_scoped_release nogil;
    kernel = &k.kernel_for(device);
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(kargs);
  if (static_cast<size_t>(n) != k.params.size()) {
    std::string sig;
    for (size_t i = 0; i < k.params.size(); ++i) {
      sig += (i ? ", " : "") + (k.params[i].type.spelling.empty()
                                    ? detail::str("<", k.params[i].size, " bytes>")
                                    : k.params[i].type.spelling);
    }
    throw TypeError(detail::str("kernel '", k.name, "' takes ", k.params.size(), " argument",
                                k.params.size() == 1 ? "" : "s", " (", sig, "), got ", n));
  }
  alignas(16) char small[512];
  std::vector<char> big;
  char* buf = small;
  if (k.bytes > sizeof(small)) {
    big.resize(k.bytes);
    buf = big.data();
  }
  void* ptrs[64];
  std::vector<void*> many;
  void** params = ptrs;
  if (k.params.size() > 64) {
    many.resize(k.params.size());
    params = many.data();
  }
  std::vector<Tensor> keep;
  PyObject** items = PySequence_Fast_ITEMS(kargs);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const Param& p = k.params[static_cast<size_t>(i)];
    pack_arg(items[i], k, static_cast<size_t>(i), device, buf + p.offset, keep);
    params[i] = buf + p.offset;
  }
  kernel->launch(cfg, stream, params, on_current);
  Py_RETURN_NONE;
  EMBER_PY_CATCH
}

// The kernel on the current device (loading it), for the attribute getters.
Kernel& current_kernel(RawKernelObj& k) {
  const int device = cuda::current_device();
  if (Kernel* kernel = k.kernels[device].load(std::memory_order_acquire)) return *kernel;
  py::gil_scoped_release nogil;
  return k.kernel_for(device);
}

std::vector<Scalar> extras_arg(py::handle seq) {
  std::vector<Scalar> out;
  for (py::handle v : seq) {
    PyObject* o = v.ptr();
    if (PyBool_Check(o)) {
      out.push_back(Scalar::from_bool(o == Py_True));
    } else if (PyLong_Check(o)) {
      out.push_back(Scalar::from_int(py::cast<int64_t>(v)));
    } else if (PyFloat_Check(o)) {
      out.push_back(Scalar::from_double(PyFloat_AsDouble(o)));
    } else if (is_scalar_like(v) && !is_tensor(v)) {
      out.push_back(scalar_arg(v, "jiterator", "keyword argument"));
    } else {
      throw TypeError(
          detail::str("jiterator keyword arguments must be Python numbers (bool, "
                      "int or float), got ",
                      type_name(v)));
    }
  }
  return out;
}

py::object run_jit(ops::jit::JitFunction& f, py::handle inputs, py::handle extras) {
  std::vector<ops::Operand> ops_in;
  for (py::handle v : inputs) {
    if (is_tensor(v)) {
      ops_in.emplace_back(tensor_arg(v));
    } else if (is_scalar_like(v)) {
      ops_in.emplace_back(scalar_arg(v, "jiterator", "input"));
    } else {
      throw TypeError(
          detail::str("jiterator inputs must be tensors or numbers, got ", type_name(v)));
    }
  }
  ops::jit::JitPlan plan = f.plan(std::move(ops_in), extras_arg(extras));
  if (!f.ready(plan)) {
    py::gil_scoped_release nogil;
    f.prepare(plan);
  }
  f.run(plan);
  if (plan.outputs.size() == 1) return py::cast(plan.outputs[0]);
  py::tuple t(plan.outputs.size());
  for (size_t i = 0; i < plan.outputs.size(); ++i) t[i] = py::cast(plan.outputs[i]);
  return std::move(t);
}

py::dict attributes_dict(const ops::jit::KernelAttributes& a) {
  py::dict d;
  d["max_threads_per_block"] = a.max_threads_per_block;
  d["shared_size_bytes"] = a.shared_size_bytes;
  d["const_size_bytes"] = a.const_size_bytes;
  d["local_size_bytes"] = a.local_size_bytes;
  d["num_regs"] = a.num_regs;
  d["ptx_version"] = a.ptx_version;
  d["binary_version"] = a.binary_version;
  d["max_dynamic_shared_size_bytes"] = a.max_dynamic_shared_size_bytes;
  d["preferred_shared_memory_carveout"] = a.preferred_shared_memory_carveout;
  return d;
}

}  // namespace

void bind_jit(py::module_& cuda) {
  py::class_<JitModuleObj, std::shared_ptr<JitModuleObj>>(
      cuda, "_JitModule",
      "A CUDA C++ source (or a compiled file) and its modules, one per GPU architecture; "
      "compiled on first use. Wrapped by ember.cuda.RawModule.")
      .def(py::init([](py::object code, py::object path, std::vector<std::string> options,
                       std::vector<std::string> name_expressions, std::string file_name) {
             auto m = std::make_shared<JitModuleObj>();
             EMBER_CHECK_VALUE(code.is_none() != path.is_none(),
                               "RawModule takes either code= or path=, not both");
             if (!code.is_none()) m->src.code = py::cast<std::string>(code);
             if (!path.is_none()) m->path = py::cast<std::string>(py::str(path));
             m->src.options = std::move(options);
             m->src.name_expressions = std::move(name_expressions);
             m->src.file_name = std::move(file_name);
             return m;
           }),
           py::arg("code"), py::arg("path"), py::arg("options"), py::arg("name_expressions"),
           py::arg("file_name"))
      .def(
          "compile",
          [](JitModuleObj& m) {
            const int device = cuda::current_device();
            py::gil_scoped_release nogil;
            m.module_for(device);
          },
          "Compiles (or loads from the caches) the module for the current device now.")
      .def_property_readonly("code", [](const JitModuleObj& m) { return m.src.code; })
      .def_property_readonly("path", [](const JitModuleObj& m) { return m.path; })
      .def_property_readonly("options", [](const JitModuleObj& m) { return m.src.options; })
      .def_property_readonly("name_expressions",
                             [](const JitModuleObj& m) { return m.src.name_expressions; })
      .def_property_readonly("log", [](JitModuleObj& m) {
        std::lock_guard<std::mutex> lock(m.mutex);
        return m.log;
      });

  py::class_<RawKernelObj> kernel(
      cuda, "_RawKernel",
      "A __global__ function of a _JitModule, launched by calling it: "
      "kern(grid, block, args, shared_mem=0, stream=None). Wrapped by ember.cuda.RawKernel.");
  kernel
      .def(py::init([](std::shared_ptr<JitModuleObj> module, std::string name) {
             auto k = std::make_unique<RawKernelObj>();
             k->module = std::move(module);
             k->name = std::move(name);
             return k;
           }),
           py::arg("module"), py::arg("name"))
      .def_property_readonly("name", [](const RawKernelObj& k) { return k.name; })
      .def_property_readonly("_module", [](const RawKernelObj& k) { return k.module; })
      .def(
          "compile", [](RawKernelObj& k) { current_kernel(k); },
          "Compiles (or loads) the kernel for the current device now.")
      .def_property_readonly(
          "attributes",
          [](RawKernelObj& k) {
            Kernel& kernel = current_kernel(k);
            return attributes_dict(kernel.attributes(cuda::current_device()));
          },
          "The kernel's attributes on the current device (cuKernelGetAttribute).")
      .def_property(
          "max_dynamic_shared_size_bytes",
          [](RawKernelObj& k) {
            return current_kernel(k)
                .attributes(cuda::current_device())
                .max_dynamic_shared_size_bytes;
          },
          [](RawKernelObj& k, int bytes) {
            current_kernel(k).set_max_dynamic_shared_size(cuda::current_device(), bytes);
          },
          "The most dynamic shared memory a launch may ask for on the current device; raise "
          "it (up to the device's opt-in limit) before launching with more than 48 KiB.")
      .def_property_readonly(
          "param_types",
          [](RawKernelObj& k) {
            current_kernel(k);
            py::list out;
            for (const Param& p : k.params) {
              out.append(
                  py::make_tuple(ops::jit::param_kind_name(p.type.kind), p.type.spelling, p.size));
            }
            return out;
          },
          "(kind, spelling, size) of each parameter, as the launcher checks them.");
  // __call__ in the class dict (so Python subclasses stay callable), then the
  // slot itself (setting the attribute would have replaced it): a call on an
  // instance costs no Python frame. _fast_call gives a subclass the slot too
  // (a subclass made in Python would otherwise dispatch through __call__).
  kernel.def("__call__", [](py::handle self, py::args args, py::kwargs kwargs) {
    PyObject* r = raw_kernel_call(self.ptr(), args.ptr(), kwargs.ptr());
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(r);
  });
  reinterpret_cast<PyTypeObject*>(kernel.ptr())->tp_call = raw_kernel_call;
  cuda.def(
      "_fast_call",
      [kernel](py::handle cls) {
        auto* t = reinterpret_cast<PyTypeObject*>(cls.ptr());
        EMBER_CHECK_TYPE(PyType_Check(cls.ptr()) &&
                             PyType_IsSubtype(t, reinterpret_cast<PyTypeObject*>(kernel.ptr())),
                         "_fast_call takes a subclass of _RawKernel");
        t->tp_call = raw_kernel_call;
      },
      "Gives a subclass of _RawKernel the C call slot (ember.cuda.RawKernel uses it).");

  py::class_<ops::jit::JitFunction, std::shared_ptr<ops::jit::JitFunction>>(
      cuda, "_JitFunction", "A jiterator function; wrapped by ember.cuda.jiterator.")
      .def(py::init<std::string, std::string, int>(), py::arg("code"), py::arg("name"),
           py::arg("num_outputs"))
      .def("__call__", &run_jit, py::arg("inputs"), py::arg("extras"),
           "Runs the function on `inputs` (tensors and numbers) with the extra arguments' "
           "values `extras`, in declaration order.");
}

#else  // !EMBER_WITH_CUDA

void bind_jit(py::module_& cuda) {}

#endif

}  // namespace ember::bindings
