// where, clamp/clip (+ clamp_min, clamp_max), lerp, addcmul and addcdiv from
// Python: functions, methods and in-place methods.
#include <Python.h>

#include <cmath>

#include "autograd/functions.hpp"
#include "autograd/meta.hpp"
#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/pointwise/ternary.hpp"

namespace ember::bindings {

namespace {

using ops::Operand;

std::optional<Operand> optional_operand(PyObject* o, const char* fn, const char* arg) {
  if (!o || o == Py_None) return std::nullopt;
  return operand_arg(o, fn, arg);
}

// torch converts where's numbers into the result dtype checked, except into
// float16 and bfloat16 (where(c, half_x, 1e5) gives inf there).
void check_where_numbers(const Operand& a, const Operand& b) {
  const ScalarType dt = ops::result_type({&a, &b});
  // torch's CPU where writes float16/bfloat16 overflow as inf unchecked; its
  // CUDA where checks the number like every other dtype.
  const bool cuda = (!a.is_scalar() && a.tensor.is_cuda()) || (!b.is_scalar() && b.tensor.is_cuda());
  if (cuda || (dt != ScalarType::Float16 && dt != ScalarType::BFloat16)) {
    check_scalar_operands({&a, &b}, dt);
  }
}

// clamp's numbers are converted into the result dtype checked, in every dtype
// (clamp(int8_x, min=300) raises).
void check_clamp_bounds(const Tensor& x, const std::optional<Operand>& mn,
                        const std::optional<Operand>& mx) {
  // torch's CUDA kernels read a number bound in the opmath type (float for
  // float16/bfloat16: clamp_min(half, 1e5) gives inf there), and beside a
  // tensor bound not at all; its CPU ones convert it checked into the result
  // dtype.
  const bool tensor_bound = (mn && !mn->is_scalar()) || (mx && !mx->is_scalar());
  if (x.is_cuda() && tensor_bound) return;
  // two number bounds, one NaN: torch fills NaN without converting either
  const auto nan_number = [](const std::optional<Operand>& o) {
    return o && o->is_scalar() && o->scalar.is_floating() && std::isnan(o->scalar.d);
  };
  if (!tensor_bound && mn && mx && (nan_number(mn) || nan_number(mx))) return;
  const Operand in(x);
  const Operand* lo = mn ? &*mn : &in;
  const Operand* hi = mx ? &*mx : &in;
  ScalarType dt = ops::result_type({&in, lo, hi});
  if (x.is_cuda() && (dt == ScalarType::Float16 || dt == ScalarType::BFloat16)) {
    dt = ScalarType::Float32;
  }
  check_scalar_operands({lo, hi}, dt);
}

// lerp's weight and addcmul/addcdiv's value: converted checked into the
// dtype the kernel computes in (float32 for float16 and bfloat16 inputs).
void check_opmath_number(const Scalar& v, ScalarType dt) {
  if (dt == ScalarType::Float16 || dt == ScalarType::BFloat16) dt = ScalarType::Float32;
  check_scalar_fits(v, dt);
}

// addcmul/addcdiv's value: torch's CPU kernels convert it checked into the
// result dtype (float32 for float16/bfloat16); its CUDA ones into the CUDA
// accumulation type, int64 for the integer dtypes (addcmul(uint8_x, t1, t2,
// value=-2.5) multiplies by -2 there).
void check_addc_value(const Tensor& x, const Tensor& a, const Tensor& b, const Scalar& v) {
  const Operand ox(x), oa(a), ob(b);
  ScalarType dt = ops::result_type({&ox, &oa, &ob});
  if (x.is_cuda() && is_integral(dt, false)) dt = ScalarType::Int64;
  check_opmath_number(v, dt);
}

PyObject* finish(Tensor r, const Tensor& out, PyObject* out_obj) {
  if (out.defined()) return same_obj(out_obj);
  return wrap(std::move(r));
}

// ---- where ---------------------------------------------------------------------

PyObject* where_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature sig("where", 3, {"condition", "input", "other", "out"});
  PyObject* s[4];
  sig.parse(args, nargsf, kw, s);
  if (!s[1] || !s[2]) {
    throw TypeError("where(condition, input, other): ember needs all three arguments (the "
                    "one-argument form is condition.nonzero(as_tuple=True))");
  }
  const Tensor& c = tensor_arg(s[0], "'condition'");
  const Operand a = operand_arg(s[1], "where", "input"), b = operand_arg(s[2], "where", "other");
  const Tensor out = out_arg(s[3], "where");
  check_where_numbers(a, b);
  return finish(autograd::where(c, a, b, out), out, s[3]);
  EMBER_PY_CATCH
}

PyObject* where_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature sig("where", 2, {"condition", "other"});
  PyObject* s[2];
  sig.parse(args, nargsf, kw, s);
  const Tensor& c = tensor_arg(s[0], "'condition'");
  const Operand b = operand_arg(s[1], "where", "other");
  const Operand a(tensor_arg(self));
  check_where_numbers(a, b);
  return wrap(autograd::where(c, a.tensor, b));
  EMBER_PY_CATCH
}

