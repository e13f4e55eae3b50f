// Tensor's view methods (no copies) and the methods that copy only when they
// must (reshape, flatten, contiguous), with torch's argument forms:
// x.view(2, 3) and x.view((2, 3)), x.permute(1, 0) and x.permute([1, 0]).
#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {

py::tuple to_tuple(std::vector<Tensor> ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = py::cast(std::move(ts[i]));
  return out;
}

// dims given as f(0, 1), f((0, 1)) or f([0, 1]).
std::vector<int64_t> dims_arg(py::handle obj, const char* fn, const char* arg) {
  if (PyTuple_Check(obj.ptr()) || PyList_Check(obj.ptr())) return int_list_arg(obj, fn, arg);
  return {int_arg(obj, fn, arg)};
}

Tensor copying(const std::function<Tensor()>& f) {
  py::gil_scoped_release nogil;
  return f();
}

// torch 2.11's UserWarnings (a warning turned into an error by the filters
// raises).
void warn(const std::string& msg) {
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

// T, H, mT and mH of a 0-d tensor: the identity there, deprecated.
void warn_0d(const Tensor& t, const char* attr, const char* advice) {
  if (t.dim() == 0) warn(detail::str("Tensor.", attr, " is deprecated on 0-D tensors. ", advice));
}

constexpr const char* kIdentity = "This function is the identity in these cases.";
constexpr const char* kConj = "Consider using x.conj().";

// Tensor.mT / Tensor.mH: the tensor itself for 0-d inputs (as torch), the
// last two dims swapped otherwise (1-D inputs raise).
py::object matrix_t(py::object self, const char* attr, const char* advice) {
  const Tensor& t = tensor_arg(self);
  if (t.dim() == 0) {
    warn_0d(t, attr, advice);
    return self;
  }
  return py::cast(autograd::matrix_transpose(t, attr));
}

}  // namespace

