// embedding as one node: the backward scatters the output gradient's rows
// into a dense weight gradient (ops/nn/embedding.hpp). Only the weight gets a
// gradient; the node saves the indices (as contiguous int64).
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/nn/embedding.hpp"
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

}  // namespace ember::autograd
