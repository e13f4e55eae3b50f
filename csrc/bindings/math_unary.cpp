// One-operand math and the bitwise ops from Python: ember.sin(x, out=),
// x.sin(), x.sin_(), ... ; ember.bitwise_and(a, b), a & b, a.bitwise_and_(b),
// ~a, a << 2 ...; and the unary operators -x, abs(x), ~x, +x.
#include <Python.h>

#include <cmath>
#include <string>

#include "autograd/functions.hpp"
#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "ops/pointwise/bitwise.hpp"
#include "ops/pointwise/unary.hpp"

namespace ember::bindings {

namespace {

using ops::BitwiseOp;
using ops::Operand;
using ops::UnaryOp;

enum UnaryExtra : uint8_t { kUnaryNone, kDecimals, kNanToNum, kApproximate };

struct UnaryEntry {
  const char* name;
  UnaryOp op;
  UnaryExtra extra;
  bool has_method, has_inplace;
};

constexpr UnaryEntry kUnary[] = {
    {"sqrt", UnaryOp::Sqrt, kUnaryNone, true, true},
    {"rsqrt", UnaryOp::Rsqrt, kUnaryNone, true, true},
    {"exp", UnaryOp::Exp, kUnaryNone, true, true},
    {"exp2", UnaryOp::Exp2, kUnaryNone, true, true},
    {"expm1", UnaryOp::Expm1, kUnaryNone, true, true},
    {"log", UnaryOp::Log, kUnaryNone, true, true},
    {"log2", UnaryOp::Log2, kUnaryNone, true, true},
    {"log10", UnaryOp::Log10, kUnaryNone, true, true},
    {"log1p", UnaryOp::Log1p, kUnaryNone, true, true},
    {"sin", UnaryOp::Sin, kUnaryNone, true, true},
    {"cos", UnaryOp::Cos, kUnaryNone, true, true},
    {"tan", UnaryOp::Tan, kUnaryNone, true, true},
    {"asin", UnaryOp::Asin, kUnaryNone, true, true},
    {"arcsin", UnaryOp::Asin, kUnaryNone, true, true},
    {"acos", UnaryOp::Acos, kUnaryNone, true, true},
    {"arccos", UnaryOp::Acos, kUnaryNone, true, true},
    {"atan", UnaryOp::Atan, kUnaryNone, true, true},
    {"arctan", UnaryOp::Atan, kUnaryNone, true, true},
    {"sinh", UnaryOp::Sinh, kUnaryNone, true, true},
    {"cosh", UnaryOp::Cosh, kUnaryNone, true, true},
    {"tanh", UnaryOp::Tanh, kUnaryNone, true, true},
    {"asinh", UnaryOp::Asinh, kUnaryNone, true, true},
    {"arcsinh", UnaryOp::Asinh, kUnaryNone, true, true},
    {"acosh", UnaryOp::Acosh, kUnaryNone, true, true},
    {"arccosh", UnaryOp::Acosh, kUnaryNone, true, true},
    {"atanh", UnaryOp::Atanh, kUnaryNone, true, true},
    {"arctanh", UnaryOp::Atanh, kUnaryNone, true, true},
    {"sigmoid", UnaryOp::Sigmoid, kUnaryNone, true, true},
    {"erf", UnaryOp::Erf, kUnaryNone, true, true},
    {"erfc", UnaryOp::Erfc, kUnaryNone, true, true},
    {"reciprocal", UnaryOp::Reciprocal, kUnaryNone, true, true},
    {"gelu", UnaryOp::Gelu, kApproximate, false, false},
    {"silu", UnaryOp::Silu, kUnaryNone, false, false},
    {"frac", UnaryOp::Frac, kUnaryNone, true, true},
    {"neg", UnaryOp::Neg, kUnaryNone, true, true},
    {"negative", UnaryOp::Neg, kUnaryNone, true, true},
    {"abs", UnaryOp::Abs, kUnaryNone, true, true},
    {"absolute", UnaryOp::Abs, kUnaryNone, true, true},
    {"sign", UnaryOp::Sign, kUnaryNone, true, true},
    {"square", UnaryOp::Square, kUnaryNone, true, true},
    {"relu", UnaryOp::Relu, kUnaryNone, true, true},
    {"floor", UnaryOp::Floor, kUnaryNone, true, true},
    {"ceil", UnaryOp::Ceil, kUnaryNone, true, true},
    {"round", UnaryOp::Round, kDecimals, true, true},
    {"trunc", UnaryOp::Trunc, kUnaryNone, true, true},
    {"fix", UnaryOp::Trunc, kUnaryNone, true, true},
    {"nan_to_num", UnaryOp::NanToNum, kNanToNum, true, true},
    {"isnan", UnaryOp::IsNan, kUnaryNone, true, false},
    {"isinf", UnaryOp::IsInf, kUnaryNone, true, false},
    {"isfinite", UnaryOp::IsFinite, kUnaryNone, true, false},
    {"logical_not", UnaryOp::LogicalNot, kUnaryNone, true, true},
};
constexpr int kNumUnary = sizeof(kUnary) / sizeof(kUnary[0]);

// Parameter names of entry i: [function, method].
Signature& unary_sig(int i, bool method) {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (const UnaryEntry& e : kUnary) {
      switch (e.extra) {
        case kUnaryNone:
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"input", "out"});
          v->emplace_back(e.name, 0, std::initializer_list<const char*>{});
          break;
        case kDecimals:
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"input", "decimals", "out"});
          v->emplace_back(e.name, 0, std::initializer_list<const char*>{"decimals"});
          break;
        case kNanToNum:
          v->emplace_back(e.name, 4, std::initializer_list<const char*>{"input", "nan", "posinf",
                                                                        "neginf", "out"});
          v->emplace_back(e.name, 3, std::initializer_list<const char*>{"nan", "posinf", "neginf"});
          break;
        case kApproximate:
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "approximate", "out"});
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"approximate"});
          break;
      }
    }
    return v;
  }();
  return (*s)[2 * i + (method ? 1 : 0)];
}

