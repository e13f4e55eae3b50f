// ember._C._nn's convolution and pooling: conv2d, max_pool2d, avg_pool2d,
// adaptive_avg_pool2d with torch.nn.functional's signatures. Arguments are
// parsed here (an int or a pair for each spatial parameter, padding='same' /
// 'valid'); the ops and their autograd nodes are C++ (autograd/formulas_conv.cpp,
// formulas_pool.cpp). The GIL is released around the work (the CPU GEMMs take
// it back themselves inside NumPy's matmul bridge).
#include <string>

#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

struct Pair {
  int64_t v[2];
};

// An int or a sequence of 1 or 2 ints; `message` for anything else.
Pair pair_arg(py::handle obj, const char* fn, const char* arg, const std::string& message) {
  if (!PySequence_Check(obj.ptr()) || PyUnicode_Check(obj.ptr())) {
    const int64_t v = int_arg(obj, fn, arg);
    return {{v, v}};
  }
  const Shape s = int_list_arg(obj, fn, arg);
  if (s.size() == 1) return {{s[0], s[0]}};
  if (s.size() != 2) throw Error(message);
  return {{s[0], s[1]}};
}

Pair conv_pair(py::handle obj, const char* arg) {
  std::string shown = py::cast<std::string>(py::str(obj));
  return pair_arg(obj, "conv2d", arg,
                  detail::str("expected ", arg, " to be a single integer value or a list of 2 "
                              "values to match the convolution dimensions, but got ", arg, "=",
                              shown));
}

Pair pool_pair(py::handle obj, const char* fn, const char* arg, const char* what) {
  return pair_arg(obj, fn, arg, detail::str(fn, ": ", arg, " must ", what));
}

ops::Conv2dParams conv_params(const Tensor& weight, py::handle stride, py::handle padding,
                              py::handle dilation, int64_t groups) {
  ops::Conv2dParams p;
  const Pair s = conv_pair(stride, "stride"), d = conv_pair(dilation, "dilation");
  for (int i = 0; i < 2; ++i) {
    p.stride[i] = s.v[i];
    p.dilation[i] = d.v[i];
  }
  p.groups = groups;
  if (PyUnicode_Check(padding.ptr())) {
    const std::string mode = py::cast<std::string>(padding);
    if (mode == "valid") return p;
    EMBER_CHECK(mode == "same", "Invalid padding string: '", mode, "'");
    EMBER_CHECK(p.stride[0] == 1 && p.stride[1] == 1,
                "padding='same' is not supported for strided convolutions");
    EMBER_CHECK(weight.dim() == 4, "conv2d: expected a 4-D weight, but got weight of size ",
                shape_str(weight.sizes()));
    for (int i = 0; i < 2; ++i) {
      // torch pads the extra row/column of an even kernel after the input.
      const int64_t total = p.dilation[i] * (weight.size(2 + i) - 1);
      p.pad_lo[i] = total / 2;
      p.pad_hi[i] = total - total / 2;
    }
    return p;
  }
  const Pair pad = conv_pair(padding, "padding");
  for (int i = 0; i < 2; ++i) p.pad_lo[i] = p.pad_hi[i] = pad.v[i];
  return p;
}

ops::Pool2dParams pool_params(const char* fn, py::handle kernel_size, py::handle stride,
                              py::handle padding, py::handle dilation, bool ceil_mode) {
  ops::Pool2dParams p;
  const Pair k = pool_pair(kernel_size, fn, "kernel_size", "either be a single int, or a tuple of two ints");
  bool no_stride = stride.is_none();
  if (!no_stride && PySequence_Check(stride.ptr()) && py::len(stride) == 0) no_stride = true;
  const Pair s = no_stride ? k
                           : pool_pair(stride, fn, "stride",
                                       "either be omitted, a single int, or a tuple of two ints");
  const Pair pad = pool_pair(padding, fn, "padding", "either be a single int, or a tuple of two ints");
  const Pair d = pool_pair(dilation, fn, "dilation", "be either a single int, or a tuple of two ints");
  for (int i = 0; i < 2; ++i) {
    p.kernel[i] = k.v[i];
    p.stride[i] = s.v[i];
    p.padding[i] = pad.v[i];
    p.dilation[i] = d.v[i];
  }
  p.ceil_mode = ceil_mode;
  return p;
}

