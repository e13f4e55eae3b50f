// batch_norm and layer_norm without autograd: forward passes that return what
// backward needs, and fused backward passes (autograd/formulas_norm.cpp makes
// the nodes). Statistics are kept in float32 for float16/bfloat16/float32 data
// and in float64 for float64 data (the "accumulation dtype"); the CPU loops
// accumulate in double.
//
// GPU: layer_norm runs one block per row (the row is read once from global
// memory and kept in shared memory when it fits; two passes over it give the
// mean and the variance), batch_norm one reduction kernel over each channel's
// values (sum and sum of squares of x - pivot, split over several blocks per
// channel), one tiny per-channel kernel, one elementwise pass. Work is queued
// on the current stream of the input's device; nothing waits on the host.
#pragma once

#include <cstdint>

#include "tensor/tensor.hpp"

namespace ember::ops {

// float32, or float64 for float64 data.
ScalarType norm_acc_dtype(ScalarType t);

// ---- layer_norm --------------------------------------------------------------
struct LayerNormForward {
  Tensor out;   // input's shape and dtype
  Tensor x;     // the contiguous input (saved for backward)
  Tensor mean;  // [rows], accumulation dtype
  Tensor rstd;  // [rows]
};
// Checks shapes and dtypes with torch's messages; weight/bias may be undefined.
LayerNormForward layer_norm_forward(const Tensor& input, const Shape& normalized_shape,
                                    const Tensor& weight, const Tensor& bias, double eps);

struct NormGrads {
  Tensor input;         // input's dtype
  Tensor weight, bias;  // [numel of the parameter], accumulation dtype
};
// grad_out has the input's shape; x/mean/rstd are LayerNormForward's; weight
// may be undefined (the gradient of an absent weight is the one of ones).
NormGrads layer_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& rstd, const Tensor& weight,
                              int64_t normalized_numel, bool need_input, bool need_weight,
                              bool need_bias);

// ---- batch_norm ---------------------------------------------------------------
struct BatchNormForward {
  Tensor out;
  Tensor x;       // the contiguous input
  Tensor mean;    // [C], accumulation dtype: the statistics used
  Tensor invstd;  // [C]
};
// input (N, C, *). training: batch statistics, running_mean/var (when defined)
// updated in place; else the running statistics (which must be defined).
BatchNormForward batch_norm_forward(const Tensor& input, const Tensor& running_mean,
                                    const Tensor& running_var, const Tensor& weight,
                                    const Tensor& bias, bool training, double momentum,
                                    double eps);
NormGrads batch_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& mean,
                              const Tensor& invstd, const Tensor& weight, bool training,
                              bool need_input, bool need_weight, bool need_bias);

namespace internal {

// Contiguous operands; per-channel/per-row tensors in the accumulation dtype;
// undefined tensors are absent (null pointers in the kernels).
void layer_norm_fwd_cpu(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                        const Tensor& mean, const Tensor& rstd, int64_t N, double eps);
void layer_norm_bwd_cpu(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                        const Tensor& w, const Tensor& dx, const Tensor& dw, const Tensor& db,
                        int64_t N);
// x viewed as (N, C, S). Training when rm_or_null... see norm.cpp.
struct BnFwdArgs {
  Tensor x, w, b, rm, rv, y, mean, invstd;
  int64_t N, C, S;
  bool training;
  double momentum, eps;
};
struct BnBwdArgs {
  Tensor dy, x, mean, invstd, w, dx, dw, db;
  int64_t N, C, S;
  bool training;
};
void batch_norm_fwd_cpu(const BnFwdArgs& a);
void batch_norm_bwd_cpu(const BnBwdArgs& a);
#if EMBER_WITH_CUDA
void layer_norm_fwd_cuda(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y,
                         const Tensor& mean, const Tensor& rstd, int64_t N, double eps);
void layer_norm_bwd_cuda(const Tensor& dy, const Tensor& x, const Tensor& mean,
                         const Tensor& rstd, const Tensor& w, const Tensor& dx, const Tensor& dw,
                         const Tensor& db, int64_t N);
void batch_norm_fwd_cuda(const BnFwdArgs& a);
void batch_norm_bwd_cuda(const BnBwdArgs& a);
#endif

}  // namespace internal

}  // namespace ember::ops
