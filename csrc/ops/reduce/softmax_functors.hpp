// softmax's elementwise step, exp(x - lse), over float or double.
#pragma once

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"

namespace ember::ops {

template <typename C>
struct ExpDiffF {
  EMBER_HD_INLINE C operator()(C x, C lse) const { return m::exp(x - lse); }
};

template <typename Runner>
void dispatch_exp_diff(const ElementwiseIter& it, Runner& r) {
  if (it.common == ScalarType::Float64) return r.template run<double, 2>(ExpDiffF<double>{});
  r.template run<float, 2>(ExpDiffF<float>{});
}

}  // namespace ember::ops
