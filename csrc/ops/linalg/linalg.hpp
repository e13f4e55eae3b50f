// The factorizations and solvers under ember.linalg, one LAPACK-shaped core
// per routine, on the CPU (ops/linalg/lapack_api: OpenBLAS's LAPACK, called
// from C++) and the GPU (ops/linalg/cusolver_api: cuSOLVER, and cuBLAS's
// batched calls where they are faster).
//
// Conventions (the Python layer, ember/linalg.py, prepares the operands):
// - Matrices are "batched column-major": shape (..., m, n) whose .mT is
//   contiguous (strides (..., m*n, 1, m)), LAPACK's order; every operand of a
//   call has the same batch dims. The `_`-suffixed cores overwrite them.
// - dtype float32, float64, complex64 or complex128 (the CPU's c/z routines; the
//   GPU cores take float32/float64 only: ember.linalg factors complex CUDA
//   operands on the host), all operands alike, on one device. `trans` means
//   the conjugate transpose for complex types (LAPACK's 'C', torch's adjoint).
// - info tensors are int32 (batch...) on the matrices' device: LAPACK's info
//   for each matrix (0: success, >0: the routine's failure index), written
//   without a host sync, so the _ex functions never synchronise.
// - Pivots are int32, 1-based, as LAPACK's and torch's.
#pragma once

#include <string>
#include <tuple>

#include "tensor/tensor.hpp"

namespace ember::ops::linalg {

// LU with partial pivoting, A (m x n) overwritten by L\U. -> (pivots (..., min(m,n)), info).
std::tuple<Tensor, Tensor> lu_factor_(const Tensor& A);
// B (n x nrhs) overwritten by A^{-1} B (trans: A^{-T} B) from lu_factor_'s result.
void lu_solve_(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool trans);
// Cholesky: the `upper` (or lower) triangle of A is overwritten by the factor;
// the other triangle is left as it was. -> info.
Tensor cholesky_(const Tensor& A, bool upper);
// B overwritten by A^{-1} B, A = L L^T (or U^T U) from cholesky_.
void cholesky_solve_(const Tensor& L, const Tensor& B, bool upper);
// B overwritten by op(A)^{-1} B (left) or B op(A)^{-1} (right), A triangular.
void triangular_solve_(const Tensor& A, const Tensor& B, bool upper, bool left, bool trans,
                       bool unitriangular);
// Householder QR: A overwritten by R and the reflectors. -> tau (..., min(m,n)).
Tensor geqrf_(const Tensor& A);
// A (m x n, n <= m, holding >= k = tau.size(-1) reflectors) overwritten by the
// first n columns of Q = H_1 ... H_k.
void orgqr_(const Tensor& A, const Tensor& tau);
// C overwritten by op(Q) C (left) or C op(Q), Q from A's reflectors and tau.
void ormqr_(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool trans);
// Symmetric eigendecomposition from A's `upper` (or lower) triangle: A is
// overwritten by the eigenvectors when `vectors`. -> (eigenvalues ascending, info).
std::tuple<Tensor, Tensor> syevd_(const Tensor& A, bool upper, bool vectors);
// SVD, A destroyed. -> (U (m x ucols), S (min(m,n)), Vh (vrows x n), info);
// U and Vh are empty tensors when !vectors. full: ucols = m, vrows = n, else k.
std::tuple<Tensor, Tensor, Tensor, Tensor> svd_(const Tensor& A, bool full, bool vectors);
// Nonsymmetric eigenproblem on the CPU (geev), A (n x n) destroyed. -> (eigenvalues
// (..., n) and, when `vectors`, right eigenvectors (..., n, n) column-major, both
// complex (complex64 for float32 and complex64 input, complex128 otherwise), LAPACK's
// normalisation: unit 2-norm, largest component real; info). V is undefined when
// !vectors.
std::tuple<Tensor, Tensor, Tensor> geev_(const Tensor& A, bool vectors);
// Least squares on the CPU, LAPACK's drivers "gels", "gelsy", "gelsd", "gelss":
// B (max(m,n) x nrhs) overwritten, X in its first n rows. -> (rank int64 (...), or
// empty for gels; singular values (..., min(m,n)) for gelsd/gelss, else empty; info).
std::tuple<Tensor, Tensor, Tensor> lstsq_(const Tensor& A, const Tensor& B,
                                          const std::string& driver, double rcond);
// Bunch-Kaufman LDL^T (CPU): A overwritten. -> (pivots (..., n), info).
// Complex: symmetric (L D L^T), or Hermitian (L D L^H) when `hermitian`.
std::tuple<Tensor, Tensor> ldl_factor_(const Tensor& A, bool upper, bool hermitian);
void ldl_solve_(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool upper,
                bool hermitian);

// What the CPU routines run on (the library's file), for ember's config.
std::string lapack_library();

namespace internal {
// The GPU's cores (linalg_cuda.cpp), called by the functions above.
std::tuple<Tensor, Tensor> lu_factor_cuda(const Tensor& A);
void lu_solve_cuda(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool trans);
Tensor cholesky_cuda(const Tensor& A, bool upper);
void cholesky_solve_cuda(const Tensor& L, const Tensor& B, bool upper);
void triangular_solve_cuda(const Tensor& A, const Tensor& B, bool upper, bool left, bool trans,
                           bool unitriangular);
Tensor geqrf_cuda(const Tensor& A);
void orgqr_cuda(const Tensor& A, const Tensor& tau);
void ormqr_cuda(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool trans);
std::tuple<Tensor, Tensor> syevd_cuda(const Tensor& A, bool upper, bool vectors);
std::tuple<Tensor, Tensor, Tensor, Tensor> svd_cuda(const Tensor& A, bool full, bool vectors);
bool cusolver_loaded() noexcept;
}  // namespace internal

}  // namespace ember::ops::linalg
