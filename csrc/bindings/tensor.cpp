// ember.Tensor: the bound C++ class, its attributes, conversions and the
// Python protocols (len, iter, bool, int, float, index, repr, indexing).
// Views are bound in tensor_views.cpp, creation functions in
// tensor_creation.cpp, NumPy/DLPack/CUDA Array Interface in tensor_interop.cpp.
//
// The GIL is released around every copy that may wait for a device or move
// many bytes.
#include <Python.h>

#include "autograd/functions.hpp"
#include "autograd/meta.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/overlap.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"
#include "tensor/iter.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {

PyTypeObject* g_tensor_type = nullptr;
PyObject* g_repr_fn = nullptr;  // ember._tensor_str._str, imported on first repr


py::object tensor_repr(py::handle self) {
  if (!g_repr_fn) {
    py::object fn = py::module_::import("ember._tensor_str").attr("_str");
    g_repr_fn = fn.release().ptr();
  }
  return py::reinterpret_borrow<py::object>(g_repr_fn)(self);
}

Tensor convert_to(const Tensor& t, const Device& device, ScalarType dtype, bool non_blocking,
               bool copy, bool pin = false) {
  warn_if_discarding_imag(t.dtype(), dtype);
  py::gil_scoped_release nogil;
  return autograd::to(t, device, dtype, non_blocking, copy, pin);
}

// self itself when the conversion changes nothing (as torch returns self).
py::object to_result(py::object self, Tensor result) {
  if (result.is_same(tensor_arg(self))) return self;
  return py::cast(std::move(result));
}

py::object tensor_to(py::object self_obj, py::args args, py::kwargs kwargs) {
  const Tensor& self = tensor_arg(self_obj);
  std::optional<Device> device;
  std::optional<ScalarType> dtype;
  bool non_blocking = false, copy = false;
  int bools = 0;
  for (py::handle a : args) {
    if (is_tensor(a)) {
      const Tensor& o = tensor_arg(a);
      device = o.device();
      dtype = o.dtype();
    } else if (PyBool_Check(a.ptr())) {
      (bools++ == 0 ? non_blocking : copy) = a.ptr() == Py_True;
    } else if (is_dtype_like(a)) {
      dtype = dtype_from_py(a);
    } else if (!a.is_none()) {
      device = device_arg(a);
    }
  }
  for (auto kv : kwargs) {
    const std::string k = py::cast<std::string>(kv.first);
    if (k == "dtype") {
      if (!kv.second.is_none()) dtype = dtype_from_py(kv.second);
    } else if (k == "device") {
      if (!kv.second.is_none()) device = device_arg(kv.second);
    } else if (k == "non_blocking") {
      non_blocking = py::cast<bool>(kv.second);
    } else if (k == "copy") {
      copy = py::cast<bool>(kv.second);
    } else if (k != "memory_format") {
      throw TypeError(detail::str("to() got an unexpected keyword argument '", k, "'"));
    }
  }
  return to_result(self_obj, convert_to(self, device.value_or(self.device()),
                                     dtype.value_or(self.dtype()), non_blocking, copy));
}

// The element as a real Python number: a complex one with a nonzero
// imaginary part raises (torch's checked conversion), else its real part.
py::object real_item(const Tensor& t, const char* cpp_type) {
  py::object v = tensor_item(t);
  if (!PyComplex_Check(v.ptr())) return v;
  EMBER_CHECK(PyComplex_ImagAsDouble(v.ptr()) == 0.0, "value cannot be converted to type ",
              cpp_type, " without overflow");
  return py::float_(PyComplex_RealAsDouble(v.ptr()));
}

void check_one_element(const Tensor& t) {
  if (t.numel() != 1) {
    throw Error(detail::str("a Tensor with ", t.numel(), " elements cannot be converted to Scalar"));
  }
}

void def_dtype_method(py::class_<Tensor>& cls, const char* name, ScalarType t) {
  cls.def(
      name,
      [t](py::object self) {
        const Tensor& s = tensor_arg(self);
        return to_result(self, convert_to(s, s.device(), t, false, false));
      },
      detail::str("self.to(ember.", dtype_name(t), ")").c_str());
}

Tensor legacy_constructor(py::args args) {
  if (args.size() == 0) return Tensor::empty({0}, default_dtype(), kCpu);
  if (args.size() == 1) {
    py::handle a = args[0];
    if (PyList_Check(a.ptr()) || PyTuple_Check(a.ptr()) || is_numpy_array(a) || is_tensor(a)) {
      return tensor_from_data(a, default_dtype(), kCpu, false);
    }
  }
  return Tensor::empty(sizes_from_args(args, "Tensor"), default_dtype(), kCpu);
}

}  // namespace