// adaptive_avg_pool2d's output_size: an int, or two entries each an int or None.
Pair adaptive_size(py::handle obj) {
  if (!PySequence_Check(obj.ptr())) {
    const int64_t v = int_arg(obj, "adaptive_avg_pool2d", "output_size");
    return {{v, v}};
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  if (py::len(seq) != 2)
    throw ValueError(detail::str("adaptive_avg_pool2d: output_size must be an int or a tuple of "
                                 "two ints or None, but got ",
                                 py::cast<std::string>(py::str(obj))));
  Pair r;
  for (int i = 0; i < 2; ++i) {
    py::handle e = seq[i];
    r.v[i] = e.is_none() ? -1 : int_arg(e, "adaptive_avg_pool2d", "output_size");
    EMBER_CHECK(e.is_none() || r.v[i] >= 0, "adaptive_avg_pool2d: elements of output_size must "
                "be greater than or equal to 0 but received ", py::cast<std::string>(py::str(obj)));
  }
  return r;
}

}  // namespace

void bind_nn_conv(py::module_& m) {
  py::module_ nn = py::hasattr(m, "_nn") ? py::reinterpret_borrow<py::module_>(m.attr("_nn"))
                                         : m.def_submodule("_nn", "ember.nn.functional's core");
  nn.def(
      "conv2d",
      [](const Tensor& input, const Tensor& weight, py::handle bias, py::handle stride,
         py::handle padding, py::handle dilation, int64_t groups) {
        const Tensor b = optional_tensor(bias, "bias");
        const ops::Conv2dParams p = conv_params(weight, stride, padding, dilation, groups);
        py::gil_scoped_release nogil;
        return autograd::conv2d(input, weight, b, p);
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1,
      "2-D cross-correlation of input [N, C, H, W] (or [C, H, W]) with weight "
      "[O, C/groups, kH, kW], plus bias [O].");
  nn.def("_set_conv_workspace_limit", &ops::set_column_bytes_limit, py::arg("bytes"),
         "Test hook: the column buffer's byte limit (chunking); returns the previous one.");
  nn.def(
      "max_pool2d",
      [](const Tensor& input, py::handle kernel_size, py::handle stride, py::handle padding,
         py::handle dilation, bool ceil_mode, bool return_indices) -> py::object {
        const ops::Pool2dParams p =
            pool_params("max_pool2d", kernel_size, stride, padding, dilation, ceil_mode);
        std::pair<Tensor, Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = autograd::max_pool2d(input, p, return_indices);
        }
        if (return_indices) return py::make_tuple(r.first, r.second);
        return py::cast(r.first);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false,
      py::arg("return_indices") = false, "2-D max pooling (with the argmax indices on request).");
  nn.def(
      "avg_pool2d",
      [](const Tensor& input, py::handle kernel_size, py::handle stride, py::handle padding,
         bool ceil_mode, bool count_include_pad, py::handle divisor_override) {
        ops::Pool2dParams p =
            pool_params("avg_pool2d", kernel_size, stride, padding, py::int_(1), ceil_mode);
        p.count_include_pad = count_include_pad;
        if (!divisor_override.is_none()) {
          p.divisor_override = int_arg(divisor_override, "avg_pool2d", "divisor_override");
          EMBER_CHECK(p.divisor_override != 0, "divisor must be not zero");
        }
        py::gil_scoped_release nogil;
        return autograd::avg_pool2d(input, p);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
      py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
      py::arg("divisor_override") = py::none(), "2-D average pooling.");
  nn.def(
      "adaptive_avg_pool2d",
      [](const Tensor& input, py::handle output_size) {
        const Pair s = adaptive_size(output_size);
        py::gil_scoped_release nogil;
        return autograd::adaptive_avg_pool2d(input, s.v[0], s.v[1]);
      },
      py::arg("input"), py::arg("output_size"),
      "2-D average pooling to a given output size (None keeps the input's).");
}

}  // namespace ember::bindings
