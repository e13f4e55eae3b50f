// Creation functions (torch's names and keywords): tensor, as_tensor, empty,
// zeros, ones, full, *_like, empty_strided, arange, linspace, eye, cat, stack.
// Each is one C++ call from Python; keywords are parsed by pybind11.
#include <cmath>

#include "autograd/functions.hpp"
#include "bindings/fastcall.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/index/join.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {

struct Options {
  ScalarType dtype;
  Device device;
  bool pin;
  bool grad;
};

Options options(py::handle dtype, py::handle device, bool pin_memory, bool requires_grad,
                const char* fn, ScalarType fallback) {
  const Device d = device_spec(device);
  EMBER_CHECK(!pin_memory || d.is_cpu(), fn, "(): only CPU tensors can be pinned, but "
              "pin_memory=True was given with device='", d.str(), "'");
  const ScalarType dt = dtype.is_none() ? fallback : dtype_from_py(dtype);
  if (requires_grad && !is_floating_or_complex(dt)) {
    throw Error("Only Tensors of floating point and complex dtype can require gradients");
  }
  return Options{dt, resolve_device(d), pin_memory, requires_grad};
}

// A new leaf (requires_grad is set before it is filled: fills here are not
// recorded).
Tensor make_empty(const Shape& size, const Options& o) {
  return apply_requires_grad(Tensor::empty(size, o.dtype, o.device, o.pin), o.grad);
}

Tensor filled(const Shape& size, const Options& o, const Scalar& v) {
  Tensor t = make_empty(size, o);
  if (t.is_cpu() && t.nbytes() > (size_t(1) << 20)) {
    py::gil_scoped_release nogil;
    ops::fill_(t, v);
  } else {
    ops::fill_(t, v);
  }
  return t;
}

// *_like: the input's dimension order when it is dense (torch's preserve_format).
Tensor empty_like(const Tensor& t, py::handle dtype, py::handle device, bool pin,
                  bool requires_grad, const char* fn) {
  const ScalarType dt = dtype.is_none() ? t.dtype() : dtype_from_py(dtype);
  const Device dev = device.is_none() ? t.device() : device_arg(device);
  return apply_requires_grad(
      Tensor::empty_strided(t.sizes(), dense_strides_like(t.sizes(), t.strides()), dt, dev,
                            pin && dev.is_cpu()),
      requires_grad);
}

std::vector<Tensor> tensor_list(py::handle seq, const char* fn) {
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) {
    throw TypeError(detail::str(fn, "(): argument 'tensors' must be a tuple or list of Tensors, "
                                    "not ", type_name(seq)));
  }
  std::vector<Tensor> out;
  for (py::handle h : seq) {
    if (!is_tensor(h)) {
      throw TypeError(detail::str(fn, "(): expected a sequence of Tensors, but found ",
                                  type_name(h)));
    }
    out.push_back(tensor_arg(h));
  }
  return out;
}

// torch.arange's length, with its errors.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, bool integral) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(st != 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
              "upper bound and larger bound inconsistent with step sign");
  double n;
  if (integral && !start.is_floating() && !end.is_floating() && !step.is_floating()) {
    const int64_t a = start.to<int64_t>(), b = end.to<int64_t>(), c = step.to<int64_t>();
    n = c > 0 ? double((b - a + c - 1) / c) : double((a - b - c - 1) / -c);
  } else {
    n = std::ceil((e - s) / st);
  }
  EMBER_CHECK(n >= 0 && n < 9.2e18, "invalid size, possible overflow?");
  return static_cast<int64_t>(n);
}

bool is_simple_numpy(py::handle arr) {
  // Zero-copy is possible: non-negative strides that are multiples of the
  // item size, native byte order, a dtype ember has.
  try {
    (void)tensor_from_numpy(arr);
    return true;
  } catch (const Error&) {
    return false;
  }
}

