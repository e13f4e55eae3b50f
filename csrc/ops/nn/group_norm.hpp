// group_norm without autograd (autograd/formulas_norm.cpp makes the node):
// an (N, C, *) input, C split into G groups of D = C / G channels; each
// (sample, group) "row" of D * S values (S = the spatial size) is normalised
// by its mean and biased variance, then y = xhat * weight[c] + bias[c].
// instance_norm without running statistics is group_norm with G = C.
//
// Statistics are kept in the accumulation dtype (norm_acc_dtype: float32, or
// float64 for float64 data); the CPU loops accumulate in double.
//
// GPU: forward is one kernel, one block per row: shifted sums of the row
// (pivot = the row's first value, as batch_norm), then the output written in a
// second pass over the row (mostly from L2). Backward: one block per row
// computes, per channel of its group, sum(dy * w) and sum(dy * w * x), the
// row's coefficients, and dx in a second pass; it also writes the per-(n, c)
// sums sum(dy) and sum(dy * xhat), which a column kernel adds over N for
// dweight and dbias. Work is queued on the current stream; nothing waits on
// the host.
#pragma once

#include <cstdint>

#include "ops/nn/norm.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

struct GroupNormForward {
  Tensor out;   // input's shape and dtype
  Tensor x;     // the contiguous input (saved for backward)
  Tensor mean;  // [N, G], accumulation dtype
  Tensor rstd;  // [N, G]
};
// Checks shapes with torch's messages; weight/bias ([C]) may be undefined.
GroupNormForward group_norm_forward(const Tensor& input, int64_t groups, const Tensor& weight,
                                    const Tensor& bias, double eps);
// grad_out has the input's shape; x/mean/rstd are GroupNormForward's.
// Gradients of weight/bias are [C] in the accumulation dtype.
NormGrads group_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight, int64_t groups,
                              bool need_input, bool need_weight, bool need_bias);

namespace internal {

// Contiguous operands; x viewed as (N, G, D, S); w/b/mean/rstd/dw/db in the
// accumulation dtype; undefined tensors are absent.
struct GnArgs {
  Tensor x, dy, w, b, y, dx, mean, rstd, dw, db;
  int64_t N, G, D, S;
  double eps;
};
void group_norm_fwd_cpu(const GnArgs& a);
void group_norm_bwd_cpu(const GnArgs& a);
#if EMBER_WITH_CUDA
void group_norm_fwd_cuda(const GnArgs& a);
void group_norm_bwd_cuda(const GnArgs& a);
#endif

}  // namespace internal

}  // namespace ember::ops
