// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/complex.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"

#include "ops/pointwise/binary_functors.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

bool any_cuda(const Operand& a, const Operand& b) {
  return (!a.is_scalar() && a.tensor.is_cuda()) || (!b.is_scalar() && b.tensor.is_cuda());
}

bool is_integer_division(BinaryOp op) {
  return op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Remainder ||
         op == BinaryOp::Fmod;
}

// torch's checks of alpha and of bool subtraction, and the dtypes each op has
// kernels for.
void check_supported(BinaryOp op, const Operand& a, const Operand& b, const BinaryArgs& args,
                     ScalarType common, bool cuda) {
  if (op == BinaryOp::Sub) {
    const bool ba = a.dtype() == ScalarType::Bool, bb = b.dtype() == ScalarType::Bool;
    if (ba && bb) {
      throw Error("Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                  "the `^` or `logical_xor()` operator instead.");
    }
    if (ba || bb) {
      throw Error("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                  "are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
  }
  if (op == BinaryOp::Add || op == BinaryOp::Sub) {
    EMBER_CHECK(!args.alpha.is_bool() || common == ScalarType::Bool,
                "Boolean alpha only supported for Boolean results.");
    EMBER_CHECK(is_floating(common) || is_complex(common) || !args.alpha.is_floating(),
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  if (is_complex(common)) {
    switch (op) {
      case BinaryOp::Maximum:
      case BinaryOp::Minimum:
      case BinaryOp::Fmax:
      case BinaryOp::Fmin:
        throw Error(detail::str(binary_name(op), " not implemented for complex tensors."));
      default:
        if (!has_complex_kernel(op)) not_implemented(binary_name(op), common, cuda);
    }
    return;
  }
  const bool is_bool = common == ScalarType::Bool;
  switch (op) {
    case BinaryOp::DivTrunc:
    case BinaryOp::DivFloor:
    case BinaryOp::Remainder:
    case BinaryOp::Fmod:
    case BinaryOp::Pow:
      if (is_bool) not_implemented(binary_name(op), common, cuda);
      break;
    case BinaryOp::Hypot:
    case BinaryOp::ThresholdBackward:
      if (!is_floating(common)) not_implemented(binary_name(op), common, cuda);
      break;
    default:
      break;
  }
  if (op == BinaryOp::Pow && is_integral(common, false) && b.is_scalar() &&
      b.scalar.is_integral() && b.scalar.i < 0) {
    throw Error("Integers to negative integer powers are not allowed.");
  }
}

// What the kernels take beyond the operands, as torch's kernels read it:
//  - bool add/sub: alpha converted to bool (True + True * -1 is True);
//  - float16/bfloat16 div_trunc/div_floor by a tensor: torch computes them in
//    the dtype (trunc(a / b) with the quotient rounded to it; floor division's
//    every step rounded, as c10::div_floor_floating in that dtype on the CPU;
//    its CUDA floor division runs in float), and in float only by a scalar
//    (on the CPU any operand constant over the loop, on the GPU a CPU scalar).
BinaryArgs kernel_args(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args,
                       bool cuda) {
  BinaryArgs e = args;
  if ((op == BinaryOp::Add || op == BinaryOp::Sub) && it.common == ScalarType::Bool) {
    e.alpha = Scalar::from_bool(args.alpha.to_double() != 0.0);
  }
  if (op == BinaryOp::Pow && !cuda && it.common == ScalarType::Float16) e.pow_shortcuts = false;
  const bool reduced = it.common == ScalarType::Float16 || it.common == ScalarType::BFloat16;
  if (reduced && !cuda && (op == BinaryOp::Add || op == BinaryOp::Sub) && !args.alpha.is_bool()) {
    // torch's CPU float16/bfloat16 add takes alpha in the dtype (alpha=1e-45 is 0 there:
    // inf - 1e-45 * -inf is nan); its CUDA kernels keep it in float
    e.alpha = dispatch(it.common, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return Scalar::from_double(convert<double>(args.alpha.to<T>()));
    });
  }
  if (reduced && (op == BinaryOp::DivTrunc || (op == BinaryOp::DivFloor && !cuda))) {
    bool scalar = it.by_value[2];
    if (!scalar && !cuda) {
      scalar = true;
      for (int d = 0; d < it.layout.ndim; ++d) {
        if (it.layout.strides[2][d] != 0 && it.layout.shape[d] != 1) scalar = false;
      }
    }
    if (!scalar) e.round_steps = it.common == ScalarType::Float16 ? 1 : 2;
  }
  return e;
}

bool any_zero_cpu(const Tensor& t) {
  bool found = false;
  const IterLayout<1> it = make_iter<1>(t.sizes(), {&t});
  dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n && !found; ++i) {
        found = convert<double>(*reinterpret_cast<const T*>(p[0] + i * s[0])) == 0.0;
      }
    });
  });
  return found;
}

