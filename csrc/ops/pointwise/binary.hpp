// Arithmetic on two operands with broadcasting and torch's type promotion:
// add, sub (with alpha), mul, div (true, "trunc" or "floor" rounding),
// remainder, fmod, pow, atan2, hypot, maximum, minimum, fmax, fmin.
//
// Every op has three forms: a new result (`add(a, b)`), an out= form that
// writes into a given tensor (`add_out(out, a, b)`; castable from the result
// type, resized when empty), and an in-place form (`add_(self, b)`; the
// result must fit self's dtype and shape). Operands are tensors or numbers.
// Errors (before anything is written): shapes that do not broadcast, mixed
// devices, dtypes an op does not support (named as torch does), results that
// cannot be cast, integer division by zero on the CPU ("ZeroDivisionError").
#pragma once

#include "ops/elementwise.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, DivTrunc, DivFloor, Remainder, Fmod, Pow, Atan2, Hypot,
  Maximum, Minimum, Fmax, Fmin,
  ThresholdBackward,  // (g, y): y <= 0 ? 0 : g -- relu's gradient in one same-dtype pass
};

enum class Rounding : uint8_t { None, Trunc, Floor };

struct BinaryArgs {
  Scalar alpha = Scalar::from_int(1);  // add/sub: a + alpha * b
  // float16/bfloat16 division by a tensor (internal, set by binary()): torch's
  // kernels compute div_trunc/div_floor in the dtype itself there, each step
  // rounded to it (1 float16, 2 bfloat16); by a scalar in float (0).
  int round_steps = 0;
  // pow by a number: torch's shortcuts for 2, 3, 0.5, -0.5, -1, -2 (internal, set by
  // binary()); its CPU float16 kernel has none (std::pow: (-inf) ** 0.5 is inf there)
  bool pow_shortcuts = true;
};

// The general entry: `out` undefined -> a new tensor; `inplace` -> out is `a`.
Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const BinaryArgs& args = {},
              const Tensor& out = Tensor(), bool inplace = false);

// The result dtype of `op` on a and b (torch.result_type plus the op's rule).
ScalarType binary_result_type(BinaryOp op, const Operand& a, const Operand& b);

inline Tensor add(const Operand& a, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) {
  return binary(BinaryOp::Add, a, b, {alpha});
}
inline Tensor sub(const Operand& a, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) {
  return binary(BinaryOp::Sub, a, b, {alpha});
}
inline Tensor mul(const Operand& a, const Operand& b) { return binary(BinaryOp::Mul, a, b); }
BinaryOp div_op(Rounding r);
inline Tensor div(const Operand& a, const Operand& b, Rounding r = Rounding::None) {
  return binary(div_op(r), a, b);
}
inline Tensor pow(const Operand& a, const Operand& b) { return binary(BinaryOp::Pow, a, b); }
inline Tensor maximum(const Operand& a, const Operand& b) { return binary(BinaryOp::Maximum, a, b); }
inline Tensor minimum(const Operand& a, const Operand& b) { return binary(BinaryOp::Minimum, a, b); }

inline void add_(const Tensor& self, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) {
  binary(BinaryOp::Add, self, b, {alpha}, self, true);
}
inline void sub_(const Tensor& self, const Operand& b, const Scalar& alpha = Scalar::from_int(1)) {
  binary(BinaryOp::Sub, self, b, {alpha}, self, true);
}
inline void mul_(const Tensor& self, const Operand& b) {
  binary(BinaryOp::Mul, self, b, {}, self, true);
}
inline void div_(const Tensor& self, const Operand& b, Rounding r = Rounding::None) {
  binary(div_op(r), self, b, {}, self, true);
}

// "add", "sub", ... (torch's names, for messages and the bindings).
const char* binary_name(BinaryOp op);

namespace internal {
void binary_cpu(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args);
#if EMBER_WITH_CUDA
void binary_cuda(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args);
#endif
}  // namespace internal

}  // namespace ember::ops
