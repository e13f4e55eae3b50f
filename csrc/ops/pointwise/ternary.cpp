// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/ternary.hpp"

#include <cmath>

#include "ops/copy/copy.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/pointwise/unary.hpp"
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

// Complex lerp: torch's two-sided formula over the complex binary kernels,
// |weight| < 0.5 ? start + weight (end - start) : end - (end - start) (1 - weight).
Tensor lerp_complex(const Tensor& start, const Tensor& end, const Operand& weight,
                    ScalarType common, const Tensor& out, bool inplace) {
  const Tensor s = start.dtype() == common ? start : to(start, start.device(), common);
  const Tensor e = end.dtype() == common ? end : to(end, end.device(), common);
  const Tensor d = sub(e, s);
  Tensor base, coef;
  if (weight.is_scalar()) {
    const Complex<double> w = weight.scalar.to_complex();
    const bool small = std::hypot(w.re, w.im) < 0.5;
    base = small ? s : e;
    coef = mul(d, small ? Operand(weight.scalar)
                        : Operand(Scalar::from_complex(w.re - 1.0, w.im)));
  } else {
    const Tensor& w = weight.tensor;
    const Tensor small = compare(CompareOp::Lt, unary(UnaryOp::Abs, w), Operand(0.5));
    base = where(small, s, e);
    coef = mul(d, where(small, w, sub(w, Operand(1.0))));
  }
  if (inplace) {
    copy_(start, add(base, coef));
    return start;
  }
  return binary(BinaryOp::Add, base, coef, {}, out);
}

// Complex addcmul/addcdiv: x + value * (t1 op t2) with the complex binary kernels.
Tensor addc_complex(bool div, const Tensor& x, const Tensor& t1, const Tensor& t2,
                    const Scalar& value, const Tensor& out, bool inplace) {
  const Tensor t = binary(div ? BinaryOp::Div : BinaryOp::Mul, t1, t2);
  BinaryArgs args;
  args.alpha = value;
  return binary(BinaryOp::Add, x, t, args, inplace ? x : out, inplace);
}

}  // namespace

Tensor where(const Tensor& cond, const Operand& a, const Operand& b, const Tensor& out) {
  if (cond.dtype() != ScalarType::Bool && cond.dtype() != ScalarType::UInt8) {
    throw Error(detail::str("where expected condition to be a boolean tensor, but got a tensor "
                            "with dtype ", torch_scalar_name(cond.dtype())));
  }
  const ScalarType common = result_type({&a, &b});
  if (out.defined() && out.dtype() != common) {
    throw Error(detail::str("Expected out type to be ", torch_scalar_name(common), " but got ",
                            torch_scalar_name(out.dtype())));
  }
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
  if (is_complex(common)) throw NotImplementedError("clamp is not supported for complex types");
  // Bool clamps with tensor bounds only (torch's clamp_scalar has no bool kernel).
  if (common == ScalarType::Bool && ((min && lo.is_scalar()) || (max && hi.is_scalar()))) {
    not_implemented("clamp_scalar", common, any_cuda({&in, &lo, &hi}));
  }
  // torch's clamp with number bounds keeps out's dtype exact; with a tensor
  // bound it is a binary-style op, whose out may be any dtype common casts to.
  const bool number_bounds = (!min || lo.is_scalar()) && (!max || hi.is_scalar());
  if (out.defined() && !inplace && number_bounds) check_out_dtype(out, common);
  TernaryArgs args;
  args.has_min = min.has_value();
  args.has_max = max.has_value();
  // torch's clamp with number bounds: both given and either NaN fills the
  // result with NaN (the other bound is never converted); a single NaN bound
  // is ignored (its max(x, nan) / min(x, nan) keep x, on both devices).
  const auto nan_number = [](const Operand& o) {
    return o.is_scalar() && o.scalar.is_floating() && std::isnan(o.scalar.d);
  };
  if (number_bounds && min && max && (nan_number(lo) || nan_number(hi))) {
    const Operand nan(std::nan(""));
    return run(TernaryOp::Clamp, {"clamp", common, common, common, true}, out, inplace,
               {&in, &nan, &nan}, args);
  }
  if (number_bounds && !(min && max) && nan_number(min ? lo : hi)) {
    args.has_min = args.has_max = false;
  }
  return run(TernaryOp::Clamp, {"clamp", common, common, common, true}, out, inplace,
             {&in, &lo, &hi}, args);
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight, const Tensor& out,
            bool inplace) {
  const Operand s(start), e(end);
  // torch: end and a weight tensor with dims have start's dtype (a 0-d weight
  // is a number to torch's argument parser).
  if (end.dtype() != start.dtype()) {
    throw Error(detail::str("expected dtype ", torch_cpp_type_name(start.dtype()),
                            " for `end` but got dtype ", torch_cpp_type_name(end.dtype())));
  }
  if (!weight.is_scalar() && weight.tensor.dim() > 0 && weight.tensor.dtype() != start.dtype()) {
    throw Error(detail::str("expected dtype ", torch_cpp_type_name(start.dtype()),
                            " for `weight` but got dtype ",
                            torch_cpp_type_name(weight.tensor.dtype())));
  }
  const ScalarType common = result_type({&s, &e, &weight});
  if (!is_floating(common) && !is_complex(common)) {
    not_implemented("lerp", common, any_cuda({&s, &e, &weight}));
  }
  // torch's lerp with a weight tensor with dims wants every operand, out=
  // included, of one dtype (with a number weight out= takes any castable dtype)
  if (out.defined() && !inplace && !weight.is_scalar() && weight.tensor.dim() > 0 &&
      out.dtype() != start.dtype()) {
    throw Error(detail::str("Found dtype ", torch_scalar_name(out.dtype()), " but expected ",
                            torch_scalar_name(start.dtype())));
  }
  if (is_complex(common)) return lerp_complex(start, end, weight, common, out, inplace);
  return run(TernaryOp::Lerp, {"lerp", common, common, common, true}, out, inplace,
             {&s, &e, &weight});
}

Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
               const Tensor& out, bool inplace) {
  const Operand a(x), b(t1), c(t2);
  const ScalarType common = result_type({&a, &b, &c});
  if (is_complex(common)) return addc_complex(false, x, t1, t2, value, out, inplace);
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
  if (is_complex(common)) return addc_complex(true, x, t1, t2, value, out, inplace);
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
