#include "ops/promotion.hpp"

#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

// torch's combine_categories: `higher` wins unless `lower` is of a higher kind.
int8_t combine(int8_t higher, int8_t lower) {
  if (higher < 0) return lower;
  if (lower < 0) return higher;
  const auto h = static_cast<ScalarType>(higher), l = static_cast<ScalarType>(lower);
  if (is_complex(h)) return higher;
  if (is_complex(l)) {
    // A floating `higher` keeps its precision; an integral one takes `lower`.
    return static_cast<int8_t>(is_floating(h) ? to_complex_type(h) : l);
  }
  if (is_floating(h)) return higher;
  if (h == ScalarType::Bool || is_floating(l)) return static_cast<int8_t>(promote_types(h, l));
  return higher;
}

}  // namespace

ScalarType ResultType::result() const {
  const int8_t r = combine(dim_, combine(zero_, wrapped_));
  return r < 0 ? default_dtype() : static_cast<ScalarType>(r);
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

void check_can_cast(ScalarType result, ScalarType out) {
  if (!can_cast(result, out)) {
    throw Error(detail::str("result type ", torch_scalar_name(result),
                            " can't be cast to the desired output type ", torch_scalar_name(out)));
  }
}

}  // namespace ember::ops
