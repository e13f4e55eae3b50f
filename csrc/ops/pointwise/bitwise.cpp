// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/bitwise.hpp"

#include "ops/pointwise/bitwise_functors.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

const char* bitwise_name(BitwiseOp op) {
  switch (op) {
    case BitwiseOp::And: return "bitwise_and";
    case BitwiseOp::Or: return "bitwise_or";
    case BitwiseOp::Xor: return "bitwise_xor";
    case BitwiseOp::LeftShift: return "lshift";
    case BitwiseOp::RightShift: return "rshift";
  }
  return "bitwise";
}

Tensor bitwise(BitwiseOp op, const Operand& a, const Operand& b, const Tensor& out,
               bool inplace) {
  if (a.is_scalar() && b.is_scalar()) return bitwise(op, scalar_to_tensor(a.scalar), b, out, inplace);
  const ScalarType common = result_type({&a, &b});
  const bool shift = op == BitwiseOp::LeftShift || op == BitwiseOp::RightShift;
  const bool cuda = (!a.is_scalar() && a.tensor.is_cuda()) || (!b.is_scalar() && b.tensor.is_cuda());
  if (!is_integral(common, !shift)) not_implemented(bitwise_name(op), common, cuda);
  const ElementwiseSpec spec{bitwise_name(op), common, common, common, true};
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&a, &b});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::bitwise_cuda(op, it);
#endif
  } else {
    internal::bitwise_cpu(op, it);
  }
  return it.out;
}

Tensor bitwise_not(const Tensor& x, const Tensor& out, bool inplace) {
  const ScalarType common = x.dtype();
  if (!is_integral(common, true)) not_implemented("bitwise_not", common, x.is_cuda());
  if (out.defined() && !inplace) check_out_dtype(out, common);
  const ElementwiseSpec spec{"bitwise_not", common, common, common, true};
  const Operand in(x);
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&in});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::bitwise_not_cuda(it);
#endif
  } else {
    internal::bitwise_not_cpu(it);
  }
  return it.out;
}

namespace internal {

void bitwise_cpu(BitwiseOp op, const ElementwiseIter& it) {
  CpuRunner r{it};
  dispatch_bitwise(op, r);
}

void bitwise_not_cpu(const ElementwiseIter& it) {
  CpuRunner r{it};
  dispatch_bitwise_not(it, r);
}

}  // namespace internal

}  // namespace ember::ops
