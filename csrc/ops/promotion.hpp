// Type promotion of tensor math, exactly as torch does it.
//
// Operands fall into three categories of decreasing priority: tensors with at
// least one dimension, 0-d tensors, and Python numbers ("wrapped numbers").
// Each category promotes within itself (promote_types); a lower category
// changes the result only when it is of a higher kind (bool < integer <
// floating < complex): int32_tensor + 1 stays int32, float16_tensor * 2.5
// stays float16, int_tensor + 2.5 gives the default dtype, bool_tensor + 1
// gives int64; a complex lower category makes a floating result complex with
// the same precision (float64_tensor * 1j is complex128, float16_tensor * 1j
// complex32), and an integral one takes the lower complex dtype.
// Python floats count as the default dtype, Python ints as int64, Python
// complex numbers as the default complex dtype (complex64 for float32).
//
// In-place results and out= arguments must be castable from the result type
// (can_cast): no complex -> non-complex, no floating -> integral, nothing but
// bool -> bool.
#pragma once

#include <cstdint>

#include "tensor/dtype.hpp"
#include "tensor/scalar.hpp"

namespace ember::ops {

// Accumulates operands and gives torch.result_type of all of them.
class ResultType {
 public:
  void add_tensor(ScalarType t, int64_t dim) {
    if (dim > 0) {
      dim_ = merge(dim_, t);
    } else {
      zero_ = merge(zero_, t);
    }
  }
  void add_scalar(const Scalar& s) { wrapped_ = merge(wrapped_, s.default_type()); }
  // The promoted type; float32... for no operand at all (not used).
  ScalarType result() const;

 private:
  static constexpr int8_t kNone = -1;
  static int8_t merge(int8_t acc, ScalarType t) {
    return acc == kNone ? static_cast<int8_t>(t)
                        : static_cast<int8_t>(promote_types(static_cast<ScalarType>(acc), t));
  }
  int8_t dim_ = kNone, zero_ = kNone, wrapped_ = kNone;
};

// torch.can_cast(from, to): false for floating -> integral and for anything
// but bool -> bool.
bool can_cast(ScalarType from, ScalarType to);

// RuntimeError as torch: "result type Float can't be cast to the desired
// output type Long".
void check_can_cast(ScalarType result, ScalarType out);

// The type an integer or bool result turns into for ops that always give
// floats (true division, sin, sqrt ...): the default dtype. Floating and
// complex types stay as they are.
inline ScalarType to_floating(ScalarType t) {
  return is_floating_or_complex(t) ? t : default_dtype();
}

}  // namespace ember::ops
