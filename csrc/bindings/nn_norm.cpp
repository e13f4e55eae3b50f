// nn.functional's normalisation layers and embedding (ember._C._nn):
// batch_norm, layer_norm, group_norm, embedding, embedding_bag, embedding_renorm_. Argument checks that
// torch makes in Python (batch size, padding_idx, sparse) stay in
// ember/nn/functional.py; shapes, dtypes and devices are checked in C++.
#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/nn/embedding.hpp"
#include "ops/nn/embedding_bag.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

Shape normalized_shape_arg(py::handle obj) {
  if (PyLong_Check(obj.ptr()) || (!PySequence_Check(obj.ptr()) && py::hasattr(obj, "__index__"))) {
    return Shape{int_arg(obj, "layer_norm", "normalized_shape")};
  }
  return int_list_arg(obj, "layer_norm", "normalized_shape");
}

}  // namespace

void bind_nn_norm(py::module_& m) {
  py::module_ nn = py::hasattr(m, "_nn") ? py::reinterpret_borrow<py::module_>(m.attr("_nn"))
                                         : m.def_submodule("_nn", "ember.nn.functional's core");
  nn.def(
      "batch_norm",
      [](const Tensor& input, py::handle running_mean, py::handle running_var, py::handle weight,
         py::handle bias, bool training, double momentum, double eps) {
        return autograd::batch_norm(input, optional_tensor(running_mean, "running_mean"),
                                    optional_tensor(running_var, "running_var"),
                                    optional_tensor(weight, "weight"), optional_tensor(bias, "bias"),
                                    training, momentum, eps);
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"),
      py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("training") = false,
      py::arg("momentum") = 0.1, py::arg("eps") = 1e-5,
      "Batch normalisation over dim 1 of an (N, C, *) input, one autograd node; updates the "
      "running statistics in place when training.");
  nn.def(
      "layer_norm",
      [](const Tensor& input, py::handle normalized_shape, py::handle weight, py::handle bias,
         double eps) {
        return autograd::layer_norm(input, normalized_shape_arg(normalized_shape),
                                    optional_tensor(weight, "weight"), optional_tensor(bias, "bias"),
                                    eps);
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5,
      "Layer normalisation over the last len(normalized_shape) dims, one autograd node.");
  nn.def(
      "group_norm",
      [](const Tensor& input, int64_t num_groups, py::handle weight, py::handle bias, double eps) {
        return autograd::group_norm(input, num_groups, optional_tensor(weight, "weight"),
                                    optional_tensor(bias, "bias"), eps);
      },
      py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5,
      "Group normalisation of an (N, C, *) input over groups of channels, one autograd node.");
  nn.def(
      "embedding",
      [](const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq) {
        return autograd::embedding(weight, indices, padding_idx, scale_grad_by_freq);
      },
      py::arg("weight"), py::arg("indices"), py::arg("padding_idx") = -1,
      py::arg("scale_grad_by_freq") = false,
      "weight[indices] (one autograd node; padding_idx >= 0 gets no gradient).");
  nn.def(
      "embedding_bag",
      [](const Tensor& weight, const Tensor& indices, const Tensor& offsets, int64_t mode,
         py::handle per_sample_weights, bool include_last_offset, int64_t padding_idx) {
        const Tensor psw = optional_tensor(per_sample_weights, "per_sample_weights");
        std::vector<Tensor> r;
        {
          py::gil_scoped_release nogil;
          r = autograd::embedding_bag(weight, indices, offsets, mode, psw, include_last_offset,
                                      padding_idx);
        }
        return py::make_tuple(r[0], r[1], r[2].defined() ? py::cast(r[2]) : py::none());
      },
      py::arg("weight"), py::arg("indices"), py::arg("offsets"), py::arg("mode") = 0,
      py::arg("per_sample_weights") = py::none(), py::arg("include_last_offset") = false,
      py::arg("padding_idx") = -1,
      "Sum (mode 0), mean (1) or max (2) of the weight rows of each bag of 1-D indices "
      "(bags start at offsets); returns (output, bag_size, max_indices or None).");
  nn.def(
      "embedding_renorm_",
      [](const Tensor& weight, const Tensor& indices, double max_norm, double norm_type) {
        autograd::embedding_renorm_(weight, indices, max_norm, norm_type);
        return weight;
      },
      py::arg("weight"), py::arg("indices"), py::arg("max_norm"), py::arg("norm_type") = 2.0,
      "Scales the rows of weight named by indices to norm at most max_norm, in place.");
  nn.def(
      "_embedding_check_errors",
      [](py::handle device) { ops::check_embedding_errors(device_arg(device)); },
      py::arg("device"),
      "Raises the IndexError a finished GPU embedding call on `device` recorded, if any.");
}

}  // namespace ember::bindings
