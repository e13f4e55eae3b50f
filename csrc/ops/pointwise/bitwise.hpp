// Bitwise ops on bool and integer tensors: bitwise_and, _or, _xor, _not (on
// bool: logical), bitwise_left_shift and _right_shift (integers only; shifts
// by a negative amount or by at least the width give 0, or the sign for right
// shifts of negative values, as torch). Floating tensors raise torch's
// "\"bitwise_and_cpu\" not implemented for 'Float'".
#pragma once

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class BitwiseOp : uint8_t { And, Or, Xor, LeftShift, RightShift };

Tensor bitwise(BitwiseOp op, const Operand& a, const Operand& b, const Tensor& out = Tensor(),
               bool inplace = false);
Tensor bitwise_not(const Tensor& x, const Tensor& out = Tensor(), bool inplace = false);

const char* bitwise_name(BitwiseOp op);

namespace internal {
void bitwise_cpu(BitwiseOp op, const ElementwiseIter& it);
void bitwise_not_cpu(const ElementwiseIter& it);
#if EMBER_WITH_CUDA
void bitwise_cuda(BitwiseOp op, const ElementwiseIter& it);
void bitwise_not_cuda(const ElementwiseIter& it);
#endif
}  // namespace internal

}  // namespace ember::ops