// ---- clamp ---------------------------------------------------------------------

enum ClampKind { kBoth, kMinOnly, kMaxOnly };

// torch's parser binds clamp(x, 3, t) to its Scalar overload when the tensor
// bounds are 0-d and need no grad (a 0-d tensor passes as a number there): the
// bound is read as a number (its value checked, out's dtype exact, the result
// dtype a number's: clamp(int16_x, half_0d, 127) is float32).
void clamp_scalar_overload(std::optional<Operand>& mn, std::optional<Operand>& mx) {
  const bool number = (mn && mn->is_scalar()) || (mx && mx->is_scalar());
  if (!number) return;
  for (std::optional<Operand>* b : {&mn, &mx}) {
    if (*b && !(*b)->is_scalar() &&
        ((*b)->tensor.dim() != 0 || autograd::requires_grad((*b)->tensor))) {
      return;
    }
  }
  for (std::optional<Operand>* b : {&mn, &mx}) {
    if (*b && !(*b)->is_scalar()) {
      *b = Operand(scalar_arg(element_to_py((*b)->tensor), "clamp", "min"));
    }
  }
}

// clamp_min(x, nan) / clamp_max(x, nan) with a number: torch's clamp_min_out /
// clamp_max_out fill the result with NaN (on both devices; clamp(x, min=nan)
// instead runs its kernel, which keeps x). Given as two NaN bounds, which
// ops::clamp fills with NaN in the result dtype.
void nan_bound_fills(std::optional<Operand>& mn, std::optional<Operand>& mx) {
  std::optional<Operand>& b = mn ? mn : mx;
  if (b && b->is_scalar() && b->scalar.is_floating() && std::isnan(b->scalar.d)) {
    mn = *b;
    mx = *b;
  }
}

template <int KIND>
PyObject* clamp_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature both("clamp", 3, {"input", "min", "max", "out"});
  static Signature lo("clamp_min", 2, {"input", "min", "out"});
  static Signature hi("clamp_max", 2, {"input", "max", "out"});
  PyObject* s[4] = {};
  (KIND == kBoth ? both : KIND == kMinOnly ? lo : hi).parse(args, nargsf, kw, s);
  if (!s[0]) throw TypeError("clamp() missing required argument 'input'");
  const Tensor& x = tensor_arg(s[0], "'input'");
  std::optional<Operand> mn, mx;
  PyObject* out_obj;
  if (KIND == kBoth) {
    mn = optional_operand(s[1], "clamp", "min");
    mx = optional_operand(s[2], "clamp", "max");
    clamp_scalar_overload(mn, mx);
    out_obj = s[3];
  } else {
    (KIND == kMinOnly ? mn : mx) = operand_arg(s[1], "clamp", KIND == kMinOnly ? "min" : "max");
    nan_bound_fills(mn, mx);
    out_obj = s[2];
  }
  const Tensor out = out_arg(out_obj, "clamp");
  check_clamp_bounds(x, mn, mx);
  const Operand in(x);
  Tensor r = maybe_nogil(worth_releasing_gil({&in}), [&] { return autograd::clamp(x, mn, mx, out); });
  return finish(std::move(r), out, out_obj);
  EMBER_PY_CATCH
}