void bind_tensor_views(py::class_<Tensor>& cls) {
  cls.def("view", [](const Tensor& t, py::args args) {
    if (args.size() == 1 && is_dtype_like(args[0])) return autograd::view_dtype(t, dtype_from_py(args[0]));
    return autograd::view(t, sizes_from_args(args, "view", "size"));
  });
  cls.def("view_as", [](const Tensor& t, const Tensor& o) { return autograd::view(t, o.sizes()); },
          py::arg("other"));
  cls.def("reshape", [](const Tensor& t, py::args args) {
    const Shape s = sizes_from_args(args, "reshape", "shape");
    return copying([&] { return autograd::reshape(t, s); });
  });
  cls.def(
      "reshape_as",
      [](const Tensor& t, const Tensor& o) { return copying([&] { return autograd::reshape(t, o.sizes()); }); },
      py::arg("other"));
  cls.def(
      "flatten",
      [](const Tensor& t, int64_t start, int64_t end) {
        return copying([&] { return autograd::flatten(t, start, end); });
      },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  cls.def(
      "contiguous",
      [](py::object self, py::handle) -> py::object {
        const Tensor& t = tensor_arg(self);
        if (t.is_contiguous()) return self;
        return py::cast(copying([&] { return autograd::contiguous(t); }));
      },
      py::arg("memory_format") = py::none());
  cls.def(
      "clone", [](const Tensor& t, py::handle) { return copying([&] { return autograd::clone(t); }); },
      py::kw_only(), py::arg("memory_format") = py::none());
  cls.def(
      "squeeze",
      [](const Tensor& t, py::handle dim) {
        if (dim.is_none()) return autograd::squeeze(t);
        return autograd::squeeze(t, dims_arg(dim, "squeeze", "dim"));
      },
      py::arg("dim") = py::none());
  cls.def(
      "squeeze_",
      [](py::object self, py::handle dim) {
        Tensor& t = tensor_arg(self);
        const Tensor v = dim.is_none() ? autograd::squeeze(t) : autograd::squeeze(t, dims_arg(dim, "squeeze_", "dim"));
        autograd::set_metadata_inplace(t, v);
        return self;
      },
      py::arg("dim") = py::none());
  cls.def("unsqueeze", &autograd::unsqueeze, py::arg("dim"));
  cls.def(
      "unsqueeze_",
      [](py::object self, int64_t dim) {
        Tensor& t = tensor_arg(self);
        const Tensor v = autograd::unsqueeze(t, dim);
        autograd::set_metadata_inplace(t, v);
        return self;
      },
      py::arg("dim"));
  cls.def("permute", [](const Tensor& t, py::args args) {
    return autograd::permute(t, sizes_from_args(args, "permute", "dims"));
  });
  cls.def("transpose", &autograd::transpose, py::arg("dim0"), py::arg("dim1"));
  cls.def("swapaxes", &autograd::transpose, py::arg("axis0"), py::arg("axis1"));
  cls.def("swapdims", &autograd::transpose, py::arg("dim0"), py::arg("dim1"));
  cls.def(
      "transpose_",
      [](py::object self, int64_t d0, int64_t d1) {
        Tensor& t = tensor_arg(self);
        const Tensor v = autograd::transpose(t, d0, d1);
        autograd::set_metadata_inplace(t, v);
        return self;
      },
      py::arg("dim0"), py::arg("dim1"));
  cls.def("t", &autograd::t_2d);
  cls.def("t_", [](py::object self) {
    Tensor& t = tensor_arg(self);
    const Tensor v = autograd::t_2d(t);
    autograd::set_metadata_inplace(t, v);
    return self;
  });
  cls.def_property_readonly("T", [](const Tensor& t) {
    warn_0d(t, "T", kIdentity);
    if (t.dim() != 0 && t.dim() != 2) {
      warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
           "deprecated and it will throw an error in a future release. Consider `x.mT` to "
           "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
           "reverse the dimensions of a tensor.");
    }
    return autograd::reverse_dims(t);
  });
  cls.def_property_readonly("mT", [](py::object self) { return matrix_t(self, "mT", kIdentity); });
  // H and mH conjugate complex tensors (a materialised conjugate: ember has no conjugate
  // bit); for real dtypes the conjugate is a no-op and they are views.
  cls.def_property_readonly("H", [](py::object self) -> py::object {
    const Tensor& t = tensor_arg(self);
    if (t.dim() == 0) {
      warn_0d(t, "H", kConj);
      return self;
    }
    EMBER_CHECK(t.dim() == 2, "tensor.H is only supported on matrices (2-D tensors). Got ",
                t.dim(), "-D tensor.",
                t.dim() > 2 ? " For batches of matrices, consider using tensor.mH" : "");
    Tensor r = autograd::reverse_dims(t);
    return py::cast(is_complex(t.dtype()) ? autograd::conj(r) : r);
  });
  cls.def_property_readonly("mH", [](py::object self) -> py::object {
    py::object r = matrix_t(self, "mH", kConj);
    const Tensor& t = tensor_arg(r);
    return is_complex(t.dtype()) ? py::cast(autograd::conj(t)) : r;
  });
  cls.def(
      "movedim",
      [](const Tensor& t, py::handle src, py::handle dst) {
        return autograd::movedim(t, dims_arg(src, "movedim", "source"), dims_arg(dst, "movedim", "destination"));
      },
      py::arg("source"), py::arg("destination"));
  cls.def("expand", [](const Tensor& t, py::args args) {
    return autograd::expand(t, sizes_from_args(args, "expand", "size"));
  });
  cls.def("expand_as", [](const Tensor& t, const Tensor& o) { return autograd::expand(t, o.sizes()); },
          py::arg("other"));
  cls.def(
      "narrow",
      [](const Tensor& t, int64_t dim, py::handle start, int64_t length) {
        return autograd::narrow(t, dim, int_arg(start, "narrow", "start"), length);
      },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  cls.def(
      "split",
      [](const Tensor& t, py::handle size, int64_t dim) {
        if (PyList_Check(size.ptr()) || PyTuple_Check(size.ptr())) {
          return to_tuple(autograd::split_with_sizes(t, int_list_arg(size, "split", "split_size"), dim));
        }
        return to_tuple(autograd::split(t, int_arg(size, "split", "split_size"), dim));
      },
      py::arg("split_size"), py::arg("dim") = 0);
  cls.def(
      "chunk", [](const Tensor& t, int64_t chunks, int64_t dim) { return to_tuple(autograd::chunk(t, chunks, dim)); },
      py::arg("chunks"), py::arg("dim") = 0);
  cls.def(
      "unbind", [](const Tensor& t, int64_t dim) { return to_tuple(autograd::unbind(t, dim)); },
      py::arg("dim") = 0);
  cls.def(
      "select",
      [](const Tensor& t, int64_t dim, py::handle index) {
        return autograd::select(t, dim, int_arg(index, "select", "index"));
      },
      py::arg("dim"), py::arg("index"));
  cls.def("diagonal", &autograd::diagonal, py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
  cls.def(
      "as_strided",
      [](const Tensor& t, py::handle size, py::handle stride, py::handle offset) {
        std::optional<int64_t> off;
        if (!offset.is_none()) off = int_arg(offset, "as_strided", "storage_offset");
        return autograd::as_strided(t, int_list_arg(size, "as_strided", "size"),
                          int_list_arg(stride, "as_strided", "stride"), off);
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  cls.def(
      "as_strided_",
      [](py::object self, py::handle size, py::handle stride, py::handle offset) {
        Tensor& t = tensor_arg(self);
        std::optional<int64_t> off;
        if (!offset.is_none()) off = int_arg(offset, "as_strided_", "storage_offset");
        const Tensor v = autograd::as_strided(t, int_list_arg(size, "as_strided_", "size"),
                                              int_list_arg(stride, "as_strided_", "stride"), off);
        autograd::set_metadata_inplace(t, v);
        return self;
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
}

}  // namespace ember::bindings