std::optional<double> optional_double(PyObject* o, const char* fn, const char* arg) {
  if (!o || o == Py_None) return std::nullopt;
  return number_arg(o, fn, arg).to_double();
}

// Extras from slots[0..] (after input): fills args and may change the op.
UnaryOp parse_extra(const UnaryEntry& e, PyObject* const* s, ops::UnaryArgs* args) {
  switch (e.extra) {
    case kDecimals:
      if (s[0] && s[0] != Py_None) args->decimals = int_arg(s[0], e.name, "decimals");
      return e.op;
    case kNanToNum:
      if (s[0] && s[0] != Py_None) args->nan = number_arg(s[0], e.name, "nan").to_double();
      args->posinf = optional_double(s[1], e.name, "posinf");
      args->neginf = optional_double(s[2], e.name, "neginf");
      return e.op;
    case kApproximate:
      if (!s[0] || s[0] == Py_None) return e.op;
      if (PyUnicode_Check(s[0])) {
        if (PyUnicode_CompareWithASCIIString(s[0], "none") == 0) return UnaryOp::Gelu;
        if (PyUnicode_CompareWithASCIIString(s[0], "tanh") == 0) return UnaryOp::GeluTanh;
      }
      throw ValueError("approximate argument must be either none or tanh.");
    default:
      return e.op;
  }
}

int n_extra(UnaryExtra x) { return x == kUnaryNone ? 0 : x == kNanToNum ? 3 : 1; }

template <int I>
PyObject* unary_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  EMBER_PY_TRY
  const UnaryEntry& e = kUnary[I];
  PyObject* s[5];
  unary_sig(I, false).parse(args, nargsf, kwnames, s);
  if (!s[0]) throw TypeError(detail::str(e.name, "() missing required argument 'input'"));
  const Tensor& x = tensor_arg(s[0], "'input'");
  ops::UnaryArgs a;
  const UnaryOp op = parse_extra(e, s + 1, &a);
  PyObject* out_obj = s[1 + n_extra(e.extra)];
  const Tensor out = out_arg(out_obj, e.name);
  const Operand in(x);
  Tensor r = maybe_nogil(worth_releasing_gil({&in}), [&] { return autograd::unary(op, x, a, out); });
  if (out.defined()) return same_obj(out_obj);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <int I, bool INPLACE>
PyObject* unary_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames);

