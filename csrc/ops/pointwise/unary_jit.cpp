// The rarely used floating unary functions on the GPU (exp2, expm1, log2,
// log10, log1p, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, erfc,
// frac: unary_math_is_jit in unary.hpp) are not built ahead of time: each is
// a one-line function over CUDA's math library, compiled at first use as the
// other jitted ops of ember (ops/jit/jitted_op.hpp: NVRTC, then the memory and
// disk caches, one variant per dtype combination) and launched over the
// iterator make_elementwise planned. They call the same functions as the
// functors of unary_functors.hpp (expf for float, exp for double: the math of
// math_functions.hpp), computing in float for float16/bfloat16, so the results
// are those of the kernels they replace. Their six kernels each (four flat
// dtypes and two dynamic ones) were ~40 CPU-seconds of a clean build with two
// architectures (docs/design/build.md). The CPU keeps its loops (unary.cpp).
#include "ops/pointwise/unary.hpp"

#if EMBER_WITH_CUDA

#include <string>

#include "ops/copy/copy.hpp"
#include "ops/jit/jitted_op.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::internal {

namespace {

// The CUDA math function of an op (its float version adds 'f'); null for frac.
const char* math_function(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp2: return "exp2";
    case UnaryOp::Expm1: return "expm1";
    case UnaryOp::Log2: return "log2";
    case UnaryOp::Log10: return "log10";
    case UnaryOp::Log1p: return "log1p";
    case UnaryOp::Tan: return "tan";
    case UnaryOp::Asin: return "asin";
    case UnaryOp::Acos: return "acos";
    case UnaryOp::Atan: return "atan";
    case UnaryOp::Sinh: return "sinh";
    case UnaryOp::Cosh: return "cosh";
    case UnaryOp::Asinh: return "asinh";
    case UnaryOp::Acosh: return "acosh";
    case UnaryOp::Atanh: return "atanh";
    case UnaryOp::Erfc: return "erfc";
    case UnaryOp::Frac: return nullptr;
    default: break;
  }
  throw Error(detail::str("internal error: ", unary_name(op), " is built ahead of time"));
}

}  // namespace

std::string unary_math_jit_code(UnaryOp op) {
  const char* fn = math_function(op);
  // "real_": the complex forms of the same ops are jitted under their own names
  // (complex_jit.cpp); one registry holds both.
  const std::string name = std::string("ember_real_") + unary_name(op);
  // T is the compute type: float or double.
  if (!fn) {
    return "template <typename T> T " + name +
           "(T x) {\n"
           "  if constexpr (sizeof(T) == 4) return x - truncf(x); else return x - trunc(x);\n"
           "}";
  }
  const std::string f = fn;
  return "template <typename T> T " + name + "(T x) {\n  if constexpr (sizeof(T) == 4) return " +
         f + "f(x); else return " + f + "(x);\n}";
}

void unary_math_jit(UnaryOp op, const ElementwiseIter& it) {
  // Unary inputs are of the common dtype or promote to float32/float64, which
  // round nothing (element_access.hpp's rounds_through).
  EMBER_CHECK(!it.any_round, "internal error: ", unary_name(op), " got an input to round");
  jit::JitFunction& f =
      jit::jitted_function(std::string("real_") + unary_name(op),
                           [op] { return unary_math_jit_code(op); });
  if (!it.round_out) return jit::run_elementwise(f, it);
  // An out= of another dtype than the result's, which is narrower than the
  // compute type (float16 results into a float32 out=): torch rounds to the
  // result dtype first. The jiterator stores into the output's dtype directly,
  // so it writes a tensor of the result dtype laid out as out, then copies.
  const Tensor& out = it.out;
  const Tensor tmp = Tensor::empty_strided(out.sizes(), out.strides(), it.result, out.device());
  const int64_t from = int64_t(element_size(it.dtype[0])), to = int64_t(element_size(it.result));
  ElementwiseIter t = it;
  t.out = tmp;
  t.dtype[0] = it.result;
  t.round_out = false;
  t.layout.data[0] = static_cast<char*>(tmp.data_ptr()) +
                     (it.layout.data[0] - static_cast<char*>(out.data_ptr())) / from * to;
  for (int d = 0; d < t.layout.ndim; ++d) t.layout.strides[0][d] = it.layout.strides[0][d] / from * to;
  jit::run_elementwise(f, t);
  copy_(out, tmp);
}

}  // namespace ember::ops::internal

#endif  // EMBER_WITH_CUDA
