// Python data -> tensors (ember.tensor's nested lists and scalars) and
// tensors -> Python data (tolist, item).
#include <Python.h>

#include <string>

#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {


bool is_sequence(PyObject* p) { return PyList_Check(p) || PyTuple_Check(p); }

// Tensors and NumPy arrays nested inside lists are read through tolist().
py::object as_nested(py::handle obj) {
  if (is_tensor(obj)) return tensor_tolist(tensor_arg(obj));
  if (is_numpy_array(obj)) return obj.attr("tolist")();
  return py::reinterpret_borrow<py::object>(obj);
}

bool is_nested_container(py::handle obj) {
  return is_sequence(obj.ptr()) || (is_tensor(obj) && tensor_arg(obj).dim() > 0) ||
         (is_numpy_array(obj) && py::cast<int>(obj.attr("ndim")) > 0);
}

// The shape implied by the first element at every depth.
Shape infer_shape(py::handle data) {
  Shape shape;
  py::object cur = py::reinterpret_borrow<py::object>(data);
  while (is_nested_container(cur)) {
    if (static_cast<int64_t>(shape.size()) == kMaxDims) {
      throw ValueError(detail::str("too many dimensions: ember tensors have at most ", kMaxDims,
                                   " (is the list nested in itself?)"));
    }
    py::object seq = as_nested(cur);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
    shape.push_back(n);
    if (n == 0) break;
    cur = py::reinterpret_borrow<py::object>(PySequence_Fast_GET_ITEM(seq.ptr(), 0));
  }
  return shape;
}


[[noreturn]] void bad_leaf(py::handle obj) {
  throw TypeError(detail::str("Could not infer dtype of ", type_name(obj),
                              ": ember.tensor() takes numbers (bool, int, float), nested lists "
                              "or tuples of them, NumPy arrays and tensors"));
}

// The dtype a leaf asks for, as torch infers it: Python floats the default
// dtype, ints int64, bools bool; NumPy scalars and one-element tensors their own.
ScalarType leaf_type(py::handle obj) {
  PyObject* p = obj.ptr();
  // Exact types first: np.float64 subclasses float but asks for float64.
  if (PyFloat_CheckExact(p)) return default_dtype();
  if (PyBool_Check(p)) return ScalarType::Bool;
  if (PyLong_CheckExact(p)) return ScalarType::Int64;
  if (PyComplex_CheckExact(p)) return default_complex_dtype();
  if (!is_scalar_like(obj)) bad_leaf(obj);
  if (is_tensor(obj)) return tensor_arg(obj).dtype();
  if (PyObject_HasAttrString(p, "dtype") && PyObject_HasAttrString(p, "__array_interface__")) {
    // A NumPy scalar: its dtype, through the same mapping as arrays.
    return tensor_from_numpy(py::module_::import("numpy").attr("asarray")(obj)).dtype();
  }
  return scalar_arg(obj, "tensor", "data").default_type();
}

// Checks the nesting against `shape` and promotes the leaves' dtypes.
void scan(py::handle obj, const Shape& shape, size_t depth, std::optional<ScalarType>& type) {
  if (depth == shape.size()) {
    if (is_nested_container(obj)) {
      throw ValueError(detail::str("expected a number at dim ", depth, " but got a sequence (",
                                   type_name(obj), "): the nested lists are ragged"));
    }
    const ScalarType t = leaf_type(obj);
    type = type ? promote_types(*type, t) : t;
    return;
  }
  if (!is_nested_container(obj)) {
    if (is_scalar_like(obj)) {
      throw ValueError(detail::str("expected sequence of length ", shape[depth], " at dim ",
                                   depth, " (got a number: the nested lists are ragged)"));
    }
    bad_leaf(obj);
  }
  py::object seq = as_nested(obj);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  if (n != shape[depth]) {
    throw ValueError(detail::str("expected sequence of length ", shape[depth], " at dim ", depth,
                                 " (got ", n, ")"));
  }
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) scan(items[i], shape, depth + 1, type);
}

template <typename T>
void write(py::handle obj, const Shape& shape, size_t depth, T*& out) {
  if (depth == shape.size()) {
    PyObject* p = obj.ptr();
    if (PyFloat_Check(p)) {
      *out++ = convert<T, double>(PyFloat_AS_DOUBLE(p));
    } else {
      const Scalar v = scalar_arg(obj, "tensor", "data");
      // torch: a complex number in a real tensor is Python's TypeError.
      if (v.is_complex() && !is_complex_v<T>) throw TypeError("must be real number, not complex");
      *out++ = v.to<T>();
    }
    return;
  }
  py::object seq = as_nested(obj);
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  for (Py_ssize_t i = 0; i < n; ++i) write<T>(items[i], shape, depth + 1, out);
}

Tensor from_nested(py::handle data, std::optional<ScalarType> dtype, bool pin_memory) {
  const Shape shape = infer_shape(data);
  std::optional<ScalarType> inferred;
  scan(data, shape, 0, inferred);
  const ScalarType t = dtype ? *dtype : inferred.value_or(default_dtype());  // empty: default
  Tensor out = Tensor::empty(shape, t, kCpu, pin_memory);
  dispatch_all(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data_ptr());
    write<T>(data, shape, 0, p);
  });
  return out;
}

