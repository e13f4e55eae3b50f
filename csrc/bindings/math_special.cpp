// The special functions from Python (ops/pointwise/special.hpp through
// autograd/functions_special.hpp): ember.lgamma(x, out=), x.lgamma(),
// x.lgamma_(), ember.polygamma(n, x), ember.logit(x, eps), ember.igamma(a, x),
// ember.gcd(a, b), ...; the torch.special-only ones are bound as
// _C.special_<name> and re-exported by ember.special (the jitted ones of
// ops/pointwise/special_jit.hpp too); frexp as _C._frexp (ember wraps its pair
// in return_types.frexp).
#include <Python.h>

#include <string>
#include <vector>

#include "autograd/functions_special.hpp"
#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "ops/pointwise/special_jit.hpp"

namespace ember::bindings {

namespace {

using ops::Operand;
using ops::SpecialOp;

enum SpecialKind : uint8_t {
  kSpecialUnary,      // (input, *, out)
  kSpecialPolygamma,  // (n, input, *, out); method (n)
  kSpecialLogit,      // (input, eps=None, *, out); method (eps=None)
  kSpecialBinary,     // (input, other, *, out): tensors only
  kSpecialBinaryNum,  // the same, numbers allowed for either
};

struct SpecialEntry {
  const char* name;
  SpecialOp op;
  SpecialKind kind;
  bool method;          // Tensor.<name> and Tensor.<name>_
  bool module_inplace;  // ember.<name>_ (where torch has it)
};

constexpr SpecialEntry kSpecial[] = {
    {"lgamma", SpecialOp::Lgamma, kSpecialUnary, true, false},
    {"digamma", SpecialOp::Digamma, kSpecialUnary, true, false},
    {"polygamma", SpecialOp::Polygamma, kSpecialPolygamma, true, false},
    {"erfinv", SpecialOp::Erfinv, kSpecialUnary, true, false},
    {"i0", SpecialOp::I0, kSpecialUnary, true, true},
    {"logit", SpecialOp::Logit, kSpecialLogit, true, true},
    {"igamma", SpecialOp::Igamma, kSpecialBinary, true, false},
    {"igammac", SpecialOp::Igammac, kSpecialBinary, true, false},
    {"nextafter", SpecialOp::Nextafter, kSpecialBinary, true, false},
    {"gcd", SpecialOp::Gcd, kSpecialBinary, true, true},
    {"lcm", SpecialOp::Lcm, kSpecialBinary, true, true},
    // torch.special only
    {"special_i0e", SpecialOp::I0e, kSpecialUnary, false, false},
    {"special_i1", SpecialOp::I1, kSpecialUnary, false, false},
    {"special_i1e", SpecialOp::I1e, kSpecialUnary, false, false},
    {"special_ndtr", SpecialOp::Ndtr, kSpecialUnary, false, false},
    {"special_ndtri", SpecialOp::Ndtri, kSpecialUnary, false, false},
    {"special_log_ndtr", SpecialOp::LogNdtr, kSpecialUnary, false, false},
    {"special_erfcx", SpecialOp::Erfcx, kSpecialUnary, false, false},
    {"special_bessel_j0", SpecialOp::BesselJ0, kSpecialUnary, false, false},
    {"special_bessel_j1", SpecialOp::BesselJ1, kSpecialUnary, false, false},
    {"special_entr", SpecialOp::Entr, kSpecialUnary, false, false},
    {"special_zeta", SpecialOp::Zeta, kSpecialBinaryNum, false, false},
    {"special_xlog1py", SpecialOp::Xlog1py, kSpecialBinaryNum, false, false},
};
constexpr int kNumSpecial = sizeof(kSpecial) / sizeof(kSpecial[0]);

// Signatures of entry i: [function, method, module in-place].
Signature& special_sig(int i, int form) {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (const SpecialEntry& e : kSpecial) {
      switch (e.kind) {
        case kSpecialUnary:
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"input", "out"});
          v->emplace_back(e.name, 0, std::initializer_list<const char*>{});
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"input"}, 1);
          break;
        case kSpecialPolygamma:
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"n", "input", "out"}, 2);
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"n"}, 1);
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"n", "input"}, 2);
          break;
        case kSpecialLogit:
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "eps", "out"});
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"eps"});
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "eps"}, 1);
          break;
        case kSpecialBinary:
        case kSpecialBinaryNum:
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "other", "out"}, 2);
          v->emplace_back(e.name, 1, std::initializer_list<const char*>{"other"}, 1);
          v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "other"}, 2);
          break;
      }
    }
    return v;
  }();
  return (*s)[3 * i + form];
}