// ember.abs_(input), ember.round_(input, decimals=0), ...: the in-place form
// at module level, where torch has one.
template <int I>
PyObject* unary_function_inplace(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                                 PyObject* kwnames) {
  EMBER_PY_TRY
  const UnaryEntry& e = kUnary[I];
  if ((nargsf & ~PY_VECTORCALL_ARGUMENTS_OFFSET) < 1) {
    throw TypeError(detail::str(e.name, "_() missing required argument 'input'"));
  }
  // The method's parse of what follows input.
  PyObject* self = args[0];
  if (!is_tensor(self)) {
    throw TypeError(detail::str(e.name, "_(): argument 'input' (position 1) must be Tensor, not ",
                                Py_TYPE(self)->tp_name));
  }
  return unary_method<I, true>(self, args + 1, (nargsf & ~PY_VECTORCALL_ARGUMENTS_OFFSET) - 1,
                               kwnames);
  EMBER_PY_CATCH
}

// torch's module-level in-place unary functions (torch.abs_, torch.exp_, ...).
bool has_module_inplace(const char* name) {
  static const char* const kNames[] = {
      "abs", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
      "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "erf", "erfc", "exp2", "exp",
      "expm1", "fix", "floor", "frac", "log10", "log1p", "log2", "log", "nan_to_num", "neg",
      "negative", "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sin", "sinh", "sqrt",
      "square", "tan", "tanh", "trunc"};
  for (const char* n : kNames) {
    if (std::string(n) == name) return true;
  }
  return false;
}

template <int I, bool INPLACE>
PyObject* unary_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames) {
  EMBER_PY_TRY
  const UnaryEntry& e = kUnary[I];
  PyObject* s[3] = {nullptr, nullptr, nullptr};
  unary_sig(I, true).parse(args, nargsf, kwnames, s);
  const Tensor& x = tensor_arg(self);
  ops::UnaryArgs a;
  const UnaryOp op = parse_extra(e, s, &a);
  const Operand in(x);
  const bool release = worth_releasing_gil({&in});
  if (INPLACE) {
    maybe_nogil(release, [&] { return autograd::unary(op, x, a, x, true); });
    return same_obj(self);
  }
  return wrap(maybe_nogil(release, [&] { return autograd::unary(op, x, a); }));
  EMBER_PY_CATCH
}

// ---- bitwise ---------------------------------------------------------------------

struct BitwiseEntry {
  const char* name;
  BitwiseOp op;
};
constexpr BitwiseEntry kBitwise[] = {
    {"bitwise_and", BitwiseOp::And},
    {"bitwise_or", BitwiseOp::Or},
    {"bitwise_xor", BitwiseOp::Xor},
    {"bitwise_left_shift", BitwiseOp::LeftShift},
    {"bitwise_right_shift", BitwiseOp::RightShift},
};
constexpr int kNumBitwise = sizeof(kBitwise) / sizeof(kBitwise[0]);

Signature& bitwise_sig(int i, bool method) {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (const BitwiseEntry& e : kBitwise) {
      v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "other", "out"});
      v->emplace_back(e.name, 1, std::initializer_list<const char*>{"other"});
    }
    return v;
  }();
  return (*s)[2 * i + (method ? 1 : 0)];
}

template <int I>
PyObject* bitwise_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                           PyObject* kwnames) {
  EMBER_PY_TRY
  const BitwiseEntry& e = kBitwise[I];
  PyObject* s[3];
  bitwise_sig(I, false).parse(args, nargsf, kwnames, s);
  const Operand a = operand_arg(s[0], e.name, "input");
  const Operand b = operand_arg(s[1], e.name, "other");
  const Tensor out = out_arg(s[2], e.name);
  Tensor r = maybe_nogil(worth_releasing_gil({&a, &b}), [&] { return autograd::bitwise(e.op, a, b, out); });
  if (out.defined()) return same_obj(s[2]);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <int I, bool INPLACE>
PyObject* bitwise_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  EMBER_PY_TRY
  const BitwiseEntry& e = kBitwise[I];
  PyObject* s[1];
  bitwise_sig(I, true).parse(args, nargsf, kwnames, s);
  const Tensor& t = tensor_arg(self);
  const Operand a(t);
  const Operand b = operand_arg(s[0], e.name, "other");
  const bool release = worth_releasing_gil({&a, &b});
  if (INPLACE) {
    maybe_nogil(release, [&] { return autograd::bitwise(e.op, t, b, t, true); });
    return same_obj(self);
  }
  return wrap(maybe_nogil(release, [&] { return autograd::bitwise(e.op, t, b); }));
  EMBER_PY_CATCH
}

