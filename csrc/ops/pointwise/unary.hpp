// One-operand math with torch's dtype rules:
// - floating ops (sqrt, exp, log, trig, erf, sigmoid, reciprocal ...) give the
//   default dtype for bool and integer inputs;
// - floating-only ops (gelu, silu, frac) have no integer kernels;
// - neg, abs, sign, square, relu, floor/ceil/round/trunc, nan_to_num keep the
//   dtype (square of bool gives int64, as torch's pow(x, 2); rounding
//   integers is a copy; neg of bool raises);
// - isnan, isinf, isfinite, logical_not give bool.
// Same three forms as the binary ops: new result, out=, in-place.
#pragma once

#include <optional>
#include <string>

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class UnaryOp : uint8_t {
  // floating results
  Sqrt, Rsqrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Sigmoid, Erf, Erfc, Reciprocal,
  // floating inputs only
  Gelu, GeluTanh, Silu, Frac,
  // same dtype
  Neg, Abs, Sign, Square, Relu, Floor, Ceil, Round, Trunc, NanToNum,
  // bool results
  IsNan, IsInf, IsFinite, LogicalNot,
};

struct UnaryArgs {
  int64_t decimals = 0;                  // round
  double nan = 0.0;                      // nan_to_num
  std::optional<double> posinf, neginf;  // nan_to_num: the dtype's max / lowest
};

Tensor unary(UnaryOp op, const Tensor& x, const UnaryArgs& args = {},
             const Tensor& out = Tensor(), bool inplace = false);

// The dtype of unary(op, x).
ScalarType unary_result_type(UnaryOp op, ScalarType x);

const char* unary_name(UnaryOp op);

inline Tensor neg(const Tensor& x) { return unary(UnaryOp::Neg, x); }
inline Tensor exp(const Tensor& x) { return unary(UnaryOp::Exp, x); }
inline Tensor log(const Tensor& x) { return unary(UnaryOp::Log, x); }
inline Tensor sqrt(const Tensor& x) { return unary(UnaryOp::Sqrt, x); }
inline Tensor sin(const Tensor& x) { return unary(UnaryOp::Sin, x); }
inline Tensor cos(const Tensor& x) { return unary(UnaryOp::Cos, x); }
inline Tensor tanh(const Tensor& x) { return unary(UnaryOp::Tanh, x); }
inline Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::Sigmoid, x); }
inline Tensor relu(const Tensor& x) { return unary(UnaryOp::Relu, x); }
inline Tensor abs(const Tensor& x) { return unary(UnaryOp::Abs, x); }
inline Tensor sign(const Tensor& x) { return unary(UnaryOp::Sign, x); }
inline Tensor square(const Tensor& x) { return unary(UnaryOp::Square, x); }
inline Tensor reciprocal(const Tensor& x) { return unary(UnaryOp::Reciprocal, x); }

namespace internal {
// The transcendental functions (sqrt .. Frac) and the rest, split over two
// files to compile in parallel.
void unary_math_cpu(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args);
void unary_basic_cpu(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args);
#if EMBER_WITH_CUDA
void unary_math_cuda(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args);
void unary_basic_cuda(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args);
// unary_jit.cpp: the rarely used floating functions, compiled for the GPU at
// first use (NVRTC, then the memory and disk caches) rather than built ahead
// of time; unary_math_is_jit says which.
void unary_math_jit(UnaryOp op, const ElementwiseIter& it);
// Its function template ember_<unary_name(op)> (jit/jitted_op.hpp).
std::string unary_math_jit_code(UnaryOp op);
#endif
inline bool is_math_op(UnaryOp op) { return op <= UnaryOp::Frac; }
constexpr bool unary_math_is_jit(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp2: case UnaryOp::Expm1: case UnaryOp::Log2: case UnaryOp::Log10:
    case UnaryOp::Log1p: case UnaryOp::Tan: case UnaryOp::Asin: case UnaryOp::Acos:
    case UnaryOp::Atan: case UnaryOp::Sinh: case UnaryOp::Cosh: case UnaryOp::Asinh:
    case UnaryOp::Acosh: case UnaryOp::Atanh: case UnaryOp::Erfc: case UnaryOp::Frac:
      return true;
    default:
      return false;
  }
}
}  // namespace internal

}  // namespace ember::ops
