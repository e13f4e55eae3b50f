// ember.dtype and its singletons (ember.float32, ember.float, ...), the default
// dtype, and ember.finfo / ember.iinfo.
#include <cstdio>
#include <string>

#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

// One Python object per dtype, created at import and never freed, so that
// `x.dtype is ember.float32` holds and parsing a dtype is a pointer compare.
PyObject* g_dtypes[kNumScalarTypes] = {};

std::string repr_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

struct FInfoPy {
  ScalarType type;
  FInfo info;
};
struct IInfoPy {
  ScalarType type;
  IInfo info;
};

ScalarType dtype_or_default(py::handle obj) {
  return obj.is_none() ? default_dtype() : dtype_from_py(obj);
}

}  // namespace

py::object dtype_to_py(ScalarType t) {
  return py::reinterpret_borrow<py::object>(g_dtypes[static_cast<int>(t)]);
}

bool is_dtype_like(py::handle obj) {
  PyObject* p = obj.ptr();
  for (PyObject* d : g_dtypes) {
    if (p == d) return true;
  }
  return p == reinterpret_cast<PyObject*>(&PyFloat_Type) ||
         p == reinterpret_cast<PyObject*>(&PyLong_Type) ||
         p == reinterpret_cast<PyObject*>(&PyBool_Type);
}

ScalarType dtype_from_py(py::handle obj) {
  PyObject* p = obj.ptr();
  for (int i = 0; i < kNumScalarTypes; ++i) {
    if (p == g_dtypes[i]) return static_cast<ScalarType>(i);
  }
  if (p == reinterpret_cast<PyObject*>(&PyFloat_Type)) return ScalarType::Float64;
  if (p == reinterpret_cast<PyObject*>(&PyLong_Type)) return ScalarType::Int64;
  if (p == reinterpret_cast<PyObject*>(&PyBool_Type)) return ScalarType::Bool;
  throw TypeError(detail::str(
      "Expected a dtype such as ember.float32 (or Python's float, int or bool), got ",
      type_name(obj), " ",
      py::repr(obj).cast<std::string>()));
}

std::optional<ScalarType> optional_dtype(py::handle obj) {
  if (obj.is_none()) return std::nullopt;
  return dtype_from_py(obj);
}

