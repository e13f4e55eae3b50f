// Complex numbers in the pointwise families: which ops have complex kernels,
// the ops that exist for complex values only (sgn, conj, angle, complex,
// polar, real/imag views), and the entry points of the complex kernels that
// binary.cpp, unary.cpp, compare.cpp and ternary.cpp call for a complex
// common dtype.
//
// Complex kernels (complex64 and complex128, computed in Complex<float> and
// Complex<double>; complex32 computes in Complex<float> through the dynamic
// loops, rounding each result to float16 parts). On the CPU all are compiled
// ahead of time (the transcendental functions call std::complex's); on the
// GPU only add, sub, mul, div, neg, abs and conj are, and the others are
// compiled at first use through NVRTC (complex_jit.cpp), so that the build
// does not grow by a kernel per op and complex dtype:
//   binary: add, sub, mul, div, pow
//   compare: eq, ne
//   ternary: where
//   unary: neg, square, reciprocal, sqrt, rsqrt, exp, log, log2, log10, sin,
//          cos, tan, sinh, cosh, tanh, sigmoid, isnan, isinf, isfinite;
//          abs (a real result)
//   this file's: sgn, conj_physical, angle (real results)
// Every other elementwise op raises torch's "\"op_cpu\" not implemented for
// 'ComplexFloat'" (ops/elementwise.cpp checks it once for all).
//
// complex(re, im) and polar(abs, angle) write the parts through real views of
// the new complex tensor (tensor/complex_views.hpp), so they need no kernel of
// their own and take every floating dtype (float16 gives complex32).
#pragma once

#include "ops/elementwise.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/ternary.hpp"
#include "ops/pointwise/unary.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

// Whether an op has complex kernels (see above).
bool has_complex_kernel(BinaryOp op);
bool has_complex_kernel(UnaryOp op);
bool has_complex_kernel(CompareOp op);
bool has_complex_kernel(TernaryOp op);

// The elementwise ops of complex values that are not UnaryOps.
enum class ComplexOp : uint8_t {
  Sgn,   // z / |z| (0 for 0); sign for real inputs
  Conj,  // re - i im
  Angle, // atan2(im, re), a real result; for real inputs pi for x < 0, else 0 (NaN kept)
};

// torch.sgn: complex z / |z|; real dtypes: torch.sign.
Tensor sgn(const Tensor& x, const Tensor& out = Tensor(), bool inplace = false);
// torch.conj_physical: a new tensor with the conjugates; x itself for real
// dtypes (as torch), a copy into out= when given.
Tensor conj_physical(const Tensor& x, const Tensor& out = Tensor(), bool inplace = false);
// torch.conj: ember has no lazy conjugate bit, so this is conj_physical for
// complex tensors (a materialised copy; is_conj() is always False) and x
// itself for real ones.
Tensor conj(const Tensor& x);
// torch.angle: the argument of complex values in their parts' dtype; for real
// values pi where x < 0, 0 elsewhere, NaN kept (integers give the default dtype).
Tensor angle(const Tensor& x, const Tensor& out = Tensor());
// torch.complex(real, imag): both float16, float32 or float64 of one dtype,
// broadcast together.
Tensor complex(const Tensor& real, const Tensor& imag, const Tensor& out = Tensor());
// torch.polar(abs, angle) = abs * (cos(angle) + i sin(angle)).
Tensor polar(const Tensor& abs, const Tensor& angle, const Tensor& out = Tensor());

namespace internal {
void binary_complex_cpu(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha);
void unary_complex_cpu(UnaryOp op, const ElementwiseIter& it);
void compare_complex_cpu(CompareOp op, const ElementwiseIter& it);
void ternary_complex_cpu(TernaryOp op, const ElementwiseIter& it);
void complex_op_cpu(ComplexOp op, const ElementwiseIter& it);
#if EMBER_WITH_CUDA
// complex_arith.cu: the kernels built ahead of time (add, sub, mul, div,
// neg, abs, conj); every other op goes to the *_jit functions.
void binary_complex_cuda(BinaryOp op, const ElementwiseIter& it, const Scalar& alpha);
void compare_complex_cuda(CompareOp op, const ElementwiseIter& it);
void ternary_complex_cuda(TernaryOp op, const ElementwiseIter& it);
void unary_complex_cuda(UnaryOp op, const ElementwiseIter& it);
void complex_op_cuda(ComplexOp op, const ElementwiseIter& it);
// complex_jit.cpp: kernels compiled at first use through NVRTC (the
// jiterator's machinery, ops/jit/jiterator.hpp) and cached on disk.
void binary_complex_jit(BinaryOp op, const ElementwiseIter& it);
void unary_complex_jit(UnaryOp op, const ElementwiseIter& it);
void compare_complex_jit(CompareOp op, const ElementwiseIter& it);
void ternary_complex_jit(TernaryOp op, const ElementwiseIter& it);
void complex_op_jit(ComplexOp op, const ElementwiseIter& it);
#endif
}  // namespace internal

}  // namespace ember::ops
