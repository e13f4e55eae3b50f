// torch's special functions and the integer/bit-level pointwise ops that go
// with them: lgamma, digamma, polygamma, erfinv, the modified Bessel
// functions i0/i0e/i1/i1e, ndtr, ndtri, log_ndtr, erfcx, bessel_j0/j1,
// entr, logit, frexp; and on two operands igamma/igammac, zeta, xlog1py,
// nextafter, gcd, lcm. Same three forms as the unary and binary ops (new
// result, out=, in-place) through the one elementwise path.
//
// Dtypes, as torch: the one-operand functions and zeta/xlog1py give the
// default dtype for bool and integer inputs; frexp, igamma/igammac and
// nextafter take floating operands only, gcd/lcm integer ones only
// ("\"gcd_cpu\" not implemented for 'Float'"). float16 and bfloat16 compute in
// float32 and round once.
#pragma once

#include <utility>

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class SpecialOp : uint8_t {
  // one operand
  Lgamma, Digamma, Polygamma, Erfinv, I0, I0e, I1, I1e, Ndtr, Ndtri, LogNdtr, Erfcx, BesselJ0,
  BesselJ1, Entr, Logit, FrexpMantissa, FrexpExponent,
  // two operands
  Igamma, Igammac, Zeta, Xlog1py, Nextafter, Gcd, Lcm,
};

struct SpecialArgs {
  int64_t n = 0;      // polygamma's order (>= 0)
  double eps = -1.0;  // logit's clamp (< 0: none)
};

inline bool is_binary_special(SpecialOp op) { return op >= SpecialOp::Igamma; }

// torch's name of the op ("lgamma", "special_i0e", ...), for messages.
const char* special_name(SpecialOp op);

// One-operand forms: `out` undefined -> a new tensor; `inplace` -> out is x.
Tensor special_unary(SpecialOp op, const Tensor& x, const SpecialArgs& args = {},
                     const Tensor& out = Tensor(), bool inplace = false);
// Two-operand forms (broadcasting, torch's promotion).
Tensor special_binary(SpecialOp op, const Operand& a, const Operand& b,
                      const Tensor& out = Tensor(), bool inplace = false);
// (mantissa, exponent): exponent is int32; mantissa * 2^exponent == x.
std::pair<Tensor, Tensor> frexp(const Tensor& x, const Tensor& mantissa = Tensor(),
                                const Tensor& exponent = Tensor());

// The dtype special_unary(op, x) gives.
ScalarType special_result_type(SpecialOp op, ScalarType x);

namespace internal {
void special_cpu(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args);
#if EMBER_WITH_CUDA
void special_cuda(SpecialOp op, const ElementwiseIter& it, const SpecialArgs& args);
#endif
}  // namespace internal

}  // namespace ember::ops
