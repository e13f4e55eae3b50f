// Three-operand elementwise ops:
// - where(cond, a, b): cond is bool (or uint8); a and b promote as a binary op.
// - clamp(x, min, max) / clip: bounds are numbers or tensors (either may be
//   absent); NaN in x or a bound propagates; min > max gives max (torch).
//   The result dtype is the promotion of x with the bounds.
// - lerp(start, end, weight): floating only; torch's two-sided formula.
// - addcmul(x, t1, t2, value), addcdiv(x, t1, t2, value): x + value*t1*t2,
//   x + value*t1/t2 (integer addcdiv raises, as torch).
#pragma once

#include <optional>

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor where(const Tensor& cond, const Operand& a, const Operand& b, const Tensor& out = Tensor());

Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max,
             const Tensor& out = Tensor(), bool inplace = false);

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight,
            const Tensor& out = Tensor(), bool inplace = false);

Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2,
               const Scalar& value = Scalar::from_int(1), const Tensor& out = Tensor(),
               bool inplace = false);
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2,
               const Scalar& value = Scalar::from_int(1), const Tensor& out = Tensor(),
               bool inplace = false);

enum class TernaryOp : uint8_t { Where, Clamp, Lerp, Addcmul, Addcdiv };

struct TernaryArgs {
  bool has_min = true, has_max = true;  // clamp
  Scalar value = Scalar::from_int(1);   // addcmul/addcdiv
};

namespace internal {
void ternary_cpu(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& args);
#if EMBER_WITH_CUDA
void ternary_cuda(TernaryOp op, const ElementwiseIter& it, const TernaryArgs& args);
#endif
}  // namespace internal

}  // namespace ember::ops
