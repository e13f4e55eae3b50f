// The complex kernels of the GPU that are not built ahead of time: pow,
// eq/ne, where, the unary functions (sqrt, exp, exp2, expm1, log, log1p, sin, ..., sigmoid,
// square, reciprocal, the predicates), sgn and angle. Each is a one-line
// function over include/ember/device/complex.cuh, compiled at first use by
// the jiterator's machinery (ops/jit/jitted_op.hpp: NVRTC, then the memory
// and disk caches, one variant per dtype combination) and launched over the
// iterator make_elementwise planned. So the complex dtypes add seven
// elementwise ops' kernels to the build, not thirty.
#include "ops/pointwise/complex.hpp"

#if EMBER_WITH_CUDA

#include <string>

#include "ops/jit/jitted_op.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::internal {

namespace {

#define EMBER_CX_UNARY(name, R, expr) \
  "template <typename T> " R " ember_" name "(T x) { return " expr "; }"

// `code` is the function template `template <typename T> R ember_<name>(T ...)`.
void run(const char* name, const char* code, const ElementwiseIter& it) {
  jit::run_jitted(name, [code] { return std::string(code); }, it);
}

}  // namespace

void unary_complex_jit(UnaryOp op, const ElementwiseIter& it) {
  switch (op) {
#define CASE(Op, name, R, expr) \
  case UnaryOp::Op: return run(name, EMBER_CX_UNARY(name, R, expr), it);
    CASE(Sqrt, "sqrt", "T", "ember::cmath::sqrt(x)")
    CASE(Rsqrt, "rsqrt", "T", "ember::cmath::rsqrt(x)")
    CASE(Exp, "exp", "T", "ember::cmath::exp(x)")
    CASE(Exp2, "exp2", "T", "ember::cmath::exp2(x)")
    CASE(Expm1, "expm1", "T", "ember::cmath::expm1(x)")
    CASE(Log1p, "log1p", "T", "ember::cmath::log1p(x)")
    CASE(Log, "log", "T", "ember::cmath::log(x)")
    CASE(Log2, "log2", "T", "ember::cmath::log2(x)")
    CASE(Log10, "log10", "T", "ember::cmath::log10(x)")
    CASE(Sin, "sin", "T", "ember::cmath::sin(x)")
    CASE(Cos, "cos", "T", "ember::cmath::cos(x)")
    CASE(Tan, "tan", "T", "ember::cmath::tan(x)")
    CASE(Sinh, "sinh", "T", "ember::cmath::sinh(x)")
    CASE(Cosh, "cosh", "T", "ember::cmath::cosh(x)")
    CASE(Tanh, "tanh", "T", "ember::cmath::tanh(x)")
    CASE(Asin, "asin", "T", "ember::cmath::asin(x)")
    CASE(Acos, "acos", "T", "ember::cmath::acos(x)")
    CASE(Atan, "atan", "T", "ember::cmath::atan(x)")
    CASE(Asinh, "asinh", "T", "ember::cmath::asinh(x)")
    CASE(Acosh, "acosh", "T", "ember::cmath::acosh(x)")
    CASE(Atanh, "atanh", "T", "ember::cmath::atanh(x)")
    CASE(Sigmoid, "sigmoid", "T", "ember::cmath::sigmoid(x)")
    CASE(Square, "square", "T", "x * x")
    CASE(Reciprocal, "reciprocal", "T", "T(1) / x")
    CASE(IsNan, "isnan", "bool", "ember::cmath::is_nan(x)")
    CASE(IsInf, "isinf", "bool", "ember::cmath::is_inf(x)")
    CASE(IsFinite, "isfinite", "bool", "ember::cmath::is_finite(x)")
#undef CASE
    default:
      throw Error(detail::str("internal error: no complex kernel for ", unary_name(op)));
  }
}

void binary_complex_jit(BinaryOp op, const ElementwiseIter& it) {
  EMBER_CHECK(op == BinaryOp::Pow, "internal error: no complex kernel for ", binary_name(op));
  // torch's shortcuts for the small integral exponents, then exp(b log a).
  run("pow",
      "template <typename T> T ember_pow(T a, T b) {\n"
      "  if (b == T(2)) return a * a;\n"
      "  if (b == T(3)) return a * a * a;\n"
      "  if (b == T(-1)) return T(1) / a;\n"
      "  if (b == T(-2)) return T(1) / (a * a);\n"
      "  return ember::cmath::pow(a, b);\n"
      "}",
      it);
}

void compare_complex_jit(CompareOp op, const ElementwiseIter& it) {
  if (op == CompareOp::Eq) {
    return run("eq", "template <typename T> bool ember_eq(T a, T b) { return a == b; }", it);
  }
  EMBER_CHECK(op == CompareOp::Ne, "internal error: no complex kernel for ", compare_name(op));
  run("ne", "template <typename T> bool ember_ne(T a, T b) { return a != b; }", it);
}

void ternary_complex_jit(TernaryOp op, const ElementwiseIter& it) {
  EMBER_CHECK(op == TernaryOp::Where, "internal error: no complex kernel for a ternary op");
  run("where",
      "template <typename T> T ember_where(T c, T a, T b) { return c != T(0) ? a : b; }", it);
}

void complex_op_jit(ComplexOp op, const ElementwiseIter& it) {
  switch (op) {
    case ComplexOp::Sgn:
      return run("sgn", EMBER_CX_UNARY("sgn", "T", "ember::cmath::sgn(x)"), it);
    case ComplexOp::Angle:
      return run("angle",
                 EMBER_CX_UNARY("angle", "typename ember::complex_part<T>::type",
                                "ember::cmath::arg(x)"),
                 it);
    case ComplexOp::Conj:
      return run("conj", EMBER_CX_UNARY("conj", "T", "ember::cmath::conj(x)"), it);
  }
}

}  // namespace ember::ops::internal

#endif  // EMBER_WITH_CUDA