template <int KIND, bool INPLACE>
PyObject* clamp_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature both("clamp", 2, {"min", "max"});
  static Signature lo("clamp_min", 1, {"min"});
  static Signature hi("clamp_max", 1, {"max"});
  PyObject* s[2] = {};
  (KIND == kBoth ? both : KIND == kMinOnly ? lo : hi).parse(args, nargsf, kw, s);
  const Tensor& x = tensor_arg(self);
  std::optional<Operand> mn, mx;
  if (KIND == kBoth) {
    mn = optional_operand(s[0], "clamp", "min");
    mx = optional_operand(s[1], "clamp", "max");
    clamp_scalar_overload(mn, mx);
  } else {
    (KIND == kMinOnly ? mn : mx) = operand_arg(s[0], "clamp", KIND == kMinOnly ? "min" : "max");
    nan_bound_fills(mn, mx);
  }
  check_clamp_bounds(x, mn, mx);
  const Operand in(x);
  const bool release = worth_releasing_gil({&in});
  if (INPLACE) {
    maybe_nogil(release, [&] { return autograd::clamp(x, mn, mx, x, true); });
    return same_obj(self);
  }
  return wrap(maybe_nogil(release, [&] { return autograd::clamp(x, mn, mx); }));
  EMBER_PY_CATCH
}

// ---- lerp, addcmul, addcdiv ------------------------------------------------------

PyObject* lerp_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature sig("lerp", 3, {"input", "end", "weight", "out"});
  PyObject* s[4];
  sig.parse(args, nargsf, kw, s);
  const Tensor& a = tensor_arg(s[0], "'input'");
  const Tensor& b = tensor_arg(s[1], "'end'");
  const Operand w = operand_arg(s[2], "lerp", "weight");
  const Tensor out = out_arg(s[3], "lerp");
  if (w.is_scalar()) check_opmath_number(w.scalar, a.dtype());
  return finish(autograd::lerp(a, b, w, out), out, s[3]);
  EMBER_PY_CATCH
}

template <bool INPLACE>
PyObject* lerp_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  static Signature sig("lerp", 2, {"end", "weight"});
  PyObject* s[2];
  sig.parse(args, nargsf, kw, s);
  const Tensor& a = tensor_arg(self);
  const Tensor& b = tensor_arg(s[0], "'end'");
  const Operand w = operand_arg(s[1], "lerp", "weight");
  if (w.is_scalar()) check_opmath_number(w.scalar, a.dtype());
  if (INPLACE) {
    autograd::lerp(a, b, w, a, true);
    return same_obj(self);
  }
  return wrap(autograd::lerp(a, b, w));
  EMBER_PY_CATCH
}

template <bool DIV>
PyObject* addc_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  constexpr const char* fn = DIV ? "addcdiv" : "addcmul";
  static Signature sig(fn, 3, {"input", "tensor1", "tensor2", "value", "out"});
  PyObject* s[5];
  sig.parse(args, nargsf, kw, s);
  const Tensor& x = tensor_arg(s[0], "'input'");
  const Tensor& a = tensor_arg(s[1], "'tensor1'");
  const Tensor& b = tensor_arg(s[2], "'tensor2'");
  const Scalar v = s[3] ? number_arg(s[3], fn, "value") : Scalar::from_int(1);
  const Tensor out = out_arg(s[4], fn);
  check_addc_value(x, a, b, v);
  Tensor r = DIV ? autograd::addcdiv(x, a, b, v, out) : autograd::addcmul(x, a, b, v, out);
  return finish(std::move(r), out, s[4]);
  EMBER_PY_CATCH
}

