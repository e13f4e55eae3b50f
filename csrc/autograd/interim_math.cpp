// INTERIM (removed when the math issue's ops merge): the few arithmetic ops
// the engine needs -- add, mul, scaling, sum_to -- as plain CPU loops, so that
// autograd can be built and tested before ops/binary.hpp and the reductions
// exist. CUDA tensors raise. Not for speed.
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
Tensor binary_cpu(const Tensor& a, const Tensor& b, F f) {
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

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = binary_cpu(a, b, [](double x, double y) { return x + y; });
  if (needs_grad(a, b)) {
    const Shape as = a.sizes(), bs = b.sizes();
    record("AddBackward0", {&a, &b}, {&out}, [as, bs](FormulaNode&, TensorList& g) -> TensorList {
      return {sum_to(g[0], as), sum_to(g[0], bs)};
    });
  }
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = binary_cpu(a, b, [](double x, double y) { return x * y; });
  if (needs_grad(a, b)) {
    const Shape as = a.sizes(), bs = b.sizes();
    auto node = record("MulBackward0", {&a, &b}, {&out},
                       [as, bs](FormulaNode& n, TensorList& g) -> TensorList {
      TensorList r(2);
      if (n.needs(0)) r[0] = sum_to(autograd::mul(g[0], n.saved(1)), as);
      if (n.needs(1)) r[1] = sum_to(autograd::mul(g[0], n.saved(0)), bs);
      return r;
    });
    node->save(a);
    node->save(b);
  }
  return out;
}

Tensor scaled(const Tensor& t, const Scalar& s) {
  if (s.to_double() == 1.0) return t;
  Tensor k = Tensor::empty({}, t.dtype(), t.device());
  dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    *static_cast<T*>(k.data_ptr()) = static_cast<T>(s.to_double());
  });
  return autograd::mul(t, k);
}

void add_into(const Tensor& self, const Tensor& other) {
  ops::copy_(self, binary_cpu(self, other, [](double x, double y) { return x + y; }));
}

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
