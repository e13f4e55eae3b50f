// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/ternary.hpp"

#include "ops/pointwise/complex.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/promotion.hpp"
#include "ops/pointwise/ternary_functors.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

Tensor run(TernaryOp op, const ElementwiseSpec& spec, const Tensor& out, bool inplace,
           std::initializer_list<const Operand*> ops, const TernaryArgs& args = {}) {
  const ElementwiseIter it = make_elementwise(spec, out, inplace, ops);
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::ternary_cuda(op, it, args);
#endif
  } else {
    internal::ternary_cpu(op, it, args);
  }
  return it.out;
}

bool any_cuda(std::initializer_list<const Operand*> ops) {
  for (const Operand* o : ops) {
    if (!o->is_scalar() && o->tensor.is_cuda()) return true;
  }
  return false;
}

void check_value(const Scalar& v, ScalarType common) {
  EMBER_CHECK(is_floating(common) || !v.is_floating(),
              "For integral input tensors, argument alpha must not be a floating point number.");
}

}  // namespace

Tensor where(const Tensor& cond, const Operand& a, const Operand& b, const Tensor& out) {
  if (cond.dtype() != ScalarType::Bool) {
    throw Error(detail::str("where expected condition to be a boolean tensor, but got a tensor "
                            "with dtype ", torch_scalar_name(cond.dtype())));
  }
  const ScalarType common = result_type({&a, &b});
  const Operand c(cond);
  ElementwiseSpec spec{"where", common, common, common, true};
  spec.complex = true;
  return run(TernaryOp::Where, spec, out, false, {&c, &a, &b});
}

Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max,
             const Tensor& out, bool inplace) {
  EMBER_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  const Operand in(x);
  const Operand none(0);
  const Operand& lo = min ? *min : none;
  const Operand& hi = max ? *max : none;
  ScalarType common;
  if (min && max) {
    common = result_type({&in, &lo, &hi});
  } else {
    common = result_type({&in, min ? &lo : &hi});
  }
  if (common == ScalarType::Bool) not_implemented("clamp", common, any_cuda({&in, &lo, &hi}));
  EMBER_CHECK(!is_complex(common), "clamp is not supported for complex types");
  TernaryArgs args;
  args.has_min = min.has_value();
  args.has_max = max.has_value();
  return run(TernaryOp::Clamp, {"clamp", common, common, common, true}, out, inplace,
             {&in, &lo, &hi}, args);
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight, const Tensor& out,
            bool inplace) {
  const Operand s(start), e(end);
  const ScalarType common = result_type({&s, &e, &weight});
  if (!is_floating(common)) not_implemented("lerp", common, any_cuda({&s, &e, &weight}));
  return run(TernaryOp::Lerp, {"lerp", common, common, common, true}, out, inplace,
             {&s, &e, &weight});
}

Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
               const Tensor& out, bool inplace) {
  const Operand a(x), b(t1), c(t2);
  const ScalarType common = result_type({&a, &b, &c});
  check_value(value, common);
  TernaryArgs args;
  args.value = value;
  return run(TernaryOp::Addcmul, {"addcmul", common, common, common, true}, out, inplace,
             {&a, &b, &c}, args);
}

Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
               const Tensor& out, bool inplace) {
  const Operand a(x), b(t1), c(t2);
  const ScalarType common = result_type({&a, &b, &c});
  if (is_integral(t1.dtype(), true) && is_integral(t2.dtype(), true)) {
    throw Error(
        "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
        "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
        "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
        "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
        "addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
        "tensor2), for all dtypes.");
  }
  check_value(value, common);
  TernaryArgs args;
  args.value = value;
  return run(TernaryOp::Addcdiv, {"addcdiv", common, common, common, true}, out, inplace,
             {&a, &b, &c}, args);
}

namespace internal {

void ternary_cpu(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& args) {
  if (is_complex(it.common)) return ternary_complex_cpu(op, it);
  CpuRunner r{it};
  dispatch_ternary(op, it, args, r);
}

}  // namespace internal

}  // namespace ember::ops
