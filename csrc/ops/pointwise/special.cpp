// The special functions' dtype rules and their CPU loops (the kernels are the
// functors of special_functors.hpp; special.cu runs them on the GPU).
#include "ops/pointwise/special.hpp"

#include "ops/elementwise_cpu.hpp"
#include "ops/pointwise/special_functors.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

bool any_cuda(const Operand& a, const Operand& b, const Tensor& out) {
  return (!a.is_scalar() && a.tensor.is_cuda()) || (!b.is_scalar() && b.tensor.is_cuda()) ||
         (out.defined() && out.is_cuda());
}

void run(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args) {
  if (it.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::special_cuda(op, it, args);
#endif
  } else {
    internal::special_cpu(op, it, args);
  }
}

}  // namespace

const char* special_name(SpecialOp op) {
  switch (op) {
    case SpecialOp::Lgamma: return "lgamma";
    case SpecialOp::Digamma: return "digamma";
    case SpecialOp::Polygamma: return "polygamma";
    case SpecialOp::Erfinv: return "erfinv";
    case SpecialOp::I0: return "i0";
    case SpecialOp::I0e: return "special_i0e";
    case SpecialOp::I1: return "special_i1";
    case SpecialOp::I1e: return "special_i1e";
    case SpecialOp::Ndtr: return "special_ndtr";
    case SpecialOp::Ndtri: return "special_ndtri";
    case SpecialOp::LogNdtr: return "special_log_ndtr";
    case SpecialOp::Erfcx: return "special_erfcx";
    case SpecialOp::BesselJ0: return "special_bessel_j0";
    case SpecialOp::BesselJ1: return "special_bessel_j1";
    case SpecialOp::Entr: return "special_entr";
    case SpecialOp::Logit: return "logit";
    case SpecialOp::FrexpMantissa:
    case SpecialOp::FrexpExponent: return "frexp";
    case SpecialOp::Igamma: return "igamma";
    case SpecialOp::Igammac: return "igammac";
    case SpecialOp::Zeta: return "special_zeta";
    case SpecialOp::Xlog1py: return "special_xlog1py";
    case SpecialOp::Nextafter: return "nextafter";
    case SpecialOp::Gcd: return "gcd";
    case SpecialOp::Lcm: return "lcm";
  }
  return "special";
}

ScalarType special_result_type(SpecialOp op, ScalarType x) {
  if (op == SpecialOp::FrexpExponent) return ScalarType::Int32;
  if (op == SpecialOp::FrexpMantissa) return x;
  return to_floating(x);
}

Tensor special_unary(SpecialOp op, const Tensor& x, const SpecialArgs& args, const Tensor& out,
                     bool inplace) {
  EMBER_CHECK(!is_binary_special(op), "internal error: special_unary of a binary op");
  if ((op == SpecialOp::FrexpMantissa || op == SpecialOp::FrexpExponent) &&
      !is_floating(x.dtype())) {
    throw Error("torch.frexp() only supports floating-point dtypes");
  }
  if (op == SpecialOp::Polygamma && args.n < 0) {
    throw Error("polygamma(n, x) does not support negative n.");
  }
  const ScalarType common = op == SpecialOp::FrexpExponent ? x.dtype() : to_floating(x.dtype());
  const ScalarType result = special_result_type(op, x.dtype());
  const ElementwiseSpec spec{special_name(op), common, result, result, true};
  const Operand in(x);
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&in});
  run(op, it, args);
  return it.out;
}

Tensor special_binary(SpecialOp op, const Operand& a, const Operand& b, const Tensor& out,
                      bool inplace) {
  EMBER_CHECK(is_binary_special(op), "internal error: special_binary of a unary op");
  if (a.is_scalar() && b.is_scalar()) {
    return special_binary(op, scalar_to_tensor(a.scalar), b, out, inplace);
  }
  const bool cuda = any_cuda(a, b, out);
  ScalarType common = result_type({&a, &b});
  switch (op) {
    case SpecialOp::Igamma:
    case SpecialOp::Igammac:
    case SpecialOp::Nextafter:
      if (!is_floating(common)) not_implemented(special_name(op), common, cuda);
      break;
    case SpecialOp::Gcd:
    case SpecialOp::Lcm:
      if (!is_integral(common, false)) not_implemented(special_name(op), common, cuda);
      break;
    default:
      common = to_floating(common);
      break;
  }
  // Numbers are taken in the common dtype, as torch's (non-opmath) kernels.
  const ElementwiseSpec spec{special_name(op), common, common, common, true, true};
  const ElementwiseIter it = make_elementwise(spec, out, inplace, {&a, &b});
  run(op, it, {});
  return it.out;
}

std::pair<Tensor, Tensor> frexp(const Tensor& x, const Tensor& mantissa, const Tensor& exponent) {
  if (!is_floating(x.dtype())) throw Error("torch.frexp() only supports floating-point dtypes");
  if (mantissa.defined() && mantissa.dtype() != x.dtype()) {
    throw Error(detail::str("torch.frexp() expects mantissa to have dtype ",
                            torch_scalar_name(x.dtype()), " but got ",
                            torch_scalar_name(mantissa.dtype())));
  }
  if (exponent.defined() && exponent.dtype() != ScalarType::Int32) {
    throw Error(detail::str("torch.frexp() expects exponent to have int dtype but got ",
                            torch_scalar_name(exponent.dtype())));
  }
  // The exponent first: a mantissa written over x (out=x) leaves it intact.
  Tensor e = special_unary(SpecialOp::FrexpExponent, x, {}, exponent);
  Tensor m = special_unary(SpecialOp::FrexpMantissa, x, {}, mantissa);
  return {m, e};
}

namespace internal {

void special_cpu(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args) {
  CpuRunner r{it, kElementwiseGrain / 16};  // transcendental: worth threads sooner
  dispatch_special(op, it, args, r);
}

}  // namespace internal

}  // namespace ember::ops
