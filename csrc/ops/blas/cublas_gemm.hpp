// The cuBLAS calls behind every product: one column-major (batched) GEMM,
//   C[i] = alpha * op(A[i]) @ op(B[i]) + beta * C[i],   i < batch,
// with the operands given as pointer + leading dimension + transpose flag +
// batch stride, exactly what cuBLAS takes (row-major tensors are described
// as transposed column-major ones by ops/blas/matmul.cpp). The wrappers pick the
// dtype's compute type and the math mode from the precision settings of
// ops/blas/matmul_config.hpp, and run on the current stream of `device` (which the
// caller has made current).
#pragma once

#if EMBER_WITH_CUDA

#include <cstdint>

#include "tensor/dtype.hpp"

namespace ember::ops::blas {

struct GemmOperand {
  const void* ptr = nullptr;
  int64_t ld = 1;
  bool trans = false;
  int64_t batch_stride = 0;  // elements; 0 broadcasts one matrix to every batch
};

struct Gemm {
  ScalarType dtype = ScalarType::Float32;
  int64_t m = 0, n = 0, k = 0;  // C is m x n, op(A) m x k, op(B) k x n
  int64_t batch = 1;
  GemmOperand a, b;
  void* c = nullptr;
  int64_t ldc = 1;
  int64_t stride_c = 0;
  double alpha = 1.0, beta = 0.0;
};

// cublasGemmEx (batch == 1) or cublasGemmStridedBatchedEx, their _64 forms
// when a size or leading dimension exceeds int32. m, n, k > 0.
void gemm(int device, const Gemm& g);

// C = alpha * op(A) @ op(B) + bias, where bias (g.dtype, m elements,
// contiguous) is added to every column, fused into cublasLtMatmul with
// CUBLASLT_EPILOGUE_BIAS. g.beta must be 0. Returns false (having done
// nothing) when cuBLASLt offers no algorithm for the problem. Plans
// (descriptors and the heuristic's algorithm) are cached per thread, device
// and problem, pointer alignments included.
bool gemm_bias(int device, const Gemm& g, const void* bias);

// Small float32/float64 products (m * n * k <= kSmallGemm, one matrix) through
// cublasLtMatmul with a cached plan: the per-call host cost of a product is
// then one cuBLAS call. Returns false (having done nothing) for other problems.
constexpr int64_t kSmallGemm = int64_t(1) << 21;  // e.g. 128^3
bool gemm_small(int device, const Gemm& g);

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
