// CPU loops: selects on float comparisons vectorise only when comparisons
// may not raise floating-point exceptions (ember never reads those flags).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include "ops/pointwise/unary.hpp"

#include "ops/pointwise/complex.hpp"
#include "ops/copy/copy.hpp"
#include "ops/cpu_vector_math.hpp"
#include "ops/elementwise_cpu.hpp"
#include "ops/overlap.hpp"
#include "ops/promotion.hpp"
#include "ops/pointwise/unary_functors.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

bool is_rounding(UnaryOp op) {
  return op == UnaryOp::Floor || op == UnaryOp::Ceil || op == UnaryOp::Round ||
         op == UnaryOp::Trunc;
}

// The checks of a complex x (torch's messages); ops without complex kernels
// raise "\"op_cpu\" not implemented for 'ComplexFloat'".
void check_complex(UnaryOp op, ScalarType x, bool cuda) {
  if (op == UnaryOp::Sign) {
    throw NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                "torch.sgn instead.");
  }
  if (op == UnaryOp::Relu) throw NotImplementedError("clamp is not supported for complex types");
  if (is_rounding(op)) {
    throw NotImplementedError(detail::str(unary_name(op), " is not supported for complex inputs"));
  }
  if (!has_complex_kernel(op)) not_implemented(unary_name(op), x, cuda);
}

// The dtype x is computed in for op (after the op's support checks).
ScalarType common_dtype(UnaryOp op, ScalarType x, bool cuda) {
  if (is_complex(x)) {
    check_complex(op, x, cuda);
    return x;
  }
  const bool is_bool = x == ScalarType::Bool;
  if (internal::is_math_op(op)) {
    if (op >= UnaryOp::Gelu && !is_floating(x)) not_implemented(unary_name(op), x, cuda);
    return to_floating(x);
  }
  switch (op) {
    case UnaryOp::Neg:
      if (is_bool) {
        throw Error("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
      }
      return x;
    case UnaryOp::Square:
      return is_bool ? ScalarType::Int64 : x;
    case UnaryOp::Relu:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
      if (is_bool) not_implemented(unary_name(op), x, cuda);
      return x;
    default:
      return x;
  }
}

bool bool_result(UnaryOp op) { return op >= UnaryOp::IsNan; }

// The dtype of the result computed in `common`: bool for predicates, the
// parts' dtype for abs of complex values, else common.
ScalarType result_dtype(UnaryOp op, ScalarType common) {
  if (bool_result(op)) return ScalarType::Bool;
  return op == UnaryOp::Abs ? to_real_type(common) : common;
}

// torch's "unary_op"s (not its float ops): an out= must have exactly the
// input's dtype.
bool same_dtype_out(UnaryOp op) {
  switch (op) {
    case UnaryOp::Frac:
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
    case UnaryOp::Relu:
      return true;
    default:
      return false;
  }
}

}  // namespace

const char* unary_name(UnaryOp op) {
  static const char* const names[] = {
      "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
      "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid",
      "erf", "erfc", "reciprocal", "gelu", "gelu", "silu", "frac", "neg", "abs", "sign", "square",
      "relu", "floor", "ceil", "round", "trunc", "nan_to_num", "isnan", "isinf", "isfinite",
      "logical_not"};
  return names[static_cast<int>(op)];
}

ScalarType unary_result_type(UnaryOp op, ScalarType x) {
  return result_dtype(op, common_dtype(op, x, false));
}

Tensor unary(UnaryOp op, const Tensor& x, const UnaryArgs& args, const Tensor& out,
             bool inplace) {
  const bool cuda = x.is_cuda() || (out.defined() && out.is_cuda());
  if (out.defined() && !inplace) {
    if (op == UnaryOp::NanToNum && out.dtype() != x.dtype()) {
      throw Error(detail::str("nan_to_num: dtype of out: ", torch_scalar_name(out.dtype()),
                              " should be same as input: ", torch_scalar_name(x.dtype())));
    }
    // (abs of complex values gives their parts' dtype, cast to any out=.)
    if (same_dtype_out(op) && !(op == UnaryOp::Abs && is_complex(x.dtype()))) {
      check_out_dtype(out, x.dtype());
    }
  }
  const ScalarType common = common_dtype(op, x.dtype(), cuda);
  const ScalarType result = result_dtype(op, common);
  EMBER_CHECK(!(inplace && op == UnaryOp::Abs && is_complex(common)),
              "In-place abs is not supported for complex tensors.");
  // Rounding an integer, and nan_to_num of one, is a copy (torch's shortcut).
  const bool copy_only = (is_rounding(op) || op == UnaryOp::NanToNum) && !is_floating(common);
  if (copy_only && inplace) {
    // torch checks the rounding ops' output although nothing is written (its
    // nan_to_num_ of an integer returns self at once).
    if (is_rounding(op)) check_no_internal_overlap(x);
    return x;
  }
  if (copy_only && !out.defined()) return clone(x);
  ElementwiseSpec spec{unary_name(op), common, result, result, !bool_result(op)};
  spec.complex = has_complex_kernel(op);
  const Operand in(x);
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&in});
  if (copy_only) {
    copy_(it.out, x);
    return it.out;
  }
  UnaryArgs a = args;
  if (op == UnaryOp::NanToNum) {
    // Infinities become the largest finite values of the output's dtype.
    const FInfo fi = finfo(is_floating(it.out.dtype()) ? it.out.dtype() : common);
    if (!a.posinf) a.posinf = fi.max;
    if (!a.neginf) a.neginf = fi.min;
  }
  const bool math = internal::is_math_op(op);
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    math ? internal::unary_math_cuda(op, it, a) : internal::unary_basic_cuda(op, it, a);
#endif
  } else {
    math ? internal::unary_math_cpu(op, it, a) : internal::unary_basic_cpu(op, it, a);
  }
  return it.out;
}

namespace internal {

void unary_math_cpu(UnaryOp op, const ElementwiseIter& it, const UnaryArgs&) {
  if (is_complex(it.common)) return unary_complex_cpu(op, it);
  // Contiguous float32: the vectorised loops of cpu_vector_math.
  if (it.is_flat() && it.dtype[0] == ScalarType::Float32 && it.dtype[1] == ScalarType::Float32 &&
      !it.by_value[1] && (it.layout.strides[1][0] != 0 || it.numel() == 1)) {
    const auto* x = reinterpret_cast<const float*>(it.layout.data[1]);
    auto* y = reinterpret_cast<float*>(it.layout.data[0]);
    if (vector_unary_f32(op, x, y, 0)) {
      parallel_for(it.numel(), kElementwiseGrain / 4, [&](int64_t b, int64_t e) {
        vector_unary_f32(op, x + b, y + b, e - b);
      });
      return;
    }
  }
  CpuRunner r{it, kElementwiseGrain / 16};  // transcendental: worth threads sooner
  dispatch_unary_math(op, it, r);
}

void unary_basic_cpu(UnaryOp op, const ElementwiseIter& it, const UnaryArgs& args) {
  if (is_complex(it.common)) return unary_complex_cpu(op, it);
  CpuRunner r{it};
  dispatch_unary_basic(op, it, args, r);
}

}  // namespace internal

}  // namespace ember::ops
