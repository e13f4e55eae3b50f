// The complex kernels built ahead of time for the GPU: add, sub, mul, div,
// neg, abs and conj (one flat kernel per complex compute type, complex64 and
// complex128, and one dynamic kernel, per op). Every other complex op runs
// in a kernel compiled at first use (complex_jit.cpp).
#include "ops/elementwise.cuh"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/complex_functors.hpp"

namespace ember::ops::internal {

void binary_complex_cuda(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha) {
  CudaRunner r{it};
  if (!dispatch_binary_complex_aot(op, it, alpha, r)) binary_complex_jit(op, it);
}

void compare_complex_cuda(CompareOp op, const ElementwiseIter& it) {
  compare_complex_jit(op, it);
}

void ternary_complex_cuda(TernaryOp op, const ElementwiseIter& it) {
  ternary_complex_jit(op, it);
}

void unary_complex_cuda(UnaryOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  if (!dispatch_unary_complex_aot(op, it, r)) unary_complex_jit(op, it);
}

void complex_op_cuda(ComplexOp op, const ElementwiseIter& it) {
  if (op != ComplexOp::Conj) return complex_op_jit(op, it);
  CudaRunner r{it};
  dispatch_conj(it, r);
}

}  // namespace ember::ops::internal
