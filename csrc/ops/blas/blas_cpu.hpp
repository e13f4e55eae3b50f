// CPU matrix products: float32/float64 through the BLAS that ops/linalg/
// lapack_api opens at first use (sgemm/dgemm called from C++, one call per
// matrix of the batch: no Python, no NumPy call); float16/bfloat16 are
// computed in float32 and rounded once (torch also accumulates them in float32
// on the CPU); integer dtypes by a plain blocked loop in their own type
// (wrapping on overflow, as torch's).
#pragma once

#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops::cpu_blas {

// out = alpha * (a @ b) + beta * out over the batch dims (a, b and out have
// the same batch shape; a and b may have zero strides, any matrix strides).
// beta == 0: out is only written. One dtype for all three (not bool).
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
          const Scalar& beta);

}  // namespace ember::ops::cpu_blas
