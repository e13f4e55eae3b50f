// ember._C._index: the primitives python/ember/_composite_index.py builds
// torch's indexing functions from (gather, scatter and the index_* family,
// take, put, masked_*, nonzero): gather / scatter_ along a dim
// (ops/index/scatter_gather.hpp, with autograd), advanced indexing's index /
// index_put_, the nonzero coordinates, and the GPU index checks
// (runtime/device_error.hpp).
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "autograd/scatter.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/index/index.hpp"
#include "ops/index/scatter_gather.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_error.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

ops::IndexRule rule_arg(const std::string& op, bool wrap, int message) {
  EMBER_CHECK(message >= 0 && message <= static_cast<int>(ops::IndexMessage::Flat),
              "_index: bad message kind ", message);
  return ops::IndexRule{cuda::intern_op_name(op.c_str()), wrap,
                        static_cast<ops::IndexMessage>(message)};
}

}  // namespace

void bind_index_ops(py::module_& m) {
  py::module_ ix = m.def_submodule("_index", "ember's indexing primitives");
  ix.def(
      "gather",
      [](const Tensor& self, int64_t dim, const Tensor& index, const std::string& op, bool wrap,
         int message, std::optional<Tensor> out) {
        const ops::IndexRule r = rule_arg(op, wrap, message);
        py::gil_scoped_release nogil;
        return autograd::gather(self, dim, index, r, out ? *out : Tensor());
      },
      py::arg("self"), py::arg("dim"), py::arg("index"), py::arg("op") = "gather",
      py::arg("wrap") = false, py::arg("message") = 0, py::arg("out") = py::none(),
      "out[..., j, ...] = self[..., index[..., j, ...], ...] along dim (autograd-aware).");
  ix.def(
      "scatter_",
      [](const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int reduce,
         const std::string& op, bool wrap, int message, bool src_is_value) {
        EMBER_CHECK(reduce >= 0 && reduce <= 4, "_index.scatter_: bad reduce ", reduce);
        const ops::IndexRule r = rule_arg(op, wrap, message);
        {
          py::gil_scoped_release nogil;
          autograd::scatter_(self, dim, index, src, static_cast<ops::ScatterReduce>(reduce), r,
                             src_is_value);
        }
        return self;
      },
      py::arg("self"), py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce") = 0,
      py::arg("op") = "scatter", py::arg("wrap") = false, py::arg("message") = 0,
      py::arg("src_is_value") = false,
      "self[..., index[..., j, ...], ...] (op)= src[..., j, ...] in place; reduce: 0 none, "
      "1 add, 2 multiply, 3 max, 4 min.");
  ix.def(
      "check_index_range",
      [](const Tensor& index, int64_t size, int64_t dim, std::optional<int64_t> ignore,
         const std::string& op, bool wrap, int message) {
        ops::check_index_range(index, size, dim, ignore, rule_arg(op, wrap, message));
      },
      py::arg("index"), py::arg("size"), py::arg("dim") = 0, py::arg("ignore") = py::none(),
      py::arg("op") = "index", py::arg("wrap") = false, py::arg("message") = 0,
      "Raises (CPU) or records for the next synchronising call (GPU) an index outside "
      "[0, size).");
  ix.def(
      "masked_fill_",
      [](const Tensor& out, const Tensor& self, const Tensor& mask, const Tensor& value) {
        autograd::check_inplace(out);
        bool done = false;
        {
          py::gil_scoped_release nogil;
          done = ops::masked_fill_fast(out, self, mask, value);
        }
        if (done) autograd::mark_dirty(out);
        return done;
      },
      py::arg("out"), py::arg("self"), py::arg("mask"), py::arg("value"),
      "out = where(mask, value, self) in one pass, without autograd, where the fast path "
      "applies (contiguous CUDA self and out, a contiguous bool mask broadcast over self's "
      "leading dims, a 0-d value of self's dtype); False, nothing written, otherwise.");
  ix.def(
      "index",
      [](const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
        std::vector<Tensor> idx;
        for (const auto& t : indices) idx.push_back(t ? *t : Tensor());
        py::gil_scoped_release nogil;
        return autograd::index(self, idx);
      },
      py::arg("self"), py::arg("indices"), "self[indices] (advanced indexing, autograd-aware).");
  ix.def(
      "index_put_",
      [](const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
         const Tensor& values, bool accumulate) {
        std::vector<Tensor> idx;
        for (const auto& t : indices) idx.push_back(t ? *t : Tensor());
        {
          py::gil_scoped_release nogil;
          autograd::index_put_(self, idx, values, accumulate);
        }
        return self;
      },
      py::arg("self"), py::arg("indices"), py::arg("values"), py::arg("accumulate") = false,
      "self[indices] = values (or += with accumulate), in place, autograd-aware.");
  ix.def(
      "nonzero_columns",
      [](const Tensor& t) {
        py::gil_scoped_release nogil;
        return ops::nonzero_columns(t);
      },
      py::arg("t"), "The coordinates of t's nonzero elements: one int64 tensor per dim, on t's device.");
  ix.def(
      "check_index_errors", [](py::handle device) {
        const Device d = device_arg(device);
        if (d.is_cuda()) cuda::check_index_errors(d.index < 0 ? cuda::current_device() : d.index);
      },
      py::arg("device"),
      "Raises the IndexError a finished GPU kernel on `device` recorded (if any) and clears it.");
}

}  // namespace ember::bindings
