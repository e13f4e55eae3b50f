// nn.functional.embedding without autograd: a row gather, its backward (rows
// of the gradient accumulated per index, atomically on the GPU), and the
// in-place max_norm renormalisation.
//
// Out-of-range indices: the CPU raises IndexError before touching memory.
// The GPU must not wait for the host, so its kernels check every index,
// never read or write outside the weight (a bad index gives a zero output
// row and no gradient) and record the first bad index in the device's shared
// IndexErrorRecord (runtime/device_error.hpp): the next synchronising call or
// indexing call on that device raises IndexError naming it;
// check_embedding_errors(device) reads it explicitly.
#pragma once

#include <cstdint>

#include "tensor/tensor.hpp"

namespace ember::ops {

// weight (V, D) floating; indices int64/int32 of any shape. Returns the
// gathered rows, shape indices.shape + (D,), and the indices as a contiguous
// int64 tensor (what backward needs) through *indices_out when non-null.
Tensor embedding_forward(const Tensor& weight, const Tensor& indices, Tensor* indices_out);
// grad_weight (V, D) in `dtype`: rows of grad_out (indices.shape + (D,))
// summed per index, padding_idx's row (when >= 0) zero, each contribution
// divided by its index's count in the batch when scale_grad_by_freq.
Tensor embedding_backward(const Tensor& grad_out, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx, bool scale_grad_by_freq, ScalarType dtype);
// In place: each row of weight named by indices whose norm_type-norm is
// above max_norm is scaled by max_norm / (norm + 1e-7) (once, however often
// it is named).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);
// Raises the IndexError an earlier GPU embedding call on `device` recorded
// (if any has finished since) and clears it. No-op for CPU devices.
void check_embedding_errors(const Device& device);

namespace internal {
void embedding_fwd_cpu(const Tensor& w, const Tensor& idx, const Tensor& out);
void embedding_bwd_cpu(const Tensor& g, const Tensor& idx, const Tensor& gw, const Tensor& counts,
                       int64_t padding_idx);
void embedding_renorm_cpu(const Tensor& w, const Tensor& idx, double max_norm, double p);
#if EMBER_WITH_CUDA
void embedding_fwd_cuda(const Tensor& w, const Tensor& idx, const Tensor& out);
void embedding_bwd_cuda(const Tensor& g, const Tensor& idx, const Tensor& gw, bool scale_by_freq,
                        int64_t padding_idx);
void embedding_renorm_cuda(const Tensor& w, const Tensor& idx, double max_norm, double p);
void embedding_check_errors_cuda(int device);
#endif
}  // namespace internal

}  // namespace ember::ops