// torch raises for integer division by zero on the CPU (the GPU gives
// unspecified values: checking would make the host wait).
void check_zero_divisor(const ElementwiseIter& it, const Operand& b) {
  if (it.numel() == 0) return;  // nothing is divided (torch: an empty result)
  // A number was already converted to the common dtype (256 is 0 in uint8); a
  // tensor of another dtype is converted the same way before the check.
  const bool zero = it.by_value[2]
                        ? it.value[2].to_double() == 0.0
                        : any_zero_cpu(it.round[2] ? to(b.tensor, b.tensor.device(), it.common)
                                                   : b.tensor);
  if (zero) throw Error("ZeroDivisionError");
}

}  // namespace

const char* binary_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Mul: return "mul";
    case BinaryOp::Div: return "div";
    case BinaryOp::DivTrunc: return "div_trunc";
    case BinaryOp::DivFloor: return "div_floor";
    case BinaryOp::Remainder: return "remainder";
    case BinaryOp::Fmod: return "fmod";
    case BinaryOp::Pow: return "pow";
    case BinaryOp::Atan2: return "atan2";
    case BinaryOp::Hypot: return "hypot";
    case BinaryOp::Maximum: return "maximum";
    case BinaryOp::Minimum: return "minimum";
    case BinaryOp::Fmax: return "fmax";
    case BinaryOp::Fmin: return "fmin";
    case BinaryOp::ThresholdBackward: return "threshold_backward";
  }
  return "binary";
}

BinaryOp div_op(Rounding r) {
  return r == Rounding::Trunc ? BinaryOp::DivTrunc
         : r == Rounding::Floor ? BinaryOp::DivFloor
                                : BinaryOp::Div;
}

ScalarType binary_result_type(BinaryOp op, const Operand& a, const Operand& b) {
  const ScalarType r = result_type({&a, &b});
  return (op == BinaryOp::Div || op == BinaryOp::Atan2) ? to_floating(r) : r;
}