Tensor as_tensor(py::handle data, py::handle dtype, py::handle device) {
  const std::optional<ScalarType> dt = optional_dtype(dtype);
  Tensor src;
  if (is_tensor(data)) {
    src = tensor_arg(data);
  } else if (is_numpy_array(data) && is_simple_numpy(data)) {
    src = tensor_from_numpy(data);
  } else if (!is_numpy_array(data) &&
             PyObject_HasAttrString(data.ptr(), "__cuda_array_interface__")) {
    src = tensor_from_cai(data);
  } else if (!is_numpy_array(data) && PyObject_HasAttrString(data.ptr(), "__dlpack__")) {
    src = tensor_from_dlpack(data);  // torch tensors on the CPU, JAX arrays, ...
  } else {
    return tensor_from_data(data, dt, device_arg(device), false);
  }
  const Device dev = device.is_none() ? src.device() : device_arg(device);
  py::gil_scoped_release nogil;
  return ops::to(src, dev, dt.value_or(src.dtype()));
}

// ---- the hot creation functions as vectorcall functions -------------------
// empty/zeros/ones(*size, dtype=None, device=None, pin_memory=False,
// requires_grad=False, layout=None, memory_format=None) parse their keywords
// with Signature (bindings/fastcall.hpp) instead of pybind11's generic dispatcher: these
// are called in inner loops and a keyword costs pybind11 ~0.3 us.

enum class Fill { None, Zeros, Ones };

Shape sizes_from_vector(PyObject* const* args, Py_ssize_t n, const char* fn) {
  if (n == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
    return int_list_arg(args[0], fn, "size");
  }
  Shape out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyBool_Check(args[i]) || PyFloat_Check(args[i])) {
      throw TypeError(detail::str(fn, "(): argument 'size' must be tuple of ints, but found "
                                      "element of type ", Py_TYPE(args[i])->tp_name, " at pos ", i));
    }
    out[i] = int_arg(args[i], fn, "size");
  }
  return out;
}

