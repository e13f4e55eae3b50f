// INTERIM (removed when the math issue's reductions merge): sum_to as a
// plain CPU loop, so that autograd can be built and tested before the
// reductions and unary ops exist. CUDA tensors raise. Not for speed.
#include <cmath>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

void check_cpu(const Tensor& t) {
  EMBER_CHECK(t.is_cpu(), "interim autograd arithmetic runs on the CPU only (the math issue's "
              "kernels are not merged yet)");
}

template <typename F>
[[maybe_unused]] Tensor binary_cpu(const Tensor& a, const Tensor& b, F f) {
  check_cpu(a);
  check_cpu(b);
  const ScalarType t = promote_types(a.dtype(), b.dtype());
  const Tensor ac = ops::to(a, a.device(), t), bc = ops::to(b, b.device(), t);
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = Tensor::empty(shape, t, a.device());
  const IterLayout<3> it = make_iter<3>(shape, {&out, &ac, &bc});
  dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(*reinterpret_cast<const T*>(p[1] + i * s[1]));
        const double y = static_cast<double>(*reinterpret_cast<const T*>(p[2] + i * s[2]));
        *reinterpret_cast<T*>(p[0] + i * s[0]) = static_cast<T>(f(x, y));
      }
    });
  });
  return out;
}

}  // namespace

Tensor sum_to(const Tensor& grad, const Shape& shape) {
  if (grad.sizes() == shape) return grad;
  check_cpu(grad);
  EMBER_CHECK(is_expandable_to(shape, grad.sizes()), "sum_to: ", shape_str(grad.sizes()),
              " cannot be summed to ", shape_str(shape));
  Tensor out = zeros(shape, grad.dtype(), grad.device());
  const Tensor wide = ember::expand(out, grad.sizes());
  const IterLayout<2> it = make_iter<2>(grad.sizes(), {&wide, &grad});
  dispatch(grad.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        T* o = reinterpret_cast<T*>(p[0] + i * s[0]);
        *o = static_cast<T>(static_cast<double>(*o) +
                            static_cast<double>(*reinterpret_cast<const T*>(p[1] + i * s[1])));
      }
    });
  });
  if (needs_grad(grad)) {
    const Shape gs = grad.sizes();
    record("SumToBackward0", {&grad}, {&out}, [gs](FormulaNode&, TensorList& g) -> TensorList {
      return {autograd::expand(g[0], gs)};
    });
  }
  return out;
}

}  // namespace ember::autograd
