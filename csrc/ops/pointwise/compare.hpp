// Comparisons (eq, ne, lt, le, gt, ge) and the logical ops (logical_and, _or,
// _xor): inputs are promoted to their common dtype (torch.result_type) and
// compared there; the result is bool. An out= tensor of any dtype receives
// the values converted (as torch allows); in-place forms (x.lt_(y)) write
// 0/1 into x's dtype.
#pragma once

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor };

Tensor compare(CompareOp op, const Operand& a, const Operand& b, const Tensor& out = Tensor(),
               bool inplace = false);

inline Tensor eq(const Operand& a, const Operand& b) { return compare(CompareOp::Eq, a, b); }
inline Tensor ne(const Operand& a, const Operand& b) { return compare(CompareOp::Ne, a, b); }
inline Tensor lt(const Operand& a, const Operand& b) { return compare(CompareOp::Lt, a, b); }
inline Tensor le(const Operand& a, const Operand& b) { return compare(CompareOp::Le, a, b); }
inline Tensor gt(const Operand& a, const Operand& b) { return compare(CompareOp::Gt, a, b); }
inline Tensor ge(const Operand& a, const Operand& b) { return compare(CompareOp::Ge, a, b); }

const char* compare_name(CompareOp op);

namespace internal {
void compare_cpu(CompareOp op, const ElementwiseIter& it);
#if EMBER_WITH_CUDA
void compare_cuda(CompareOp op, const ElementwiseIter& it);
#endif
}  // namespace internal

}  // namespace ember::ops