const char* type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// torch's message for a number where only tensors are taken.
Operand tensor_operand(PyObject* o, const char* fn, const char* arg, int pos) {
  if (!is_tensor(o)) {
    throw TypeError(detail::str(fn, "(): argument '", arg, "' (position ", pos,
                                ") must be Tensor, not ", type_name(o)));
  }
  return Operand(tensor_arg(o));
}

Operand operand(const SpecialEntry& e, PyObject* o, const char* arg, int pos) {
  if (e.kind == kSpecialBinary) return tensor_operand(o, e.name, arg, pos);
  return operand_arg(o, e.name, arg);
}

int64_t order_arg(PyObject* o, const char* fn) {
  if (PyBool_Check(o) || !PyLong_Check(o)) {
    throw TypeError(detail::str(fn, "(): argument 'n' (position 1) must be int, not ",
                                type_name(o)));
  }
  return int_arg(o, fn, "n");
}

ops::SpecialArgs logit_args(PyObject* eps, const char* fn) {
  ops::SpecialArgs a;
  if (eps && eps != Py_None) a.eps = number_arg(eps, fn, "eps").to_double();
  return a;
}

// The call in all three forms: `self` set for methods (form 1) and in-place.
Tensor call(const SpecialEntry& e, PyObject* const* s, PyObject* self, bool inplace,
            const Tensor& out) {
  if (e.kind == kSpecialBinary || e.kind == kSpecialBinaryNum) {
    const Operand a = self ? Operand(tensor_arg(self)) : operand(e, s[0], "input", 1);
    const Operand b = operand(e, s[self ? 0 : 1], "other", 2);
    if (inplace) {
      return maybe_nogil(worth_releasing_gil({&a, &b}), [&] {
        return autograd::special_binary(e.op, a, b, a.tensor, true);
      });
    }
    return maybe_nogil(worth_releasing_gil({&a, &b}),
                       [&] { return autograd::special_binary(e.op, a, b, out); });
  }
  ops::SpecialArgs args;
  PyObject* xobj = self;
  if (e.kind == kSpecialPolygamma) {
    args.n = order_arg(s[0], e.name);
    if (!self) xobj = s[1];
  } else {
    if (!self) xobj = s[0];
    if (e.kind == kSpecialLogit) args = logit_args(s[self ? 0 : 1], e.name);
  }
  const Tensor& x = tensor_arg(xobj, "'input'");
  const Operand in(x);
  if (inplace) {
    return maybe_nogil(worth_releasing_gil({&in}),
                       [&] { return autograd::special_unary(e.op, x, args, x, true); });
  }
  return maybe_nogil(worth_releasing_gil({&in}),
                     [&] { return autograd::special_unary(e.op, x, args, out); });
}

int n_inputs(SpecialKind k) { return k == kSpecialUnary ? 1 : 2; }

