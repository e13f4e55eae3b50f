// Comparison and logical functors over a compute type C (shared by both
// devices); they return bool. NaN compares unequal to everything.
#pragma once

#include "ops/pointwise/compare.hpp"
#include "ops/element_access.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

template <typename C> struct EqF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a == b; } };
template <typename C> struct NeF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a != b; } };
template <typename C> struct LtF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a < b; } };
template <typename C> struct LeF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a <= b; } };
template <typename C> struct GtF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a > b; } };
template <typename C> struct GeF { EMBER_HD_INLINE bool operator()(C a, C b) const { return a >= b; } };
template <typename C> struct LogicalAndF {
  EMBER_HD_INLINE bool operator()(C a, C b) const { return a != C(0) && b != C(0); }
};
template <typename C> struct LogicalOrF {
  EMBER_HD_INLINE bool operator()(C a, C b) const { return a != C(0) || b != C(0); }
};
template <typename C> struct LogicalXorF {
  EMBER_HD_INLINE bool operator()(C a, C b) const { return (a != C(0)) != (b != C(0)); }
};

template <typename C, typename Runner>
void dispatch_compare_c(CompareOp op, Runner& r) {
  switch (op) {
    case CompareOp::Eq: return r.template run<C, 2>(EqF<C>{});
    case CompareOp::Ne: return r.template run<C, 2>(NeF<C>{});
    case CompareOp::Lt: return r.template run<C, 2>(LtF<C>{});
    case CompareOp::Le: return r.template run<C, 2>(LeF<C>{});
    case CompareOp::Gt: return r.template run<C, 2>(GtF<C>{});
    case CompareOp::Ge: return r.template run<C, 2>(GeF<C>{});
    case CompareOp::LogicalAnd: return r.template run<C, 2>(LogicalAndF<C>{});
    case CompareOp::LogicalOr: return r.template run<C, 2>(LogicalOrF<C>{});
    case CompareOp::LogicalXor: return r.template run<C, 2>(LogicalXorF<C>{});
  }
  throw Error("internal error: unknown comparison");
}

template <typename Runner>
void dispatch_compare(CompareOp op, const ElementwiseIter& it, Runner& r) {
  switch (compute_dtype(it.common)) {
    case ScalarType::Float32: return dispatch_compare_c<float>(op, r);
    case ScalarType::Float64: return dispatch_compare_c<double>(op, r);
    default: return dispatch_compare_c<int64_t>(op, r);
  }
}

}  // namespace ember::ops