Tensor binary(BinaryOp op, const Operand& a, const Operand& b, const BinaryArgs& args,
              const Tensor& out, bool inplace) {
  if (a.is_scalar() && b.is_scalar()) {
    return binary(op, scalar_to_tensor(a.scalar), b, args, out, inplace);
  }
  const ScalarType common = binary_result_type(op, a, b);
  const bool cuda = any_cuda(a, b) || (out.defined() && out.is_cuda());
  if (op == BinaryOp::Pow && !a.is_scalar() && b.is_scalar()) {
    // As torch: x ** 0 is ones and x ** 1 a copy, before any dtype check
    // (so bool ** True works).
    const Scalar& e = b.scalar;
    const double v = e.is_complex() ? (e.im == 0.0 ? e.d : 2.0)
                     : e.is_floating() ? e.d
                     : e.is_integral() ? double(e.i)
                                       : double(e.b);
    if (v == 0.0 || v == 1.0) {
      ElementwiseSpec spec{binary_name(op), common, common, common, true};
      spec.complex = true;  // a fill or a copy
      const ElementwiseIter it = make_elementwise(spec, out, inplace, {&a, &b});
      if (v == 0.0) {
        fill_(it.out, Scalar::from_int(1));
      } else if (!it.out.is_same(a.tensor)) {
        copy_(it.out, a.tensor);
      }
      return it.out;
    }
  }
  check_supported(op, a, b, args, common, cuda);
  // Whether a Python number is rounded to the common dtype (0.1 to float16's
  // 0.0999755859375) before the op, as torch's kernels take it: remainder,
  // fmod and pow read it as the tensor's type on both devices; add and sub do
  // on the CPU, while its CUDA kernels (opmath) and mul/div everywhere keep
  // the number's full precision.
  const bool round_numbers = op == BinaryOp::Remainder || op == BinaryOp::Fmod ||
                             op == BinaryOp::Pow ||
                             (!cuda && (op == BinaryOp::Add || op == BinaryOp::Sub));
  ElementwiseSpec spec{binary_name(op), common, common, common, true, round_numbers};
  spec.complex = has_complex_kernel(op);
  // One-element tensors at full precision where torch's kernels read them as
  // scalars: CPU mul/div with one as the second operand; CUDA add/sub/mul/div
  // (opmath kernels) with a 0-d CPU tensor in either place.
  const bool opmath_div = op == BinaryOp::Div || op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor;
  if (cuda) {
    if (op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul) {
      spec.keep_scalar_tensors = 0b11;
    } else if (opmath_div) {
      // the divisor is read at full precision; a dividend number or 0-d CPU
      // tensor as the tensor's type (torch's kernels take it as scalar_t after
      // TensorIterator converted it): divide(1e10, half inf) is inf / inf = nan
      spec.keep_scalar_tensors = 0b10;
      spec.round_number_inputs = 0b01;
    }
  } else if (op == BinaryOp::Mul || opmath_div) {
    spec.keep_scalar_tensors = 0b10;
  }
  ElementwiseIter it = make_elementwise(spec, out, inplace, {&a, &b});
  const BinaryArgs eargs = kernel_args(op, it, args, cuda);
  const bool reduced = common == ScalarType::Float16 || common == ScalarType::BFloat16;
  if (it.by_value[1] && a.is_scalar() &&
      (eargs.round_steps != 0 ||
       (!cuda && reduced && (op == BinaryOp::Mul || op == BinaryOp::Div ||
                             op == BinaryOp::DivFloor || op == BinaryOp::DivTrunc)))) {
    // torch's float16/bfloat16 kernels keep only a number in the second place at full
    // precision: a number first is cast to the dtype like a tensor (65536 // t in float16
    // is inf // t, nan as in Python; torch.mul(1e38, t) in bfloat16 is 9.97e37 * t)
    it.value[1] = dispatch(common, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return Scalar::from_double(convert<double>(it.value[1].to<T>()));
    });
  }
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    if (op == BinaryOp::Div && it.by_value[2] && is_complex(common)) {
      // The same for complex values, the reciprocal taken in the compute
      // type (torch's opmath_t(1) / b).
      Scalar inv;
      if (common == ScalarType::ComplexDouble) {
        const Complex<double> r = Complex<double>(1.0) / it.value[2].to<Complex<double>>();
        inv = Scalar::from_complex(r.re, r.im);
      } else {
        const Complex<float> r = Complex<float>(1.0f) / it.value[2].to<Complex<float>>();
        inv = Scalar::from_complex(r.re, r.im);
      }
      it.value[2] = inv;
      internal::binary_cuda(BinaryOp::Mul, it, eargs);
      return it.out;
    }
    if (op == BinaryOp::Div && it.by_value[2] && is_floating(common)) {
      // torch's CUDA true division by a number multiplies by its reciprocal,
      // taken in double: 7.75 / 1e-3 in float16 is 7752 there (7748 divided).
      it.value[2] = Scalar::from_double(1.0 / it.value[2].to_double());
      internal::binary_cuda(BinaryOp::Mul, it, eargs);
      return it.out;
    }
    internal::binary_cuda(op, it, eargs);
#endif
  } else {
    if (is_integer_division(op) && is_integral(common, false)) check_zero_divisor(it, b);
    internal::binary_cpu(op, it, eargs);
  }
  return it.out;
}

namespace internal {

void binary_cpu(BinaryOp op, const ElementwiseIter& it, const BinaryArgs& args) {
  if (is_complex(it.common)) return binary_complex_cpu(op, it, args.alpha);
  const bool costly = op == BinaryOp::Pow || op == BinaryOp::Atan2 || op == BinaryOp::Hypot ||
                      op == BinaryOp::Remainder || op == BinaryOp::Fmod ||
                      op == BinaryOp::DivFloor;
  CpuRunner r{it, costly ? kElementwiseGrain / 8 : kElementwiseGrain};
  dispatch_binary(op, it, args, r);
}

}  // namespace internal

}  // namespace ember::ops
