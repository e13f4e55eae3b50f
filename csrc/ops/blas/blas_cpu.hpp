// CPU matrix products through NumPy's BLAS (OpenBLAS/Accelerate/MKL, whatever
// the installed NumPy carries): ember hands numpy.matmul zero-copy views of
// its tensors. ops/ does not know Python, so the bindings register the bridge
// (bindings/linalg_numpy.cpp) at import; it imports NumPy on first use (not at
// `import ember`) and takes the GIL itself, so these functions may be called
// with or without it.
#pragma once

#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops::cpu_blas {

// out = alpha * (a @ b) + beta * out, NumPy's matmul semantics over the
// batch dims (a, b and out have the same batch shape; a and b may have zero
// strides). beta == 0: out is only written. Types: one of NumPy's (every
// ember dtype but bfloat16), the same for all three.
using MatmulBridge = void (*)(const Tensor& out, const Tensor& a, const Tensor& b,
                              const Scalar& alpha, const Scalar& beta);
void set_matmul_bridge(MatmulBridge bridge) noexcept;

// The CPU engine of ops::internal::gemm_into: float16/bfloat16 are computed
// in float32 and rounded once; RuntimeError when no bridge is registered.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
          const Scalar& beta);

}  // namespace ember::ops::cpu_blas
