// The torch.special functions whose GPU kernels are compiled at first use
// (ops/jit/jitted_op.hpp) rather than ahead of time: airy_ai, bessel_y0/y1,
// modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1,
// spherical_bessel_j0, and the polynomials chebyshev_polynomial_t/u/v/w,
// shifted_chebyshev_polynomial_t/u/v/w, hermite_polynomial_h/he,
// laguerre_polynomial_l, legendre_polynomial_p of (x, n). Their math is
// ops/special_math.hpp, which the CPU loops include and the GPU compiles from
// its embedded text: one source for both devices.
//
// Dtypes, as torch: bool and integer inputs give the default dtype, and only
// float32 and float64 have kernels ("\"airy_ai_cpu\" not implemented for
// 'Half'"). The polynomials take x and n as tensors or one of them as a
// number (promoted with torch.result_type); n is converted to the common
// dtype, then truncated to an integer (a negative order gives 0). No
// gradients: torch's outputs do not require grad.
#pragma once

#include <cstdint>
#include <string>

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class JitSpecialOp : uint8_t {
  // one operand
  AiryAi, BesselY0, BesselY1, ModifiedBesselI0, ModifiedBesselI1, ModifiedBesselK0,
  ModifiedBesselK1, ScaledModifiedBesselK0, ScaledModifiedBesselK1, SphericalBesselJ0,
  // (x, n)
  ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedChebyshevT, ShiftedChebyshevU,
  ShiftedChebyshevV, ShiftedChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP,
};
constexpr int kNumJitSpecialOps = static_cast<int>(JitSpecialOp::LegendreP) + 1;

constexpr bool is_polynomial(JitSpecialOp op) { return op >= JitSpecialOp::ChebyshevT; }

// torch's name without the "special_" prefix: "airy_ai", "chebyshev_polynomial_t".
const char* jit_special_name(JitSpecialOp op);

// op(x) into a new tensor or `out`.
Tensor jit_special_unary(JitSpecialOp op, const Tensor& x, const Tensor& out = Tensor());
// op(x, n), broadcasting; at most one of x and n a number.
Tensor jit_special_polynomial(JitSpecialOp op, const Operand& x, const Operand& n,
                              const Tensor& out = Tensor());

namespace internal {
void jit_special_cpu(JitSpecialOp op, const ElementwiseIter& it);
#if EMBER_WITH_CUDA
void jit_special_cuda(JitSpecialOp op, const ElementwiseIter& it);
// The source of op's function template ember_<name> (special_math.hpp's text
// first), which the jiterator compiles.
std::string jit_special_code(JitSpecialOp op);
#endif
}  // namespace internal

}  // namespace ember::ops