template <Fill F>
PyObject* create_fast(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  constexpr const char* fn = F == Fill::None ? "empty" : F == Fill::Zeros ? "zeros" : "ones";
  try {
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    // *size takes every positional: the keywords follow them in `args`.
    static const Signature sig(fn, 0, {"dtype", "device", "pin_memory", "requires_grad", "layout",
                                       "memory_format"});
    PyObject* kw[6];
    sig.parse(args + nargs, 0, kwnames, kw);
    const PyObject* defaults[6] = {Py_None, Py_None, Py_False, Py_False, Py_None, Py_None};
    for (int i = 0; i < 6; ++i) {
      if (!kw[i]) kw[i] = const_cast<PyObject*>(defaults[i]);
    }
    const Shape size = sizes_from_vector(args, nargs, fn);
    const int pin = PyObject_IsTrue(kw[2]), grad = PyObject_IsTrue(kw[3]);
    if (pin < 0 || grad < 0) throw py::error_already_set();
    const Options o = options(kw[0], kw[1], pin == 1, grad == 1, fn, default_dtype());
    Tensor t = F == Fill::None    ? make_empty(size, o)
               : F == Fill::Zeros ? filled(size, o, Scalar::from_int(0))
                                  : filled(size, o, Scalar::from_int(1));
    return py::cast(std::move(t)).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyMethodDef g_fast_defs[] = {
    {"empty", EMBER_FAST(&create_fast<Fill::None>),
     METH_FASTCALL | METH_KEYWORDS,
     "empty(*size, dtype=None, device=None, pin_memory=False, requires_grad=False)\n\n"
     "An uninitialised tensor: empty(2, 3) or empty((2, 3))."},
    {"zeros", EMBER_FAST(&create_fast<Fill::Zeros>),
     METH_FASTCALL | METH_KEYWORDS,
     "zeros(*size, dtype=None, device=None, pin_memory=False, requires_grad=False)\n\n"
     "A tensor of zeros."},
    {"ones", EMBER_FAST(&create_fast<Fill::Ones>),
     METH_FASTCALL | METH_KEYWORDS,
     "ones(*size, dtype=None, device=None, pin_memory=False, requires_grad=False)\n\n"
     "A tensor of ones."},
};

void def_fast(py::module_& m) {
  for (PyMethodDef& d : g_fast_defs) {
    PyObject* f = PyCFunction_NewEx(&d, nullptr, m.attr("__name__").ptr());
    if (!f) throw py::error_already_set();
    m.attr(d.ml_name) = py::reinterpret_steal<py::object>(f);
  }
}

}  // namespace

void bind_tensor_creation(py::module_& m) {
  const auto dtype = py::arg("dtype") = py::none();
  const auto device = py::arg("device") = py::none();
  const auto pin = py::arg("pin_memory") = false;
  const auto grad = py::arg("requires_grad") = false;
  const auto layout = py::arg("layout") = py::none();
  const auto memory_format = py::arg("memory_format") = py::none();

  m.def(
      "tensor",
      [](py::handle data, py::handle dtype, py::handle device, bool requires_grad, bool pin) {
        const Device dev = device_arg(device);
        EMBER_CHECK(!pin || dev.is_cpu(), "tensor(): only CPU tensors can be pinned");
        return apply_requires_grad(tensor_from_data(data, optional_dtype(dtype), dev, pin),
                                   requires_grad);
      },
      py::arg("data"), py::kw_only(), dtype, device, grad, pin,
      "A new tensor holding a copy of `data` (nested lists or tuples of numbers, a scalar, a "
      "NumPy array, a tensor). The dtype is inferred like torch: bool, int64, the default "
      "float dtype, or the array's dtype.");
  m.def("as_tensor", &as_tensor, py::arg("data"), dtype, device,
        "Like tensor(), but shares memory with `data` (a tensor, NumPy array or CUDA array) "
        "when dtype and device allow.");
  m.def(
      "asarray",
      [](py::handle obj, py::handle dtype, py::handle device, py::handle copy, bool grad) {
        if (!copy.is_none() && py::cast<bool>(copy)) {
          Tensor t = as_tensor(obj, dtype, device);
          py::gil_scoped_release nogil;
          return apply_requires_grad(ops::clone(t), grad);
        }
        Tensor t = as_tensor(obj, dtype, device);
        if (grad) t = t.view_with(t.sizes(), t.strides(), t.storage_offset());
        return apply_requires_grad(std::move(t), grad);
      },
      py::arg("obj"), py::kw_only(), dtype, device, py::arg("copy") = py::none(), grad);

  def_fast(m);  // empty, zeros, ones
  m.def(
      "full",
      [](py::handle size, py::handle value, py::handle dtype, py::handle device, bool pin,
         bool grad, py::handle) {
        const Scalar v = scalar_arg(value, "full", "fill_value");
        const Shape s = PyTuple_Check(size.ptr()) || PyList_Check(size.ptr())
                            ? int_list_arg(size, "full", "size")
                            : Shape{int_arg(size, "full", "size")};
        const Options o = options(dtype, device, pin, grad, "full", v.default_type());
        check_scalar_fits(v, o.dtype);  // torch: full((2,), 300, dtype=int8) raises
        return filled(s, o, v);
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), dtype, device, pin, grad, layout);
  m.def(
      "empty_strided",
      [](py::handle size, py::handle stride, py::handle dtype, py::handle device, bool pin,
         bool grad, py::handle) {
        const Options o = options(dtype, device, pin, grad, "empty_strided", default_dtype());
        return apply_requires_grad(
            Tensor::empty_strided(int_list_arg(size, "empty_strided", "size"),
                                  int_list_arg(stride, "empty_strided", "stride"), o.dtype,
                                  o.device, o.pin),
            o.grad);
      },
      py::arg("size"), py::arg("stride"), py::kw_only(), dtype, device, pin, grad, layout);

  m.def(
      "empty_like",
      [](const Tensor& t, py::handle dtype, py::handle device, bool pin, bool grad, py::handle,
         py::handle) { return empty_like(t, dtype, device, pin, grad, "empty_like"); },
      py::arg("input"), py::kw_only(), dtype, device, pin, grad, layout, memory_format);
  m.def(
      "zeros_like",
      [](const Tensor& t, py::handle dtype, py::handle device, bool pin, bool grad, py::handle,
         py::handle) {
        Tensor out = empty_like(t, dtype, device, pin, grad, "zeros_like");
        ops::zero_(out);
        return out;
      },
      py::arg("input"), py::kw_only(), dtype, device, pin, grad, layout, memory_format);
  m.def(
      "ones_like",
      [](const Tensor& t, py::handle dtype, py::handle device, bool pin, bool grad, py::handle,
         py::handle) {
        Tensor out = empty_like(t, dtype, device, pin, grad, "ones_like");
        ops::fill_(out, Scalar::from_int(1));
        return out;
      },
      py::arg("input"), py::kw_only(), dtype, device, pin, grad, layout, memory_format);
  m.def(
      "full_like",
      [](const Tensor& t, py::handle value, py::handle dtype, py::handle device, bool pin,
         bool grad, py::handle, py::handle) {
        const Scalar v = scalar_arg(value, "full_like", "fill_value");
        Tensor out = empty_like(t, dtype, device, pin, grad, "full_like");
        check_scalar_fits(v, out.dtype());
        ops::fill_(out, v);
        return out;
      },
      py::arg("input"), py::arg("fill_value"), py::kw_only(), dtype, device, pin, grad, layout,
      memory_format);

  m.def(
      "arange",
      [](py::handle a, py::handle b, py::handle c, py::handle dtype, py::handle device, bool pin,
         bool grad, py::handle) {
        Scalar start = Scalar::from_int(0), end, step = Scalar::from_int(1);
        if (b.is_none()) {
          end = scalar_arg(a, "arange", "end");
        } else {
          start = scalar_arg(a, "arange", "start");
          end = scalar_arg(b, "arange", "end");
        }
        if (!c.is_none()) step = scalar_arg(c, "arange", "step");
        const bool any_float = start.is_floating() || end.is_floating() || step.is_floating();
        const Options o = options(dtype, device, pin, grad, "arange",
                                  any_float ? default_dtype() : ScalarType::Int64);
        const int64_t n = arange_length(start, end, step, is_integral(o.dtype, true));
        Tensor t = make_empty({n}, o);
        ops::arange_fill(t, start, step);
        return t;
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = py::none(), py::kw_only(),
      dtype, device, pin, grad, layout,
      "arange(end), arange(start, end), arange(start, end, step): values from start up to "
      "(not including) end.");
  m.def(
      "linspace",
      [](py::handle start, py::handle end, py::handle steps, py::handle dtype, py::handle device,
         bool pin, bool grad, py::handle) {
        const double s = scalar_arg(start, "linspace", "start").to_double();
        const double e = scalar_arg(end, "linspace", "end").to_double();
        const int64_t n = int_arg(steps, "linspace", "steps");
        EMBER_CHECK(n >= 0, "linspace(): number of steps must be non-negative");
        Tensor t = make_empty({n}, options(dtype, device, pin, grad, "linspace", default_dtype()));
        ops::linspace_fill(t, s, e);
        return t;
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), dtype, device, pin, grad,
      layout);
  m.def(
      "eye",
      [](py::handle n_, py::handle m_, py::handle dtype, py::handle device, bool pin, bool grad,
         py::handle) {
        const int64_t n = int_arg(n_, "eye", "n");
        const int64_t m = m_.is_none() ? n : int_arg(m_, "eye", "m");
        EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
        EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
        Tensor t = filled({n, m}, options(dtype, device, pin, grad, "eye", default_dtype()),
                          Scalar::from_int(0));
        ops::fill_(diagonal(t, 0, 0, 1), Scalar::from_int(1));
        return t;
      },
      py::arg("n"), py::arg("m") = py::none(), py::kw_only(), dtype, device, pin, grad, layout);

  auto cat = [](py::handle tensors, int64_t dim) {
    const std::vector<Tensor> ts = tensor_list(tensors, "cat");
    py::gil_scoped_release nogil;
    return autograd::cat(ts, dim);
  };
  m.def("cat", cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def("concat", cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def("concatenate", cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def(
      "stack",
      [](py::handle tensors, int64_t dim) {
        const std::vector<Tensor> ts = tensor_list(tensors, "stack");
        py::gil_scoped_release nogil;
        return autograd::stack(ts, dim);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  m.def("numel", [](const Tensor& t) { return t.numel(); }, py::arg("input"));
}

}  // namespace ember::bindings
