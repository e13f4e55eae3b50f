// softmax's elementwise step, exp((x - max) - log(sum)) (log_softmax's:
// (x - max) - log(sum)), with max and log(sum) per row. x - max is exact;
// exp runs in float for float32/float16/bfloat16 results (as torch's float
// exp(x - max)) and in double for float64 ones. A row holding +inf has
// lse = +inf and gives nan everywhere, as torch's exp(x - max) / sum does.
#pragma once

#include "ops/element_access.hpp"
#include "ops/elementwise.hpp"
#include "ops/math_functions.hpp"

namespace ember::ops {

template <bool LOG, typename E>
struct ExpDiffF {
  EMBER_HD_INLINE double operator()(double x, double max, double logsum) const {
    if (max == static_cast<double>(INFINITY)) return static_cast<double>(NAN);
    const double d = (x - max) - logsum;
    if (LOG) return d;
    return static_cast<double>(m::exp(static_cast<E>(d)));
  }
};

template <typename Runner>
void dispatch_exp_diff(const ElementwiseIter& it, bool log, Runner& r) {
  if (log) return r.template run<double, 3>(ExpDiffF<true, double>{});
  if (it.out.dtype() == ScalarType::Float64) {
    return r.template run<double, 3>(ExpDiffF<false, double>{});
  }
  r.template run<double, 3>(ExpDiffF<false, float>{});
}

}  // namespace ember::ops
