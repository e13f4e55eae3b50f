// Bitwise functors over int64 (every integer and bool computes there; the
// final conversion keeps the low bits, so results equal the narrow type's).
#pragma once

#include "ops/pointwise/bitwise.hpp"
#include "ops/element_access.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

struct BitAndF {
  EMBER_HD_INLINE int64_t operator()(int64_t a, int64_t b) const { return a & b; }
};
struct BitOrF {
  EMBER_HD_INLINE int64_t operator()(int64_t a, int64_t b) const { return a | b; }
};
struct BitXorF {
  EMBER_HD_INLINE int64_t operator()(int64_t a, int64_t b) const { return a ^ b; }
};
struct LeftShiftF {
  EMBER_HD_INLINE int64_t operator()(int64_t a, int64_t b) const {
    if (b < 0 || b >= 64) return 0;
    return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  }
};
struct RightShiftF {
  EMBER_HD_INLINE int64_t operator()(int64_t a, int64_t b) const {
    if (b < 0 || b >= 64) return a >> 63;
    return a >> b;
  }
};
struct BitNotF {
  EMBER_HD_INLINE int64_t operator()(int64_t a) const { return ~a; }
};
struct BoolNotF {
  EMBER_HD_INLINE bool operator()(int64_t a) const { return a == 0; }
};

template <typename Runner>
void dispatch_bitwise(BitwiseOp op, Runner& r) {
  switch (op) {
    case BitwiseOp::And: return r.template run<int64_t, 2>(BitAndF{});
    case BitwiseOp::Or: return r.template run<int64_t, 2>(BitOrF{});
    case BitwiseOp::Xor: return r.template run<int64_t, 2>(BitXorF{});
    case BitwiseOp::LeftShift: return r.template run<int64_t, 2>(LeftShiftF{});
    case BitwiseOp::RightShift: return r.template run<int64_t, 2>(RightShiftF{});
  }
  throw Error("internal error: unknown bitwise op");
}

template <typename Runner>
void dispatch_bitwise_not(const ElementwiseIter& it, Runner& r) {
  if (it.common == ScalarType::Bool) return r.template run<int64_t, 1>(BoolNotF{});
  r.template run<int64_t, 1>(BitNotF{});
}

}  // namespace ember::ops
