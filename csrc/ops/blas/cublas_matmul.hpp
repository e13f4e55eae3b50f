// From strided tensors to cuBLAS calls: the GPU engine of ops/blas/matmul.hpp.
//
// A row-major matrix is the transpose of a column-major one, so
//   C = A @ B  (C row-major)   is computed as   C^T = B^T @ A^T  (column-major),
// and a column-major C (a transposed out=) as C = A @ B directly. Each operand
// matrix is then described to cuBLAS by a transpose flag and a leading
// dimension: a matrix with unit stride along one dim and a stride >= the
// other dim's extent along the other needs no copy, whatever its offset
// (slices) or orientation (.t(), .mT). Only other layouts are copied.
//
// Batch dims of C, A and B (A and B broadcast with zero strides) are merged
// from the innermost outwards while each operand's strides stay uniform; the
// innermost merged group becomes one cublasGemmStridedBatchedEx call, the
// others a host loop of such calls. When that loop would exceed a few calls,
// A and B are made contiguous once instead (as torch's matmul does), which
// merges every batch dim into one call.
#pragma once

#if EMBER_WITH_CUDA

#include <vector>

#include "ops/blas/cublas_gemm.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops::internal {

// out[..., m, n] = alpha * a[..., m, k] @ b[..., k, n] + beta * out; see
// internal::gemm_into. k may be 0; m, n and the batch are non-empty.
void gemm_cuda(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta);

// out[m, n] = alpha * a @ b + bias[n] (bias broadcast along rows, contiguous,
// out's dtype), fused into cublasLtMatmul's bias epilogue. Returns false
// (having done nothing) when the layouts or cuBLASLt do not allow it; the
// caller then copies the bias into out and calls gemm_cuda with beta = 1.
bool gemm_bias_cuda(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                    double alpha);

// What gemm_cuda would ask cuBLAS for out = a @ b (no call is made; works on
// tensors of any device): the operands after the copies it would make, and
// the calls. temporary_out: it would compute into a temporary instead. For
// tests that check the layout logic against an emulation of column-major GEMM.
struct GemmPlan {
  bool temporary_out = false;
  Tensor a, b;
  std::vector<blas::Gemm> calls;
};
GemmPlan plan_gemm_for_testing(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace ember::ops::internal

#endif  // EMBER_WITH_CUDA
