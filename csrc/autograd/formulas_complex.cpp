// Complex numbers (ops/pointwise/complex.hpp, tensor/complex_views.hpp) with
// autograd. torch's convention: the gradient of z = a + ib is
// dL/da + i dL/db for a real loss L (the conjugate Wirtinger derivative
// times 2), so a holomorphic f passes g * conj(f'(z)) back and a real-valued
// function of z passes a complex gradient to it. Formulas (torch's):
//   view_as_real(z): view_as_complex(g)     view_as_complex(x): view_as_real(g)
//   real(z): g (the engine makes it complex)    imag(z): g * i
//   conj(z): conj(g)                        sgn(z): i Im(g conj(s)) s / |z|
//   angle(z): g * i z / |z|^2 (0 at 0; 0 for real inputs)
//   complex(re, im): (real(g), imag(g))     polar: composed of autograd ops
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/copy/copy.hpp"
#include "ops/pointwise/complex.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"

namespace ember::autograd {

namespace {

using ops::Operand;

const Scalar kI = Scalar::from_complex(0.0, 1.0);

// Records a one-input view whose backward is f(grad).
template <typename F>
Tensor finish_view(Tensor out, const Tensor& self, const char* name, F f) {
  mark_view(out, self);
  if (needs_grad(self)) {
    record(name, {&self}, {&out}, [f](FormulaNode&, TensorList& g) -> TensorList {
      return {f(g[0])};
    });
  }
  return out;
}

// g as a complex tensor (a real gradient reaching a complex output).
Tensor as_complex(const Tensor& g) {
  return is_complex(g.dtype()) ? g : autograd::to(g, g.device(), to_complex_type(g.dtype()));
}

// The out= and in-place forms record nothing.
template <typename F>
Tensor no_grad_form(const char* name, const Tensor& x, const Tensor& out, bool inplace, F op) {
  if (inplace) {
    check_inplace(x);
    EMBER_CHECK(!needs_grad(x), name, "_(): ember does not differentiate this in-place form");
    Tensor r = op();
    mark_dirty(x);
    return r;
  }
  check_out_no_grad(name, {&x});
  Tensor r = op();
  mark_dirty(out);
  return r;
}

}  // namespace

Tensor view_as_real(const Tensor& t) {
  return finish_view(ember::view_as_real(t), t, "ViewAsRealBackward0", [](const Tensor& g) {
    return autograd::view_as_complex(autograd::contiguous(g));
  });
}

Tensor view_as_complex(const Tensor& t) {
  return finish_view(ember::view_as_complex(t), t, "ViewAsComplexBackward0",
                     [](const Tensor& g) { return autograd::view_as_real(as_complex(g)); });
}

Tensor real(const Tensor& t) {
  if (!is_complex(t.dtype())) return t;
  return finish_view(real_part(t), t, "RealBackward0", [](const Tensor& g) { return g; });
}

Tensor imag(const Tensor& t) {
  return finish_view(imag_part(t), t, "ImagBackward0",
                     [](const Tensor& g) { return autograd::mul(g, kI); });
}

Tensor conj(const Tensor& t) { return is_complex(t.dtype()) ? autograd::conj_physical(t) : t; }

Tensor conj_physical(const Tensor& t, const Tensor& out, bool inplace) {
  if (inplace || out.defined()) {
    return no_grad_form("conj_physical", t, out, inplace,
                        [&] { return ops::conj_physical(t, out, inplace); });
  }
  Tensor r = ops::conj_physical(t);
  if (r.is_same(t) || !needs_grad(t)) return r;
  record("ConjPhysicalBackward0", {&t}, {&r}, [](FormulaNode&, TensorList& g) -> TensorList {
    return {autograd::conj(g[0])};
  });
  return r;
}

Tensor sgn(const Tensor& t, const Tensor& out, bool inplace) {
  if (!is_complex(t.dtype())) return autograd::unary(ops::UnaryOp::Sign, t, {}, out, inplace);
  if (inplace || out.defined()) {
    return no_grad_form("sgn", t, out, inplace, [&] { return ops::sgn(t, out, inplace); });
  }
  Tensor r = ops::sgn(t);
  if (!needs_grad(t)) return r;
  auto node = record("SgnBackward0", {&t}, {&r}, [](FormulaNode& n, TensorList& g) -> TensorList {
    // i Im(g conj(s)) s / |z|, 0 where z is 0
    const Tensor z = n.saved(0), s = n.saved(1);
    const Tensor a = autograd::unary(ops::UnaryOp::Abs, z);
    const Tensor v = autograd::imag(autograd::mul(as_complex(g[0]), autograd::conj(s)));
    const Tensor d = autograd::div(autograd::mul(autograd::mul(v, s), kI), a);
    return {autograd::where(ops::eq(a, Operand(0.0)), Operand(0.0), d)};
  });
  node->save(t);
  node->save(r, /*is_output=*/true);
  return r;
}

Tensor angle(const Tensor& t, const Tensor& out) {
  if (out.defined()) {
    return no_grad_form("angle", t, out, false, [&] { return ops::angle(t, out); });
  }
  Tensor r = ops::angle(t);
  if (!needs_grad(t) || !is_floating(r.dtype())) return r;
  const bool cplx = is_complex(t.dtype());
  auto node = record("AngleBackward0", {&t}, {&r}, [cplx](FormulaNode& n, TensorList& g) -> TensorList {
    const Tensor z = n.saved(0);
    if (!cplx) return {zeros_like(z)};
    // g * i z / |z|^2, 0 where z is 0
    const Tensor a2 = autograd::unary(ops::UnaryOp::Square, autograd::unary(ops::UnaryOp::Abs, z));
    const Tensor d = autograd::div(autograd::mul(autograd::mul(g[0], z), kI), a2);
    return {autograd::where(ops::eq(a2, Operand(0.0)), Operand(0.0), d)};
  });
  node->save(t);
  return r;
}

Tensor complex(const Tensor& re, const Tensor& im, const Tensor& out) {
  if (out.defined()) {
    check_out_no_grad("complex", {&re, &im});
    Tensor r = ops::complex(re, im, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::complex(re, im);
  if (!needs_grad(re, im)) return r;
  const Shape rs = re.sizes(), is = im.sizes();
  record("ComplexBackward0", {&re, &im}, {&r}, [rs, is](FormulaNode& n, TensorList& g) -> TensorList {
    const Tensor gc = as_complex(g[0]);
    TensorList grads(2);
    if (n.needs(0)) grads[0] = sum_to(autograd::contiguous(autograd::real(gc)), rs);
    if (n.needs(1)) grads[1] = sum_to(autograd::contiguous(autograd::imag(gc)), is);
    return grads;
  });
  return r;
}

Tensor polar(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  if (out.defined() || !needs_grad(abs, angle)) return ops::polar(abs, angle, out);
  // abs * (cos(angle) + i sin(angle)), composed so that autograd differentiates it
  // (autograd::complex checks the parts' dtypes; checked here first so that
  // integer parts are refused before cos/sin would make them floating).
  const ScalarType t = abs.dtype();
  EMBER_CHECK(is_floating(t) && t != ScalarType::BFloat16 && angle.dtype() == t,
              "Expected both inputs to be Half, Float or Double tensors but got ",
              torch_scalar_name(abs.dtype()), " and ", torch_scalar_name(angle.dtype()));
  const Tensor re = autograd::mul(abs, autograd::unary(ops::UnaryOp::Cos, angle));
  const Tensor im = autograd::mul(abs, autograd::unary(ops::UnaryOp::Sin, angle));
  return autograd::complex(re, im);
}

}  // namespace ember::autograd