void bind_dtype(py::module_& m) {
  auto cls = py::class_<DType>(m, "dtype", R"doc(
An element type, like torch.dtype: ember.bool, uint8, int8, int16, int32, int64,
float16, bfloat16, float32, float64, complex32, complex64, complex128 (and torch's
aliases ember.half, float, double, short, int, long, chalf, cfloat, cdouble).
Each is a singleton: compare with ``is`` or ``==``.
)doc");
  cls.def_property_readonly("is_floating_point",
                            [](const DType& d) { return is_floating(d.type); })
      .def_property_readonly("is_complex", [](const DType& d) { return is_complex(d.type); })
      .def_property_readonly("is_signed", [](const DType& d) { return is_signed(d.type); })
      .def_property_readonly("itemsize", [](const DType& d) { return element_size(d.type); })
      .def("to_real", [](const DType& d) { return dtype_to_py(to_real_type(d.type)); },
           "The dtype of this dtype's real parts (complex64 -> float32); itself for real dtypes.")
      .def(
          "to_complex",
          [](const DType& d) {
            EMBER_CHECK(is_floating(d.type) || is_complex(d.type),
                        "Unknown Complex ScalarType for ", torch_scalar_name(d.type));
            return dtype_to_py(to_complex_type(d.type));
          },
          "The complex dtype with parts of this floating dtype (float32 -> complex64).")
      .def("__repr__", [](const DType& d) { return std::string("ember.") + dtype_name(d.type); })
      .def("__str__", [](const DType& d) { return std::string("ember.") + dtype_name(d.type); })
      .def("__reduce__", [](const DType& d) { return std::string(dtype_name(d.type)); });
  cls.attr("__module__") = "ember";

  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    py::object obj = py::cast(DType{t});
    g_dtypes[i] = obj.release().ptr();  // immortal
    m.attr(dtype_name(t)) = dtype_to_py(t);
  }
  for (const char* alias :
       {"half", "float", "double", "short", "int", "long", "chalf", "cfloat", "cdouble"}) {
    m.attr(alias) = dtype_to_py(dtype_from_name(alias));
  }

  m.def(
      "get_default_dtype", []() { return dtype_to_py(default_dtype()); },
      "The dtype of tensors made from Python floats (ember.float32 unless changed).");
  m.def(
      "set_default_dtype", [](py::handle d) { set_default_dtype(dtype_from_py(d)); },
      py::arg("d"), "Sets the default floating-point dtype (a floating ember.dtype).");
  m.def(
      "promote_types", [](py::handle a, py::handle b) {
        return dtype_to_py(promote_types(dtype_from_py(a), dtype_from_py(b)));
      },
      py::arg("type1"), py::arg("type2"), "torch.promote_types: the smallest dtype both fit in.");

  auto finfo_cls = py::class_<FInfoPy>(m, "finfo", R"doc(
Machine limits of a floating-point dtype, like torch.finfo: bits, eps, max, min,
tiny (= smallest_normal), resolution, dtype. ``finfo()`` describes the default dtype.
)doc");
  finfo_cls
      .def(py::init([](py::handle d) {
             const ScalarType t = dtype_or_default(d);
             return FInfoPy{to_real_type(t), finfo(t)};  // a complex dtype's parts
           }),
           py::arg("type") = py::none())
      .def_property_readonly("bits", [](const FInfoPy& f) { return f.info.bits; })
      .def_property_readonly("eps", [](const FInfoPy& f) { return f.info.eps; })
      .def_property_readonly("max", [](const FInfoPy& f) { return f.info.max; })
      .def_property_readonly("min", [](const FInfoPy& f) { return f.info.min; })
      .def_property_readonly("tiny", [](const FInfoPy& f) { return f.info.tiny; })
      .def_property_readonly("smallest_normal", [](const FInfoPy& f) { return f.info.tiny; })
      .def_property_readonly("resolution", [](const FInfoPy& f) { return f.info.resolution; })
      .def_property_readonly("dtype", [](const FInfoPy& f) { return dtype_name(f.type); })
      .def("__repr__", [](const FInfoPy& f) {
        const FInfo& i = f.info;
        return detail::str("finfo(resolution=", repr_g(i.resolution), ", min=", repr_g(i.min),
                           ", max=", repr_g(i.max), ", eps=", repr_g(i.eps),
                           ", smallest_normal=", repr_g(i.tiny), ", tiny=", repr_g(i.tiny),
                           ", dtype=", dtype_name(f.type), ")");
      });
  finfo_cls.attr("__module__") = "ember";

  auto iinfo_cls = py::class_<IInfoPy>(m, "iinfo", R"doc(
Limits of an integer dtype, like torch.iinfo: bits, max, min, dtype.
)doc");
  iinfo_cls
      .def(py::init([](py::handle d) {
             const ScalarType t = dtype_from_py(d);
             return IInfoPy{t, iinfo(t)};
           }),
           py::arg("type"))
      .def_property_readonly("bits", [](const IInfoPy& f) { return f.info.bits; })
      .def_property_readonly("max", [](const IInfoPy& f) { return f.info.max; })
      .def_property_readonly("min", [](const IInfoPy& f) { return f.info.min; })
      .def_property_readonly("dtype", [](const IInfoPy& f) { return dtype_name(f.type); })
      .def("__repr__", [](const IInfoPy& f) {
        return detail::str("iinfo(min=", f.info.min, ", max=", f.info.max,
                           ", dtype=", dtype_name(f.type), ")");
      });
  iinfo_cls.attr("__module__") = "ember";
}

}  // namespace ember::bindings
