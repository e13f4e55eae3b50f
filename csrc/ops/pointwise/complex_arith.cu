// The complex kernels of the pointwise families on the GPU, except the
// transcendental unary functions (complex_math.cu): add, sub, mul, div, pow,
// eq, ne, where, neg, square, reciprocal, abs, isnan/isinf/isfinite, sgn,
// conj, angle. One flat kernel per complex compute type (complex64,
// complex128: 16-byte vector loads) and one dynamic kernel, per op.
#include "ops/elementwise.cuh"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/complex_functors.hpp"

namespace ember::ops::internal {

void binary_complex_cuda(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha) {
  CudaRunner r{it};
  dispatch_binary_complex(op, it, alpha, r);
}

void compare_complex_cuda(CompareOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_compare_complex(op, it, r);
}

void ternary_complex_cuda(TernaryOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_ternary_complex(op, it, r);
}

void unary_complex_cuda(UnaryOp op, const ElementwiseIter& it) {
  if (is_complex_math_op(op)) return unary_complex_math_cuda(op, it);
  CudaRunner r{it};
  dispatch_unary_complex_basic(op, it, r);
}

void complex_op_cuda(ComplexOp op, const ElementwiseIter& it) {
  CudaRunner r{it};
  dispatch_complex_op(op, it, r);
}

}  // namespace ember::ops::internal
