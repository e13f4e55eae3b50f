// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/compare.hpp"

#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/compare_functors.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

const char* compare_name(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "eq";
    case CompareOp::Ne: return "ne";
    case CompareOp::Lt: return "lt";
    case CompareOp::Le: return "le";
    case CompareOp::Gt: return "gt";
    case CompareOp::Ge: return "ge";
    case CompareOp::LogicalAnd: return "logical_and";
    case CompareOp::LogicalOr: return "logical_or";
    case CompareOp::LogicalXor: return "logical_xor";
  }
  return "compare";
}

Tensor compare(CompareOp op, const Operand& a, const Operand& b, const Tensor& out,
               bool inplace) {
  if (a.is_scalar() && b.is_scalar()) {
    return compare(op, scalar_to_tensor(a.scalar), b, out, inplace);
  }
  const ScalarType common = result_type({&a, &b});
  ElementwiseSpec spec{compare_name(op), common, ScalarType::Bool, ScalarType::Bool, false, true};
  spec.complex = has_complex_kernel(op);
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&a, &b});
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::compare_cuda(op, it);
#endif
  } else {
    internal::compare_cpu(op, it);
  }
  return it.out;
}

namespace internal {

void compare_cpu(CompareOp op, const ElementwiseIter& it) {
  if (is_complex(it.common)) return compare_complex_cpu(op, it);
  CpuRunner r{it};
  dispatch_compare(op, it, r);
}

}  // namespace internal

}  // namespace ember::ops
