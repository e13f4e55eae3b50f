// where, clamp, lerp, addcmul, addcdiv (ops/pointwise/ternary.hpp) with autograd
// (torch's formulas). Numbers among the operands get no gradient.
#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/copy/copy.hpp"
#include "ops/pointwise/ternary.hpp"
#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {

using ops::CompareOp;
using ops::Operand;

Operand operand_of(FormulaNode& n, bool is_scalar, const Scalar& s, size_t index) {
  return is_scalar ? Operand(s) : Operand(n.saved(index));
}

Tensor mask_and(const Tensor& a, const Tensor& b) { return ops::compare(CompareOp::LogicalAnd, a, b); }
Tensor mask_or(const Tensor& a, const Tensor& b) { return ops::compare(CompareOp::LogicalOr, a, b); }

}  // namespace

Tensor where(const Tensor& cond, const Operand& a, const Operand& b, const Tensor& out) {
  if (out.defined()) {
    check_out_no_grad("where", {&a.tensor, &b.tensor});
    Tensor r = ops::where(cond, a, b, out);
    mark_dirty(out);
    return r;
  }
  Tensor r = ops::where(cond, a, b);
  if (!needs_grad(a.tensor, b.tensor) || !is_floating_or_complex(r.dtype())) return r;
  auto node = record("WhereBackward0", {&a.tensor, &b.tensor}, {&r},
                     [](FormulaNode& n, TensorList& g) -> TensorList {
    const Tensor c = n.saved(0);
    TensorList out(2);
    if (n.needs(0)) out[0] = autograd::where(c, g[0], Operand(0.0));
    if (n.needs(1)) out[1] = autograd::where(c, Operand(0.0), g[0]);
    return out;
  });
  node->save(cond);
  return r;
}

Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max,
             const Tensor& out, bool inplace) {
  const Tensor tmin = min && !min->is_scalar() ? min->tensor : Tensor();
  const Tensor tmax = max && !max->is_scalar() ? max->tensor : Tensor();
  const bool grad = needs_grad(x, tmin, tmax);
  if (out.defined() && !inplace) {
    check_out_no_grad("clamp", {&x, &tmin, &tmax});
    Tensor r = ops::clamp(x, min, max, out);
    mark_dirty(out);
    return r;
  }
  if (inplace) check_inplace(x);
  const Tensor before = grad && inplace ? ops::clone(x) : x;
  Tensor r = inplace ? ops::clamp(x, min, max, x, true) : ops::clamp(x, min, max);
  if (inplace) mark_dirty(x);
  if (!grad || !is_floating(r.dtype())) return r;
  // The masks, computed now from the input (torch's clamp backward).
  Tensor in_range, min_wins, max_wins;
  const Operand xv(before);
  Tensor lo = min ? ops::ge(xv, *min) : Tensor();
  Tensor hi = max ? ops::le(xv, *max) : Tensor();
  in_range = lo.defined() && hi.defined() ? mask_and(lo, hi) : lo.defined() ? lo : hi;
  if (tmin.defined()) {
    min_wins = ops::gt(*min, xv);
    if (max) min_wins = mask_and(min_wins, ops::lt(*min, *max));
  }
  if (tmax.defined()) {
    max_wins = ops::lt(*max, xv);
    if (min) max_wins = mask_or(max_wins, ops::lt(*max, *min));
  }
  auto fn = [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(3);
    if (n.needs(0)) r[0] = autograd::where(n.saved(0), g[0], Operand(0.0));
    if (n.needs(1)) r[1] = autograd::where(n.saved(1), g[0], Operand(0.0));
    if (n.needs(2)) r[2] = autograd::where(n.saved(2), g[0], Operand(0.0));
    return r;
  };
  auto node = inplace ? record_inplace("ClampBackward1", x, {&tmin, &tmax}, fn)
                      : record("ClampBackward1", {&x, &tmin, &tmax}, {&r}, fn);
  node->save(in_range);
  node->save(min_wins);
  node->save(max_wins);
  return r;
}

Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight, const Tensor& out,
            bool inplace) {
  const Tensor& tw = weight.is_scalar() ? Tensor() : weight.tensor;
  const bool grad = needs_grad(start, end, tw);
  if (out.defined() && !inplace) {
    check_out_no_grad("lerp", {&start, &end, &tw});
    Tensor r = ops::lerp(start, end, weight, out);
    mark_dirty(out);
    return r;
  }
  if (inplace) check_inplace(start);
  const Tensor before = grad && inplace ? ops::clone(start) : start;
  Tensor r = inplace ? ops::lerp(start, end, weight, start, true) : ops::lerp(start, end, weight);
  if (inplace) mark_dirty(start);
  if (!grad) return r;
  const bool ws = weight.is_scalar();
  const Scalar wv = weight.scalar;
  auto fn = [ws, wv](FormulaNode& n, TensorList& g) -> TensorList {
    // complex values pass g times the conjugate derivatives (torch's convention)
    const Operand w0 = operand_of(n, ws, wv, 2);
    const Operand w = w0.is_scalar() ? Operand(w0.scalar.conj()) : Operand(conj(w0.tensor));
    TensorList r(3);
    if (n.needs(0)) r[0] = autograd::mul(g[0], autograd::sub(Operand(1.0), w));
    if (n.needs(1)) r[1] = autograd::mul(g[0], w);
    if (n.needs(2)) r[2] = autograd::mul(g[0], conj(autograd::sub(n.saved(1), n.saved(0))));
    return r;
  };
  auto node = inplace ? record_inplace("LerpBackward1", start, {&end, &tw}, fn)
                      : record("LerpBackward1", {&start, &end, &tw}, {&r}, fn);
  node->save(tw.defined() ? before : Tensor());
  node->save(tw.defined() ? end : Tensor());
  node->save(tw);
  return r;
}