Signature& not_sig(bool method) {
  static Signature* fn = new Signature("bitwise_not", 1, {"input", "out"});
  static Signature* m = new Signature("bitwise_not", 0, {});
  return method ? *m : *fn;
}

PyObject* bitwise_not_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                               PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* s[2];
  not_sig(false).parse(args, nargsf, kwnames, s);
  if (!s[0]) throw TypeError("bitwise_not() missing required argument 'input'");
  const Tensor& x = tensor_arg(s[0], "'input'");
  const Tensor out = out_arg(s[1], "bitwise_not");
  Tensor r = autograd::bitwise_not(x, out);
  if (out.defined()) return same_obj(s[1]);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <bool INPLACE>
PyObject* bitwise_not_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                             PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* s[1];
  not_sig(true).parse(args, nargsf, kwnames, s);
  const Tensor& x = tensor_arg(self);
  if (INPLACE) {
    autograd::bitwise_not(x, x, true);
    return same_obj(self);
  }
  return wrap(autograd::bitwise_not(x));
  EMBER_PY_CATCH
}

// ---- operators ---------------------------------------------------------------------


template <UnaryOp OP>
PyObject* nb_unary(PyObject* a) {
  EMBER_PY_TRY
  if (!is_tensor(a)) return not_implemented();
  return wrap(autograd::unary(OP, tensor_arg(a)));
  EMBER_PY_CATCH
}

PyObject* nb_invert(PyObject* a) {
  EMBER_PY_TRY
  if (!is_tensor(a)) return not_implemented();
  const Tensor& x = tensor_arg(a);
  // torch's Tensor.__invert__ checks the dtype itself (TypeError) before
  // bitwise_not's "not implemented for 'Float'".
  if (is_floating(x.dtype())) {
    throw TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors");
  }
  return wrap(autograd::bitwise_not(x));
  EMBER_PY_CATCH
}

PyObject* nb_positive(PyObject* a) {
  EMBER_PY_TRY
  if (!is_tensor(a)) return not_implemented();
  if (tensor_arg(a).dtype() == ScalarType::Bool) {
    throw Error("The `+` operator, on a bool tensor is not supported.");
  }
  return same_obj(a);
  EMBER_PY_CATCH
}

template <BitwiseOp OP>
PyObject* nb_bitwise(PyObject* a, PyObject* b) {
  EMBER_PY_TRY
  Operand x, y;
  if (!to_operand(a, &x) || !to_operand(b, &y)) return not_implemented();
  return wrap(autograd::bitwise(OP, x, y));
  EMBER_PY_CATCH
}

template <BitwiseOp OP>
PyObject* nb_bitwise_inplace(PyObject* a, PyObject* b) {
  EMBER_PY_TRY
  Operand y;
  if (!is_tensor(a) || !to_operand(b, &y)) return not_implemented();
  const Tensor& t = tensor_arg(a);
  autograd::bitwise(OP, t, y, t, true);
  return same_obj(a);
  EMBER_PY_CATCH
}


template <BitwiseOp OP, int KIND>
PyObject* dunder(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_SetString(PyExc_TypeError, "expected exactly one argument");
    return nullptr;
  }
  if (KIND == kForward) return nb_bitwise<OP>(self, args[0]);
  if (KIND == kReflected) return nb_bitwise<OP>(args[0], self);
  return nb_bitwise_inplace<OP>(self, args[0]);
}

template <PyObject* (*F)(PyObject*)>
PyObject* dunder1(PyObject* self, PyObject* const*, Py_ssize_t nargs) {
  if (nargs != 0) {
    PyErr_SetString(PyExc_TypeError, "expected no arguments");
    return nullptr;
  }
  return F(self);
}

template <int... I>
void unary_defs(MathDefs& d, std::integer_sequence<int, I...>) {
  (
      [&] {
        const UnaryEntry& e = kUnary[I];
        d.functions.push_back({e.name, EMBER_FAST(&unary_function<I>), kFastKw, nullptr});
        if (e.has_method) {
          d.methods.push_back({e.name, EMBER_FAST((&unary_method<I, false>)), kFastKw, nullptr});
        }
        if (e.has_inplace) {
          d.methods.push_back({inplace_name(e.name), EMBER_FAST((&unary_method<I, true>)),
                               kFastKw, nullptr});
          if (has_module_inplace(e.name)) {
            d.functions.push_back({inplace_name(e.name), EMBER_FAST(&unary_function_inplace<I>),
                                   kFastKw, nullptr});
          }
        }
      }(),
      ...);
}

