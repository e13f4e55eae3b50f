// embedding as one node: the backward scatters the output gradient's rows
// into a dense weight gradient (ops/nn/embedding.hpp). Only the weight gets a
// gradient; the node saves the indices (as contiguous int64).
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/nn/embedding.hpp"
#include "ops/nn/embedding_bag.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq) {
  Tensor idx;
  Tensor out = ops::embedding_forward(weight, indices, &idx);
  if (!needs_grad(weight)) return out;
  const int64_t V = weight.size(0);
  const ScalarType dtype = weight.dtype();
  auto node = record("EmbeddingBackward0", {&weight}, {&out},
                     [V, dtype, padding_idx, scale_grad_by_freq](FormulaNode& n,
                                                                 TensorList& g) -> TensorList {
                       EMBER_CHECK(!GradMode::is_enabled(),
                                   "embedding: double backward (backward with create_graph=True "
                                   "through embedding) is not supported by ember");
                       return {ops::embedding_backward(g[0], n.saved(0), V, padding_idx,
                                                       scale_grad_by_freq, dtype)};
                     });
  node->save(idx);
  return out;
}

void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  ops::embedding_renorm_(weight, indices, max_norm, norm_type);
  mark_dirty(weight);
}

std::vector<Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                  const Tensor& offsets, int64_t mode,
                                  const Tensor& per_sample_weights, bool include_last_offset,
                                  int64_t padding_idx) {
  const auto m = static_cast<ops::EmbeddingBagMode>(mode);
  const ops::EmbeddingBagForward f = ops::embedding_bag_forward(
      weight, indices, offsets, m, per_sample_weights, include_last_offset, padding_idx);
  std::vector<Tensor> result{f.out, f.bag_size, f.max_indices};
  if (!needs_grad(weight, per_sample_weights)) return result;
  const int64_t V = weight.size(0);
  const ScalarType wdtype = weight.dtype();
  const ScalarType pdtype = per_sample_weights.defined() ? per_sample_weights.dtype() : wdtype;
  auto node = record(
      "EmbeddingBagBackward0", {&weight, &per_sample_weights}, {&result[0]},
      [f, V, m, wdtype, pdtype, include_last_offset, padding_idx](FormulaNode& n,
                                                                TensorList& g) -> TensorList {
        EMBER_CHECK(!GradMode::is_enabled(),
                    "embedding_bag: double backward (backward with create_graph=True through "
                    "embedding_bag) is not supported by ember");
        const Tensor psw = n.saved(1);
        Tensor gw, gp;
        if (n.needs(0)) {
          gw = ops::embedding_bag_backward(g[0], f, psw, V, m, include_last_offset, padding_idx,
                                           wdtype);
        }
        if (n.needs(1)) {
          gp = ops::embedding_bag_psw_backward(g[0], n.saved(0), f, include_last_offset,
                                               padding_idx, pdtype);
        }
        return {gw, gp};
      });
  node->save(weight);
  node->save(per_sample_weights);
  return result;
}

}  // namespace ember::autograd