template <bool DIV, bool INPLACE>
PyObject* addc_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  constexpr const char* fn = DIV ? "addcdiv" : "addcmul";
  static Signature sig(fn, 2, {"tensor1", "tensor2", "value"});
  PyObject* s[3];
  sig.parse(args, nargsf, kw, s);
  const Tensor& x = tensor_arg(self);
  const Tensor& a = tensor_arg(s[0], "'tensor1'");
  const Tensor& b = tensor_arg(s[1], "'tensor2'");
  const Scalar v = s[2] ? number_arg(s[2], fn, "value") : Scalar::from_int(1);
  const Tensor out = INPLACE ? x : Tensor();
  check_addc_value(x, a, b, v);
  Tensor r = DIV ? autograd::addcdiv(x, a, b, v, out, INPLACE) : autograd::addcmul(x, a, b, v, out, INPLACE);
  if (INPLACE) return same_obj(self);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

}  // namespace

void add_ternary_defs(MathDefs& d) {
  const PyMethodDef fns[] = {
      {"where", EMBER_FAST(&where_function), kFastKw,
       "where(condition, input, other): input where condition is True, other elsewhere"},
      {"clamp", EMBER_FAST(&clamp_function<kBoth>), kFastKw,
       "clamp(input, min=None, max=None): numbers or tensors as bounds"},
      {"clip", EMBER_FAST(&clamp_function<kBoth>), kFastKw, "clip: clamp"},
      {"clamp_min", EMBER_FAST(&clamp_function<kMinOnly>), kFastKw, "clamp(input, min=min)"},
      {"clamp_max", EMBER_FAST(&clamp_function<kMaxOnly>), kFastKw, "clamp(input, max=max)"},
      {"lerp", EMBER_FAST(&lerp_function), kFastKw, "input + weight * (end - input)"},
      {"addcmul", EMBER_FAST(&addc_function<false>), kFastKw, "input + value * t1 * t2"},
      {"addcdiv", EMBER_FAST(&addc_function<true>), kFastKw, "input + value * t1 / t2"},
  };
  const PyMethodDef methods[] = {
      {"where", EMBER_FAST(&where_method), kFastKw, "where(condition, self, other)"},
      {"clamp", EMBER_FAST((&clamp_method<kBoth, false>)), kFastKw, nullptr},
      {"clamp_", EMBER_FAST((&clamp_method<kBoth, true>)), kFastKw, nullptr},
      {"clip", EMBER_FAST((&clamp_method<kBoth, false>)), kFastKw, nullptr},
      {"clip_", EMBER_FAST((&clamp_method<kBoth, true>)), kFastKw, nullptr},
      {"clamp_min", EMBER_FAST((&clamp_method<kMinOnly, false>)), kFastKw, nullptr},
      {"clamp_min_", EMBER_FAST((&clamp_method<kMinOnly, true>)), kFastKw, nullptr},
      {"clamp_max", EMBER_FAST((&clamp_method<kMaxOnly, false>)), kFastKw, nullptr},
      {"clamp_max_", EMBER_FAST((&clamp_method<kMaxOnly, true>)), kFastKw, nullptr},
      {"lerp", EMBER_FAST(&lerp_method<false>), kFastKw, nullptr},
      {"lerp_", EMBER_FAST(&lerp_method<true>), kFastKw, nullptr},
      {"addcmul", EMBER_FAST((&addc_method<false, false>)), kFastKw, nullptr},
      {"addcmul_", EMBER_FAST((&addc_method<false, true>)), kFastKw, nullptr},
      {"addcdiv", EMBER_FAST((&addc_method<true, false>)), kFastKw, nullptr},
      {"addcdiv_", EMBER_FAST((&addc_method<true, true>)), kFastKw, nullptr},
  };
  for (const PyMethodDef& f : fns) d.functions.push_back(f);
  for (const PyMethodDef& m : methods) d.methods.push_back(m);
}

}  // namespace ember::bindings