template <int... I>
void bitwise_defs(MathDefs& d, std::integer_sequence<int, I...>) {
  (
      [&] {
        const BitwiseEntry& e = kBitwise[I];
        d.functions.push_back({e.name, EMBER_FAST(&bitwise_function<I>), kFastKw, nullptr});
        d.methods.push_back({e.name, EMBER_FAST((&bitwise_method<I, false>)), kFastKw, nullptr});
        d.methods.push_back({inplace_name(e.name), EMBER_FAST((&bitwise_method<I, true>)),
                             kFastKw, nullptr});
      }(),
      ...);
}

#define EMBER_BIT_DUNDER(name, OP, KIND) \
  {name, EMBER_FAST((&dunder<BitwiseOp::OP, KIND>)), METH_FASTCALL, nullptr}
#define EMBER_BIT_DUNDER3(stem, OP)                      \
  EMBER_BIT_DUNDER("__" stem "__", OP, kForward),        \
      EMBER_BIT_DUNDER("__r" stem "__", OP, kReflected), \
      EMBER_BIT_DUNDER("__i" stem "__", OP, kInplace)

}  // namespace

void add_unary_defs(MathDefs& d) {
  unary_defs(d, std::make_integer_sequence<int, kNumUnary>{});
  bitwise_defs(d, std::make_integer_sequence<int, kNumBitwise>{});
  d.functions.push_back({"bitwise_not", EMBER_FAST(&bitwise_not_function), kFastKw, nullptr});
  d.methods.push_back({"bitwise_not", EMBER_FAST(&bitwise_not_method<false>), kFastKw, nullptr});
  d.methods.push_back({"bitwise_not_", EMBER_FAST(&bitwise_not_method<true>), kFastKw, nullptr});
  const PyMethodDef dunders[] = {
      EMBER_BIT_DUNDER3("and", And),
      EMBER_BIT_DUNDER3("or", Or),
      EMBER_BIT_DUNDER3("xor", Xor),
      EMBER_BIT_DUNDER3("lshift", LeftShift),
      EMBER_BIT_DUNDER3("rshift", RightShift),
      {"__neg__", EMBER_FAST(&dunder1<nb_unary<UnaryOp::Neg>>), METH_FASTCALL, nullptr},
      {"__abs__", EMBER_FAST(&dunder1<nb_unary<UnaryOp::Abs>>), METH_FASTCALL, nullptr},
      {"__invert__", EMBER_FAST(&dunder1<nb_invert>), METH_FASTCALL, nullptr},
      {"__pos__", EMBER_FAST(&dunder1<nb_positive>), METH_FASTCALL, nullptr},
  };
  for (const PyMethodDef& m : dunders) d.dunders.push_back(m);
}

void set_unary_slots(PyTypeObject* type) {
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_negative = nb_unary<UnaryOp::Neg>;
  nb->nb_absolute = nb_unary<UnaryOp::Abs>;
  nb->nb_invert = nb_invert;
  nb->nb_positive = nb_positive;
  nb->nb_and = nb_bitwise<BitwiseOp::And>;
  nb->nb_or = nb_bitwise<BitwiseOp::Or>;
  nb->nb_xor = nb_bitwise<BitwiseOp::Xor>;
  nb->nb_lshift = nb_bitwise<BitwiseOp::LeftShift>;
  nb->nb_rshift = nb_bitwise<BitwiseOp::RightShift>;
  nb->nb_inplace_and = nb_bitwise_inplace<BitwiseOp::And>;
  nb->nb_inplace_or = nb_bitwise_inplace<BitwiseOp::Or>;
  nb->nb_inplace_xor = nb_bitwise_inplace<BitwiseOp::Xor>;
  nb->nb_inplace_lshift = nb_bitwise_inplace<BitwiseOp::LeftShift>;
  nb->nb_inplace_rshift = nb_bitwise_inplace<BitwiseOp::RightShift>;
}

}  // namespace ember::bindings
