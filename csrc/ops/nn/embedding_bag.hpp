// nn.functional.embedding_bag without autograd (autograd/formulas_embedding.cpp
// makes the node): per bag of indices, the sum, mean or per-feature max of the
// weight rows they name (times per_sample_weights for 'sum'), and the
// backward passes. Bags are given by offsets into a 1-D index tensor: bag b is
// [offsets[b], offsets[b + 1]) (the last one ends at the index count, or at
// the extra last offset with include_last_offset). Entries equal to
// padding_idx (>= 0) are skipped and not counted; an empty bag gives zeros.
//
// CPU: one task per range of bags forward (accumulating in double), one per
// range of features backward (no races). GPU: one block per bag whose threads
// cover the features (coalesced rows); backward adds each entry's row
// gradient with atomicAdd into a float32 (float64) buffer, converted at the end;
// per_sample_weights' gradient is one warp per entry (a dot product).
// Out-of-range indices: IndexError on the CPU before reading; the GPU records
// them in the device's IndexErrorRecord (as embedding) and skips them.
#pragma once

#include <cstdint>

#include "tensor/half.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class EmbeddingBagMode : int { Sum = 0, Mean = 1, Max = 2 };

struct EmbeddingBagForward {
  Tensor out;          // [B, D], weight's dtype
  Tensor indices;      // int64 contiguous [n]
  Tensor offsets;      // int64 contiguous, as given
  Tensor bag_size;     // int64 [B]: entries counted per bag
  Tensor max_indices;  // int64 [B, D] (mode max): the weight row of each maximum, -1 for none
};
EmbeddingBagForward embedding_bag_forward(const Tensor& weight, const Tensor& indices,
                                          const Tensor& offsets, EmbeddingBagMode mode,
                                          const Tensor& per_sample_weights,
                                          bool include_last_offset, int64_t padding_idx);
// The weight's gradient [V, D] in `dtype`.
Tensor embedding_bag_backward(const Tensor& grad_out, const EmbeddingBagForward& f,
                              const Tensor& per_sample_weights, int64_t num_weights,
                              EmbeddingBagMode mode, bool include_last_offset,
                              int64_t padding_idx, ScalarType dtype);
// per_sample_weights' gradient [n]: dot(grad_out[bag of i], weight[indices[i]]).
Tensor embedding_bag_psw_backward(const Tensor& grad_out, const Tensor& weight,
                                  const EmbeddingBagForward& f, bool include_last_offset,
                                  int64_t padding_idx, ScalarType dtype);

namespace internal {

// Bag b's entries [*start, *end) (both devices): offsets clamped to [0, n].
EMBER_HD_INLINE void eb_bag_range(const int64_t* off, int64_t off_len, int64_t n, int64_t b,
                                  int64_t* start, int64_t* end) {
  int64_t s = off[b];
  int64_t e = b + 1 < off_len ? off[b + 1] : n;
  s = s < 0 ? 0 : (s > n ? n : s);
  e = e < s ? s : (e > n ? n : e);
  *start = s;
  *end = e;
}

struct EbArgs {
  Tensor w, idx, off, psw, out, bag_size, max_idx, grad_out, grad_w, grad_psw;
  int64_t V, D, n, B, off_len;
  int mode;
  int64_t padding_idx;
};
void embedding_bag_fwd_cpu(const EbArgs& a);
void embedding_bag_bwd_cpu(const EbArgs& a);
void embedding_bag_psw_bwd_cpu(const EbArgs& a);
#if EMBER_WITH_CUDA
void embedding_bag_fwd_cuda(const EbArgs& a);
void embedding_bag_bwd_cuda(const EbArgs& a);
void embedding_bag_psw_bwd_cuda(const EbArgs& a);
#endif

}  // namespace internal

}  // namespace ember::ops