bool is_tensor(py::handle obj) {
  return obj.ptr() && PyObject_TypeCheck(obj.ptr(), g_tensor_type);
}

Tensor& tensor_arg(py::handle obj, const char* what) {
  if (!is_tensor(obj)) {
    throw TypeError(detail::str("expected an ember.Tensor as ", what, ", got ", type_name(obj)));
  }
  auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
  auto* t = static_cast<Tensor*>(inst->get_value_and_holder().value_ptr());
  if (!t || !t->defined()) {
    throw TypeError("the ember.Tensor was not initialised (a subclass must call "
                    "super().__init__)");
  }
  return *t;
}

void bind_tensor(py::module_& m) {
  init_size_type(m);
  py::class_<Tensor> cls(m, "Tensor", R"doc(
A strided view of memory on the CPU or a GPU, like torch.Tensor.
Create tensors with ember.tensor, ember.empty, ember.zeros, ... ; ``ember.Tensor(2, 3)``
makes an uninitialised tensor of the default dtype, ``ember.Tensor(data)`` copies data.
)doc");
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  cls.attr("__module__") = "ember";
  cls.def(py::init(&legacy_constructor));

  // ---- attributes ------------------------------------------------------------
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_to_py(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::handle dim) -> py::object {
            if (dim.is_none()) return size_to_py(t.sizes());
            return py::int_(t.size(int_arg(dim, "size", "dim")));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::handle dim) -> py::object {
            if (dim.is_none()) return ints_to_tuple(t.strides());
            return py::int_(t.stride(int_arg(dim, "stride", "dim")));
          },
          py::arg("dim") = py::none())
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_to_py(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device(); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("storage_offset", &Tensor::storage_offset)
      .def(
          "is_contiguous", [](const Tensor& t, py::handle) { return t.is_contiguous(); },
          py::arg("memory_format") = py::none())
      .def_property_readonly("is_cuda", &Tensor::is_cuda)
      .def_property_readonly("is_cpu", &Tensor::is_cpu)
      .def("is_pinned", [](const Tensor& t, py::handle) { return t.is_pinned(); },
           py::arg("device") = py::none())
      .def("element_size", &Tensor::itemsize)
      .def_property_readonly("itemsize", &Tensor::itemsize)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("data_ptr", [](const Tensor& t) {
        // 0 for a tensor without memory, as in torch.
        return reinterpret_cast<uintptr_t>(t.storage()->data() ? t.data_ptr() : nullptr);
      })
      .def("untyped_storage_ptr", [](const Tensor& t) {
        return reinterpret_cast<uintptr_t>(t.storage()->data());
      })
      .def("get_device", [](const Tensor& t) { return t.is_cuda() ? t.device().index : -1; })
      .def("is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); })
      .def("is_complex", [](const Tensor& t) { return is_complex(t.dtype()); })
      .def("is_signed", [](const Tensor& t) { return is_signed(t.dtype()); })
      .def("_is_view_of", [](const Tensor& a, const Tensor& b) {
        return a.storage().get() == b.storage().get();
      });

  // ---- moving and converting -----------------------------------------------
  cls.def("to", &tensor_to,
          "to(device=None, dtype=None, non_blocking=False, copy=False) or to(other): this tensor "
          "on another device and/or with another dtype; self when nothing changes.");
  cls.def(
      "cuda",
      [](py::object self, py::handle device, bool non_blocking) {
        Device d(DeviceType::CUDA);
        if (!device.is_none()) d = device_from_py(device);
        EMBER_CHECK(d.is_cuda(), "Invalid device, must be cuda device");
        const Tensor& t = tensor_arg(self);
        return to_result(self, convert_to(t, d, t.dtype(), non_blocking, false));
      },
      py::arg("device") = py::none(), py::arg("non_blocking") = false);
  cls.def("cpu", [](py::object self) {
    const Tensor& t = tensor_arg(self);
    return to_result(self, convert_to(t, kCpu, t.dtype(), false, false));
  });
  cls.def("pin_memory", [](py::object self) {
    const Tensor& t = tensor_arg(self);
    EMBER_CHECK(t.is_cpu(), "cannot pin '", t.device().str(), "' memory: only CPU tensors can "
                            "be pinned");
    return to_result(self, convert_to(t, kCpu, t.dtype(), false, false, /*pin=*/true));
  });
  def_dtype_method(cls, "float", ScalarType::Float32);
  def_dtype_method(cls, "half", ScalarType::Float16);
  def_dtype_method(cls, "bfloat16", ScalarType::BFloat16);
  def_dtype_method(cls, "double", ScalarType::Float64);
  def_dtype_method(cls, "long", ScalarType::Int64);
  def_dtype_method(cls, "int", ScalarType::Int32);
  def_dtype_method(cls, "short", ScalarType::Int16);
  def_dtype_method(cls, "char", ScalarType::Int8);
  def_dtype_method(cls, "byte", ScalarType::UInt8);
  def_dtype_method(cls, "bool", ScalarType::Bool);
  def_dtype_method(cls, "cfloat", ScalarType::ComplexFloat);
  def_dtype_method(cls, "cdouble", ScalarType::ComplexDouble);
  def_dtype_method(cls, "chalf", ScalarType::ComplexHalf);
  cls.def(
      "type_as", [](py::object self, const Tensor& other) {
        const Tensor& t = tensor_arg(self);
        return to_result(self, convert_to(t, t.device(), other.dtype(), false, false));
      },
      py::arg("other"));
  cls.def(
      "copy_",
      [](py::object self, py::handle src, bool non_blocking) {
        const Tensor& dst = tensor_arg(self);
        const Tensor& s = tensor_arg(src, "src");
        warn_if_discarding_imag(s.dtype(), dst.dtype());
        py::gil_scoped_release nogil;
        autograd::copy_(dst, s, non_blocking);
        return self;
      },
      py::arg("src"), py::arg("non_blocking") = false,
      "Copies src (broadcast, converted) into self; returns self.");
  cls.def(
      "fill_",
      [](py::object self, py::handle value) {
        const Tensor& t = tensor_arg(self);
        if (is_tensor(value) && autograd::requires_grad(tensor_arg(value))) {
          autograd::fill_(t, tensor_arg(value));
          return self;
        }
        const Scalar v = scalar_arg(value, "fill_", "value");
        // As torch: a number out of the dtype's range raises (int8 fill_(300));
        // a 0-d tensor's value converts unchecked. A tensor value on self's
        // device is copied by torch (which refuses an overlapping self); a
        // number, or a CPU value into a device tensor, is filled (no check).
        if (!is_tensor(value)) check_scalar_fits(v, t.dtype());
        if (is_tensor(value) && tensor_arg(value).device() == t.device()) {
          ops::check_no_internal_overlap(t);
        }
        py::gil_scoped_release nogil;
        autograd::fill_(t, v);
        return self;
      },
      py::arg("value"));
  cls.def("zero_", [](py::object self) {
    const Tensor& t = tensor_arg(self);
    py::gil_scoped_release nogil;
    autograd::zero_(t);
    return self;
  });
  cls.def(
      "__deepcopy__",
      [](const Tensor& t, py::handle) {
        EMBER_CHECK(autograd::is_leaf(t), "Only Tensors created explicitly by the user (graph "
                    "leaves) support the deepcopy protocol at the moment.  If you were "
                    "attempting to deepcopy a module, this may be because of a torch.nn.utils."
                    "weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001");
        Tensor out;
        {
          py::gil_scoped_release nogil;
          out = ops::clone(t);
        }
        if (autograd::requires_grad(t)) autograd::set_requires_grad(out, true);
        return out;
      },
      py::arg("memo"));
  cls.def("tolist", [](const Tensor& t) { return tensor_tolist(t); });
  cls.def("item", [](const Tensor& t) { return tensor_item(t); });
  cls.def(
      "record_stream",
      [](const Tensor& t, py::handle stream) {
        EMBER_CHECK(t.is_cuda(), "record_stream() needs a CUDA tensor, got a ", t.device().str(),
                    " tensor");
        EMBER_CHECK_TYPE(!stream.is_none(),
                         "record_stream(): argument 'stream' must be Stream, not NoneType");
        t.storage()->record_stream(stream_from_py(stream));
      },
      py::arg("stream"),
      "Marks the memory as used by work on `stream`, so that the allocator does not reuse it "
      "before that work finishes once the tensor is freed.");

  // ---- new_* (the dtype and device of self unless given) ----------------------
  auto new_like = [](const Tensor& self, const Shape& size, py::kwargs kw, const char* fn) {
    ScalarType dtype = self.dtype();
    Device device = self.device();
    bool pin = false, grad = false;
    for (auto item : kw) {
      const std::string k = py::cast<std::string>(item.first);
      if (k == "dtype") {
        if (!item.second.is_none()) dtype = dtype_from_py(item.second);
      } else if (k == "device") {
        if (!item.second.is_none()) device = device_arg(item.second);
      } else if (k == "pin_memory") {
        pin = py::cast<bool>(item.second);
      } else if (k == "requires_grad") {
        grad = py::cast<bool>(item.second);
      } else if (k != "layout") {
        throw TypeError(detail::str(fn, "() got an unexpected keyword argument '", k, "'"));
      }
    }
    return apply_requires_grad(Tensor::empty(size, dtype, device, pin && device.is_cpu()), grad);
  };
  cls.def("new_empty", [new_like](const Tensor& t, py::args size, py::kwargs kw) {
    return new_like(t, sizes_from_args(size, "new_empty"), kw, "new_empty");
  });
  cls.def("new_zeros", [new_like](const Tensor& t, py::args size, py::kwargs kw) {
    Tensor out = new_like(t, sizes_from_args(size, "new_zeros"), kw, "new_zeros");
    ops::zero_(out);
    return out;
  });
  cls.def("new_ones", [new_like](const Tensor& t, py::args size, py::kwargs kw) {
    Tensor out = new_like(t, sizes_from_args(size, "new_ones"), kw, "new_ones");
    ops::fill_(out, Scalar::from_int(1));
    return out;
  });
  cls.def(
      "new_full",
      [new_like](const Tensor& t, py::handle size, py::handle value, py::kwargs kw) {
        const Scalar v = scalar_arg(value, "new_full", "fill_value");
        Tensor out = new_like(t, int_list_arg(size, "new_full", "size"), kw, "new_full");
        ops::fill_(out, v);
        return out;
      },
      py::arg("size"), py::arg("fill_value"));
  cls.def(
      "new_tensor",
      [](const Tensor& t, py::handle data, py::handle dtype, py::handle device, bool grad) {
        return apply_requires_grad(
            tensor_from_data(data, dtype.is_none() ? t.dtype() : dtype_from_py(dtype),
                             device.is_none() ? t.device() : device_arg(device), false),
            grad);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);

  // ---- Python protocols --------------------------------------------------------
  cls.def("__repr__", [](py::handle self) { return tensor_repr(self); });
  cls.def("__len__", [](const Tensor& t) {
    if (t.dim() == 0) throw TypeError("len() of a 0-d tensor");
    return t.sizes()[0];
  });
  cls.def("__iter__", [](const Tensor& t) {
    if (t.dim() == 0) throw TypeError("iteration over a 0-d tensor");
    py::list items;
    for (Tensor& v : autograd::unbind(t, 0)) items.append(py::cast(std::move(v)));
    return items.attr("__iter__")();
  });
  cls.def("__bool__", [](const Tensor& t) {
    if (t.numel() == 0) throw Error("Boolean value of Tensor with no values is ambiguous");
    if (t.numel() > 1) throw Error("Boolean value of Tensor with more than one value is ambiguous");
    return PyObject_IsTrue(tensor_item(t).ptr()) == 1;
  });
  cls.def("__float__", [](const Tensor& t) {
    check_one_element(t);
    return py::float_(real_item(t, "double"));
  });
  // An exact int (a bool tensor's item is a Python bool: int(True) is 1, not True).
  auto exact_int = [](const Tensor& t) {
    PyObject* r = PyNumber_Long(real_item(t, "int64_t").ptr());
    if (!r) throw py::error_already_set();
    return py::reinterpret_steal<py::int_>(r);
  };
  cls.def("__int__", [exact_int](const Tensor& t) {
    check_one_element(t);
    return exact_int(t);
  });
  cls.def("__index__", [exact_int](const Tensor& t) {
    if (t.numel() != 1 || !is_integral(t.dtype(), true)) {
      throw TypeError("only integer tensors of a single element can be converted to an index");
    }
    return exact_int(t);
  });
  cls.def("__getitem__", [](const Tensor& t, py::handle index) { return tensor_getitem(t, index); });
  cls.def("__setitem__", [](const Tensor& t, py::handle index, py::handle value) {
    tensor_setitem(t, index, value);
  });

  bind_tensor_views(cls);
  bind_tensor_interop(cls, m);
  bind_tensor_dlpack(cls, m);
  m.def("is_tensor", [](py::handle obj) { return is_tensor(obj); }, py::arg("obj"));
  // The merged loop layout of (out, in) as the elementwise kernels see it:
  // (shape innermost-first, byte strides of out, byte strides of in). For tests.
  m.def("_iter_layout", [](const Tensor& out, const Tensor& in) {
    const IterLayout<2> it = make_iter<2>(out.sizes(), {&out, &in});
    Shape shape(it.shape, it.shape + it.ndim), s0(it.strides[0], it.strides[0] + it.ndim),
        s1(it.strides[1], it.strides[1] + it.ndim);
    return py::make_tuple(ints_to_tuple(shape), ints_to_tuple(s0), ints_to_tuple(s1));
  });
}

}  // namespace ember::bindings