namespace {

Tensor addc(bool div, const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
            const Tensor& out, bool inplace) {
  const char* name = div ? "addcdiv" : "addcmul";
  const bool grad = needs_grad(x, t1, t2);
  if (out.defined() && !inplace) {
    check_out_no_grad(name, {&x, &t1, &t2});
    Tensor r = div ? ops::addcdiv(x, t1, t2, value, out) : ops::addcmul(x, t1, t2, value, out);
    mark_dirty(out);
    return r;
  }
  if (inplace) check_inplace(x);
  Tensor r = div ? ops::addcdiv(x, t1, t2, value, inplace ? x : Tensor(), inplace)
                 : ops::addcmul(x, t1, t2, value, inplace ? x : Tensor(), inplace);
  if (inplace) mark_dirty(x);
  if (!grad) return r;
  auto fn = [div, value_in = value](FormulaNode& n, TensorList& g) -> TensorList {
    // complex values pass g times the conjugate derivatives (torch's convention)
    TensorList r(3);
    const Scalar value = value_in.conj();
    const Tensor a = conj(n.saved(0)), b = conj(n.saved(1));
    if (n.needs(0)) r[0] = g[0];
    if (div) {
      if (n.needs(1)) r[1] = scaled(autograd::div(g[0], b), value);
      if (n.needs(2)) {
        r[2] = scaled(autograd::neg(autograd::div(autograd::mul(g[0], a), autograd::mul(b, b))),
                      value);
      }
    } else {
      if (n.needs(1)) r[1] = scaled(autograd::mul(g[0], b), value);
      if (n.needs(2)) r[2] = scaled(autograd::mul(g[0], a), value);
    }
    return r;
  };
  const char* bname = div ? "AddcdivBackward0" : "AddcmulBackward0";
  auto node = inplace ? record_inplace(bname, x, {&t1, &t2}, fn)
                      : record(bname, {&x, &t1, &t2}, {&r}, fn);
  node->save(t1);
  node->save(t2);
  return r;
}

}  // namespace

Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
               const Tensor& out, bool inplace) {
  if (autocast::any_enabled() && !out.defined() && !inplace) {  // widest input type
    if (auto ac = autocast::enter_promote({&x, &t1, &t2}, autocast::kCudaList)) {
      return autograd::addcmul(ac.cast(x), ac.cast(t1), ac.cast(t2), value);
    }
  }
  return addc(false, x, t1, t2, value, out, inplace);
}

Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2, const Scalar& value,
               const Tensor& out, bool inplace) {
  if (autocast::any_enabled() && !out.defined() && !inplace) {  // widest input type
    if (auto ac = autocast::enter_promote({&x, &t1, &t2}, autocast::kCudaList)) {
      return autograd::addcdiv(ac.cast(x), ac.cast(t1), ac.cast(t2), value);
    }
  }
  return addc(true, x, t1, t2, value, out, inplace);
}

}  // namespace ember::autograd
