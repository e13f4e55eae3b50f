// Matrix products with torch's names, shapes and errors: mm, bmm, matmul (with
// torch's 1-D and batch-broadcasting rules), mv, dot, vdot, outer, addmm,
// addmv, baddbmm. The autograd of issue 8 calls these from its backward
// formulas.
//
// - GPU: cuBLAS (ops/blas/cublas_gemm.hpp) for float32 (TF32 when allowed by
//   ops/blas/matmul_config.hpp), float64, float16 and bfloat16; integer and bool
//   dtypes raise like torch ("\"addmm_cuda\" not implemented for 'Long'").
//   Transposed and sliced operands go to cuBLAS through its transpose flags
//   and leading dimensions; batches through one strided-batched call when the
//   batch stride is uniform (0 for a broadcast operand), a few calls when the
//   batch dims do not merge; only layouts cuBLAS cannot express (neither
//   dim of a matrix with unit stride, or overlapping rows) are copied.
// - CPU: NumPy's matmul on zero-copy views (ops/blas/blas_cpu.hpp), so the BLAS
//   NumPy carries does the work; float16/bfloat16 are computed in float32.
//   Integer dtypes work; bool raises like torch.
// - Results are new contiguous tensors on the inputs' device. Work is queued
//   on the current stream of that device; nothing waits on the host.
#pragma once

#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor vdot(const Tensor& a, const Tensor& b);  // dot: ember has no complex dtypes
Tensor outer(const Tensor& a, const Tensor& b);

// beta * self + alpha * (a @ b); self broadcasts to the result. With beta == 0
// self is not read (NaN in it does not propagate), as in torch.
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha);
Tensor baddbmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha);

// The out= forms: `out` must already have the result's shape, dtype and
// device (RuntimeError otherwise); it may have any non-overlapping strides
// and is written directly when cuBLAS can express its layout.
void mm_out(const Tensor& out, const Tensor& a, const Tensor& b);
void bmm_out(const Tensor& out, const Tensor& a, const Tensor& b);
void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b);
void addmm_out(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b,
               const Scalar& beta, const Scalar& alpha);
// self += alpha * a @ b after self *= beta (Tensor.addmm_).
void addmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
            const Scalar& alpha);
void baddbmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
              const Scalar& alpha);

namespace internal {

// The engine under every product: out[..., m, n] = alpha * a[..., m, k] @
// b[..., k, n] + beta * out, where a, b and out have the same batch shape (a
// and b may be broadcast views with zero strides) and dtype, on one device.
// beta == 0: out is only written. Checks nothing but overlap of out.
void gemm_into(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
               const Scalar& beta);


#if EMBER_WITH_CUDA
// out *= beta on the GPU (the k == 0 case of addmm), matmul.cu.
void scale_cuda(const Tensor& out, double beta);
// out[i, j] = a[i] * b[j], matmul.cu.
void outer_cuda(const Tensor& out, const Tensor& a, const Tensor& b);
#endif

}  // namespace internal

}  // namespace ember::ops