bool is_array_like(py::handle obj) {
  PyObject* p = obj.ptr();
  if (is_sequence(p) || PyUnicode_Check(p) || PyBytes_Check(p)) return false;
  return PyObject_HasAttrString(p, "__array_interface__") ||
         PyObject_HasAttrString(p, "__array__");
}

py::object to_py(bool v) { return py::bool_(v); }
template <typename T>
py::object to_py(T v) {
  if constexpr (is_complex_v<T>) {
    const Complex<double> c = convert<Complex<double>>(v);
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c.re, c.im));
  } else if constexpr (std::is_integral<T>::value) {
    return py::reinterpret_steal<py::object>(PyLong_FromLongLong(static_cast<long long>(v)));
  } else {
    return py::reinterpret_steal<py::object>(PyFloat_FromDouble(static_cast<double>(v)));
  }
}

template <typename T>
py::object build_list(const T* data, const Shape& sizes, const Shape& strides, size_t depth) {
  if (depth == sizes.size()) return to_py(*data);
  const int64_t n = sizes[depth];
  PyObject* list = PyList_New(n);
  if (!list) throw py::error_already_set();
  py::object guard = py::reinterpret_steal<py::object>(list);
  for (int64_t i = 0; i < n; ++i) {
    py::object item = build_list<T>(data + i * strides[depth], sizes, strides, depth + 1);
    PyList_SET_ITEM(list, i, item.release().ptr());
  }
  return guard;
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<ScalarType> dtype, const Device& device,
                        bool pin_memory) {
  Tensor src;
  PyObject* p = data.ptr();
  if (is_tensor(data)) {
    src = tensor_arg(data);
  } else if (!is_numpy_array(data) && PyObject_HasAttrString(p, "__cuda_array_interface__")) {
    src = tensor_from_cai(data);  // CuPy, Numba, torch CUDA tensors (before their __array__)
  } else if (!is_numpy_array(data) && !PyCapsule_CheckExact(p) &&
             PyObject_HasAttrString(p, "__dlpack__")) {
    src = tensor_from_dlpack(data);
  } else if (is_numpy_array(data) || is_array_like(data)) {
    // NumPy does the work for arrays with negative strides, foreign byte order
    // and array-likes; numpy is already imported when such an object exists.
    // asarray(order="C") keeps 0-d arrays and NumPy scalars 0-d (ascontiguousarray would not).
    py::object arr = py::module_::import("numpy").attr("asarray")(data, py::arg("order") = "C");
    if (py::cast<std::string>(arr.attr("dtype").attr("kind")) == "O") {
      return from_nested(arr.attr("tolist")(), dtype, pin_memory);
    }
    src = tensor_from_numpy(arr);
  } else if (is_sequence(data.ptr()) || is_scalar_like(data)) {
    Tensor t = from_nested(data, dtype, pin_memory && device.is_cpu());
    return ops::to(t, device, t.dtype());
  } else if (PyUnicode_Check(data.ptr()) || PyBytes_Check(data.ptr())) {
    throw TypeError(detail::str("new(): invalid data type '", type_name(data),
                                "': ember.tensor() takes numbers, sequences of numbers, NumPy "
                                "arrays and tensors"));
  } else {
    bad_leaf(data);
  }
  // A copy, always (torch.tensor never shares memory with its input).
  return ops::to(src, device, dtype.value_or(src.dtype()), false, /*copy=*/true,
                 pin_memory && device.is_cpu());
}

py::object element_to_py(const Tensor& t_in) {
  // A device tensor's element is read through a copy to the host (a
  // synchronising read, as .item()).
  const Tensor t = t_in.is_cpu() ? t_in : ops::to(t_in, Device(DeviceType::CPU), t_in.dtype());
  return dispatch_all(t.dtype(), [&](auto tag) -> py::object {
    using T = typename decltype(tag)::type;
    const T v = *static_cast<const T*>(t.data_ptr());
    if constexpr (is_reduced_float<T>::value) {
      return to_py(static_cast<float>(v));
    } else {
      return to_py(v);
    }
  });
}

py::object tensor_item(const Tensor& t) {
  if (t.numel() != 1) {
    throw Error(detail::str("a Tensor with ", t.numel(), " elements cannot be converted to Scalar"));
  }
  if (t.is_cpu()) return element_to_py(t);
  Tensor host;
  {
    py::gil_scoped_release nogil;
    host = ops::to(t, kCpu, t.dtype());
  }
  return element_to_py(host);
}

py::object tensor_tolist(const Tensor& t) {
  Tensor host;
  {
    py::gil_scoped_release nogil;
    host = ops::to(t, kCpu, t.dtype());
  }
  return dispatch_all(host.dtype(), [&](auto tag) -> py::object {
    using T = typename decltype(tag)::type;
    if constexpr (is_reduced_float<T>::value) {
      const Tensor f = ops::to(host, kCpu, ScalarType::Float32);
      return build_list<float>(static_cast<const float*>(f.data_ptr()), f.sizes(), f.strides(), 0);
    } else if constexpr (std::is_same<T, Complex<Half>>::value) {
      const Tensor f = ops::to(host, kCpu, ScalarType::ComplexFloat);
      return build_list<Complex<float>>(static_cast<const Complex<float>*>(f.data_ptr()),
                                        f.sizes(), f.strides(), 0);
    } else {
      return build_list<T>(static_cast<const T*>(host.data_ptr()), host.sizes(), host.strides(),
                           0);
    }
  });
}

}  // namespace ember::bindings
