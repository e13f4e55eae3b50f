// The torch.special functions of ops/pointwise/special_jit.hpp from Python:
// _C.special_airy_ai(x, *, out=None), _C.special_bessel_y0(input, *, out=None),
// ..., _C.special_chebyshev_polynomial_t(x, n, *, out=None), ... (re-exported
// by ember.special without the prefix; torch has them nowhere else). Their
// results never require grad, as torch's.
#include <Python.h>

#include <string>
#include <vector>

#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "ops/pointwise/special_jit.hpp"

namespace ember::bindings {

namespace {

using ops::JitSpecialOp;
using ops::Operand;

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
void defs(std::vector<PyMethodDef>& fns, std::integer_sequence<int, I...>) {
  (fns.push_back({c_name(static_cast<JitSpecialOp>(I)), EMBER_FAST(&special_jit_function<I>),
                  kFastKw, nullptr}),
   ...);
}

}  // namespace

void add_special_jit_defs(std::vector<PyMethodDef>& private_fns) {
  defs(private_fns, std::make_integer_sequence<int, kNumOps>{});
}

}  // namespace ember::bindings