template <int I>
PyObject* special_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                           PyObject* kwnames) {
  EMBER_PY_TRY
  const SpecialEntry& e = kSpecial[I];
  PyObject* s[4] = {nullptr, nullptr, nullptr, nullptr};
  special_sig(I, 0).parse(args, nargsf, kwnames, s);
  if (e.kind == kSpecialUnary && !s[0]) {
    throw TypeError(detail::str(e.name, "() missing required argument 'input'"));
  }
  PyObject* out_obj = s[n_inputs(e.kind)];
  const Tensor out = out_arg(out_obj, e.name);
  Tensor r = call(e, s, nullptr, false, out);
  if (out.defined()) return same_obj(out_obj);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <int I, bool INPLACE>
PyObject* special_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  EMBER_PY_TRY
  const SpecialEntry& e = kSpecial[I];
  PyObject* s[2] = {nullptr, nullptr};
  special_sig(I, 1).parse(args, nargsf, kwnames, s);
  Tensor r = call(e, s, self, INPLACE, Tensor());
  if (INPLACE) return same_obj(self);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

// ember.<name>_(input, ...): the in-place form at module level.
template <int I>
PyObject* special_function_inplace(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                                   PyObject* kwnames) {
  EMBER_PY_TRY
  const SpecialEntry& e = kSpecial[I];
  PyObject* s[2] = {nullptr, nullptr};
  special_sig(I, 2).parse(args, nargsf, kwnames, s);
  PyObject* self = s[0];
  if (e.kind == kSpecialPolygamma) self = s[1];
  if (!is_tensor(self)) {
    throw TypeError(detail::str(e.name, "_(): argument 'input' must be Tensor, not ",
                                type_name(self)));
  }
  PyObject* rest[1] = {e.kind == kSpecialPolygamma ? s[0] : s[1]};
  call(e, rest, self, true, Tensor());
  return same_obj(self);
  EMBER_PY_CATCH
}

Signature& frexp_sig() {
  static Signature* s = new Signature("frexp", 3, {"input", "mantissa", "exponent"}, 1);
  return *s;
}

// _C._frexp(input, mantissa=None, exponent=None) -> (mantissa, exponent)
PyObject* frexp_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  EMBER_PY_TRY
  PyObject* s[3] = {nullptr, nullptr, nullptr};
  frexp_sig().parse(args, nargsf, kwnames, s);
  const Tensor& x = tensor_arg(s[0], "'input'");
  const Tensor m = out_arg(s[1], "frexp"), e = out_arg(s[2], "frexp");
  auto r = autograd::frexp(x, m, e);
  PyObject* t = PyTuple_New(2);
  if (!t) return nullptr;
  PyTuple_SET_ITEM(t, 0, m.defined() ? same_obj(s[1]) : wrap(std::move(r.first)));
  PyTuple_SET_ITEM(t, 1, e.defined() ? same_obj(s[2]) : wrap(std::move(r.second)));
  return t;
  EMBER_PY_CATCH
}

template <int... I>
void special_defs(MathDefs& d, std::vector<PyMethodDef>& private_fns,
                  std::integer_sequence<int, I...>) {
  (
      [&] {
        const SpecialEntry& e = kSpecial[I];
        const PyMethodDef f{e.name, EMBER_FAST(&special_function<I>), kFastKw, nullptr};
        // torch.special-only functions stay out of ember's namespace
        (e.method ? d.functions : private_fns).push_back(f);
        if (e.method) {
          d.methods.push_back({e.name, EMBER_FAST((&special_method<I, false>)), kFastKw, nullptr});
          d.methods.push_back({inplace_name(e.name), EMBER_FAST((&special_method<I, true>)),
                               kFastKw, nullptr});
        }
        if (e.module_inplace) {
          d.functions.push_back({inplace_name(e.name), EMBER_FAST(&special_function_inplace<I>),
                                 kFastKw, nullptr});
        }
      }(),
      ...);
}

}  // namespace

void add_special_defs(MathDefs& d, std::vector<PyMethodDef>& private_fns) {
  special_defs(d, private_fns, std::make_integer_sequence<int, kNumSpecial>{});
  private_fns.push_back({"_frexp", EMBER_FAST(&frexp_function), kFastKw,
                         "_frexp(input, mantissa=None, exponent=None) -> (mantissa, exponent)"});
}

// ---- the torch.special functions whose GPU kernels are jitted ----------------
// (ops/pointwise/special_jit.hpp) _C.special_airy_ai(x, *, out=None),
// _C.special_bessel_y0(input, *, out=None), ...,
// _C.special_chebyshev_polynomial_t(x, n, *, out=None), ... (re-exported by
// ember.special without the prefix; torch has them nowhere else). Their results
// never require grad, as torch's.

namespace {

using ops::JitSpecialOp;

constexpr int kNumOps = ops::kNumJitSpecialOps;

// _C's name ("special_airy_ai"), a C string that lives for the process.
const char* c_name(JitSpecialOp op) {
  static auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (int i = 0; i < kNumOps; ++i) {
      v->push_back(std::string("special_") + ops::jit_special_name(static_cast<JitSpecialOp>(i)));
    }
    return v;
  }();
  return (*names)[static_cast<size_t>(op)].c_str();
}

// torch's name for the one-operand functions' argument.
const char* input_name(JitSpecialOp op) {
  switch (op) {
    case JitSpecialOp::AiryAi:
    case JitSpecialOp::ScaledModifiedBesselK0:
    case JitSpecialOp::ScaledModifiedBesselK1:
    case JitSpecialOp::SphericalBesselJ0:
      return "x";
    default:
      return "input";
  }
}

const Signature& signature(JitSpecialOp op) {
  static auto* sigs = [] {
    auto* v = new std::vector<Signature>();
    v->reserve(kNumOps);
    for (int i = 0; i < kNumOps; ++i) {
      const auto o = static_cast<JitSpecialOp>(i);
      if (ops::is_polynomial(o)) {
        v->emplace_back(c_name(o), 2, std::initializer_list<const char*>{"x", "n", "out"}, 2);
      } else {
        v->emplace_back(c_name(o), 1, std::initializer_list<const char*>{input_name(o), "out"}, 1);
      }
    }
    return v;
  }();
  return (*sigs)[static_cast<size_t>(op)];
}

bool is_number(PyObject* o) {
  Operand tmp;
  return !is_tensor(o) && to_operand(o, &tmp);
}

// torch's message for arguments that match none of the polynomial's forms.
[[noreturn]] void invalid_combination(JitSpecialOp op, PyObject* x, PyObject* n) {
  auto kind = [](PyObject* o) {
    return is_tensor(o) ? std::string("Tensor") : std::string(Py_TYPE(o)->tp_name);
  };
  throw TypeError(detail::str(c_name(op), "() received an invalid combination of arguments - got (",
                              kind(x), ", ", kind(n), "), but expected one of:\n",
                              " * (Tensor x, Tensor n, *, Tensor out = None)\n",
                              " * (Number x, Tensor n, *, Tensor out = None)\n",
                              " * (Tensor x, Number n, *, Tensor out = None)\n"));
}

template <int I>
PyObject* special_jit_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                               PyObject* kwnames) {
  EMBER_PY_TRY
  constexpr auto op = static_cast<JitSpecialOp>(I);
  PyObject* s[3] = {nullptr, nullptr, nullptr};
  signature(op).parse(args, nargsf, kwnames, s);
  if constexpr (ops::is_polynomial(op)) {
    PyObject* xo = s[0];
    PyObject* no = s[1];
    const bool x_ok = is_tensor(xo) || is_number(xo);
    const bool n_ok = is_tensor(no) || is_number(no);
    if (!x_ok || !n_ok || (!is_tensor(xo) && !is_tensor(no))) invalid_combination(op, xo, no);
    const Operand x = operand_arg(xo, c_name(op), "x");
    const Operand n = operand_arg(no, c_name(op), "n");
    const Tensor out = out_arg(s[2], c_name(op));
    Tensor r = maybe_nogil(worth_releasing_gil({&x, &n}),
                           [&] { return ops::jit_special_polynomial(op, x, n, out); });
    if (out.defined()) return same_obj(s[2]);
    return wrap(std::move(r));
  } else {
    PyObject* xo = s[0];
    if (!is_tensor(xo)) {
      throw TypeError(detail::str(c_name(op), "(): argument '", input_name(op),
                                  "' (position 1) must be Tensor, not ", Py_TYPE(xo)->tp_name));
    }
    const Operand x(tensor_arg(xo));
    const Tensor out = out_arg(s[1], c_name(op));
    Tensor r = maybe_nogil(worth_releasing_gil({&x}),
                           [&] { return ops::jit_special_unary(op, x.tensor, out); });
    if (out.defined()) return same_obj(s[1]);
    return wrap(std::move(r));
  }
  EMBER_PY_CATCH
}

template <int... I>
void special_jit_defs(std::vector<PyMethodDef>& fns, std::integer_sequence<int, I...>) {
  (fns.push_back({c_name(static_cast<JitSpecialOp>(I)), EMBER_FAST(&special_jit_function<I>),
                  kFastKw, nullptr}),
   ...);
}

}  // namespace

void add_special_jit_defs(std::vector<PyMethodDef>& private_fns) {
  special_jit_defs(private_fns, std::make_integer_sequence<int, kNumOps>{});
}

}  // namespace ember::bindings
