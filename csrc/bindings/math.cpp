// Arithmetic and comparisons from Python: ember.add(a, b, alpha=, out=),
// Tensor.add / add_, and the operators (+ - * / // % ** and reflected and
// in-place forms, == != < <= > >=). All are CPython fast-call functions and
// number-protocol slots of ember.Tensor, so `a + b` costs one C call before
// the kernel launch. Operators return NotImplemented for operands that are
// neither tensors nor numbers, so other libraries' reflected operators work.
#include <Python.h>

#include <vector>

#include "autograd/functions.hpp"
#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/promotion.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/pointwise/unary.hpp"

namespace ember::bindings {

namespace {

using ops::BinaryOp;
using ops::CompareOp;
using ops::Operand;

enum Extra : uint8_t { kNone, kAlpha, kRounding };

struct BinaryEntry {
  const char* name;
  BinaryOp op;
  Extra extra;
  const char* other;   // the second parameter's name
  bool has_inplace;
  const char* doc;
};

constexpr BinaryEntry kBinary[] = {
    {"add", BinaryOp::Add, kAlpha, "other", true, "input + alpha * other"},
    {"sub", BinaryOp::Sub, kAlpha, "other", true, "input - alpha * other"},
    {"subtract", BinaryOp::Sub, kAlpha, "other", true, "input - alpha * other (sub)"},
    {"mul", BinaryOp::Mul, kNone, "other", true, "input * other"},
    {"multiply", BinaryOp::Mul, kNone, "other", true, "input * other (mul)"},
    {"div", BinaryOp::Div, kRounding, "other", true,
     "input / other; rounding_mode None (true division), 'trunc' or 'floor'"},
    {"divide", BinaryOp::Div, kRounding, "other", true, "div"},
    {"true_divide", BinaryOp::Div, kNone, "other", true, "input / other (true division)"},
    {"floor_divide", BinaryOp::DivFloor, kNone, "other", true, "input // other"},
    {"remainder", BinaryOp::Remainder, kNone, "other", true,
     "Python's input % other (the sign of other)"},
    {"fmod", BinaryOp::Fmod, kNone, "other", true, "C's fmod (the sign of input)"},
    {"pow", BinaryOp::Pow, kNone, "exponent", true, "input ** exponent"},
    {"float_power", BinaryOp::Pow, kNone, "exponent", false, "input ** exponent in float64"},
    {"atan2", BinaryOp::Atan2, kNone, "other", true, "atan2(input, other)"},
    {"arctan2", BinaryOp::Atan2, kNone, "other", true, "atan2"},
    {"hypot", BinaryOp::Hypot, kNone, "other", true, "sqrt(input**2 + other**2)"},
    {"maximum", BinaryOp::Maximum, kNone, "other", false, "elementwise max, NaN propagates"},
    {"minimum", BinaryOp::Minimum, kNone, "other", false, "elementwise min, NaN propagates"},
    {"fmax", BinaryOp::Fmax, kNone, "other", false, "elementwise max ignoring NaN"},
    {"fmin", BinaryOp::Fmin, kNone, "other", false, "elementwise min ignoring NaN"},
};
constexpr int kNumBinary = sizeof(kBinary) / sizeof(kBinary[0]);

struct CompareEntry {
  const char* name;
  CompareOp op;
  bool has_inplace;
};

constexpr CompareEntry kCompare[] = {
    {"eq", CompareOp::Eq, true},         {"ne", CompareOp::Ne, true},
    {"not_equal", CompareOp::Ne, true},  {"lt", CompareOp::Lt, true},
    {"less", CompareOp::Lt, true},       {"le", CompareOp::Le, true},
    {"less_equal", CompareOp::Le, true}, {"gt", CompareOp::Gt, true},
    {"greater", CompareOp::Gt, true},    {"ge", CompareOp::Ge, true},
    {"greater_equal", CompareOp::Ge, true},
    {"logical_and", CompareOp::LogicalAnd, true}, {"logical_or", CompareOp::LogicalOr, true},
    {"logical_xor", CompareOp::LogicalXor, true},
};
constexpr int kNumCompare = sizeof(kCompare) / sizeof(kCompare[0]);

ops::Rounding rounding_arg(PyObject* obj, const char* fn) {
  if (!obj || obj == Py_None) return ops::Rounding::None;
  if (PyUnicode_Check(obj)) {
    if (PyUnicode_CompareWithASCIIString(obj, "trunc") == 0) return ops::Rounding::Trunc;
    if (PyUnicode_CompareWithASCIIString(obj, "floor") == 0) return ops::Rounding::Floor;
  }
  const PyObject* r = PyObject_Repr(obj);
  std::string shown = r ? PyUnicode_AsUTF8(const_cast<PyObject*>(r)) : "?";
  Py_XDECREF(const_cast<PyObject*>(r));
  throw ValueError(detail::str(fn, " expected rounding_mode to be one of None, 'trunc', or "
                                   "'floor' but found ", shown));
}

// float_power computes in float64 (complex128 for complex values) whatever
// the inputs (torch's rule).
Operand as_double(const Operand& o) {
  if (o.is_scalar()) return o.scalar.is_complex() ? o : Operand(o.scalar.to_double());
  const ScalarType t =
      is_complex(o.tensor.dtype()) ? ScalarType::ComplexDouble : ScalarType::Float64;
  if (o.tensor.dtype() == t) return o;
  return Operand(autograd::to(o.tensor, o.tensor.device(), t));
}

// ---- the binary ops ----------------------------------------------------------

// The signatures of entry i: [function, method].
std::vector<Signature>& binary_sigs() {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (const BinaryEntry& e : kBinary) {
      const char* extra = e.extra == kAlpha ? "alpha" : e.extra == kRounding ? "rounding_mode"
                                                                             : nullptr;
      if (extra) {
        v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", e.other, extra, "out"});
        v->emplace_back(e.name, 1, std::initializer_list<const char*>{e.other, extra});
      } else {
        v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", e.other, "out"});
        v->emplace_back(e.name, 1, std::initializer_list<const char*>{e.other});
      }
    }
    return v;
  }();
  return *s;
}

// pow(tensor, number): torch converts the exponent into the result dtype
// checked when that is an integer dtype, float16 or bfloat16 (pow(int8_x, 300)
// raises; float32 and float64 take any double).
void check_pow_exponent(const Operand& a, const Operand& b) {
  if (a.is_scalar() || !b.is_scalar()) return;
  const ScalarType dt = ops::result_type({&a, &b});
  // torch's CPU pow reads a float32/float64 exponent unchecked; its CUDA pow
  // converts it checked (int32_x.cuda().pow(1e300) raises).
  if (!is_floating(dt) || dt == ScalarType::Float16 || dt == ScalarType::BFloat16 ||
      a.tensor.is_cuda()) {
    check_scalar_fits(b.scalar, dt);
  }
}

Tensor run_binary(const BinaryEntry& e, const Operand& a, const Operand& b, PyObject* extra,
                  const Tensor& out, bool inplace) {
  ops::BinaryArgs args;
  BinaryOp op = e.op;
  if (e.extra == kAlpha && extra) {
    args.alpha = number_arg(extra, e.name, "alpha");
    // torch converts alpha into the result dtype checked (add(int8_x, y, alpha=300) raises);
    // its CUDA kernels into the opmath type (float32 for float16/bfloat16:
    // half_x.cuda().add_(y, alpha=65520.0) works there). sub is add with -alpha, and -alpha
    // is what it checks (int8 sub with alpha=128 works, alpha=-128 raises; an int64
    // -INT64_MIN wraps to itself).
    ScalarType alpha_dt = ops::result_type({&a, &b});
    const bool cuda = (!a.is_scalar() && a.tensor.is_cuda()) || (!b.is_scalar() && b.tensor.is_cuda());
    if (cuda && (alpha_dt == ScalarType::Float16 || alpha_dt == ScalarType::BFloat16)) {
      alpha_dt = ScalarType::Float32;
    }
    Scalar checked = args.alpha;
    if (e.op == BinaryOp::Sub && checked.is_integral()) {
      checked = Scalar::from_int(static_cast<int64_t>(0ULL - static_cast<uint64_t>(checked.i)));
    } else if (e.op == BinaryOp::Sub && checked.is_floating()) {
      checked = Scalar::from_double(-checked.d);
    }
    check_scalar_fits(checked, alpha_dt);
  }
  if (e.extra == kRounding) op = ops::div_op(rounding_arg(extra, e.name));
  if (std::string_view(e.name) == "pow") check_pow_exponent(a, b);
  const bool release = worth_releasing_gil({&a, &b});
  if (std::string_view(e.name) == "float_power") {
    if (out.defined() && out.dtype() != ScalarType::Float64) {
      throw Error(detail::str("the output given to float_power has dtype ",
                              torch_scalar_name(out.dtype()),
                              " but the operation's result requires dtype Double"));
    }
    return maybe_nogil(release, [&] {
      return autograd::binary(op, as_double(a), as_double(b), args, out, inplace);
    });
  }
  return maybe_nogil(release, [&] { return autograd::binary(op, a, b, args, out, inplace); });
}

template <int I>
PyObject* binary_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  EMBER_PY_TRY
  const BinaryEntry& e = kBinary[I];
  PyObject* s[4];
  binary_sigs()[2 * I].parse(args, nargsf, kwnames, s);
  const Operand a = operand_arg(s[0], e.name, "input");
  const Operand b = operand_arg(s[1], e.name, e.other);
  PyObject* out_obj = e.extra == kNone ? s[2] : s[3];
  const Tensor out = out_arg(out_obj, e.name);
  Tensor r = run_binary(e, a, b, e.extra == kNone ? nullptr : s[2], out, false);
  if (out.defined()) return same_obj(out_obj);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <int I, bool INPLACE>
PyObject* binary_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                        PyObject* kwnames) {
  EMBER_PY_TRY
  const BinaryEntry& e = kBinary[I];
  PyObject* s[2];
  binary_sigs()[2 * I + 1].parse(args, nargsf, kwnames, s);
  const Tensor& t = tensor_arg(self);
  const Operand b = operand_arg(s[0], e.name, e.other);
  if (INPLACE) {
    run_binary(e, t, b, s[1], t, true);
    return same_obj(self);
  }
  return wrap(run_binary(e, t, b, s[1], Tensor(), false));
  EMBER_PY_CATCH
}

// ---- comparisons ---------------------------------------------------------------

Signature& compare_sig(int i, bool method) {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (const CompareEntry& e : kCompare) {
      v->emplace_back(e.name, 2, std::initializer_list<const char*>{"input", "other", "out"});
      v->emplace_back(e.name, 1, std::initializer_list<const char*>{"other"});
    }
    return v;
  }();
  return (*s)[2 * i + (method ? 1 : 0)];
}

template <int I>
PyObject* compare_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                           PyObject* kwnames) {
  EMBER_PY_TRY
  const CompareEntry& e = kCompare[I];
  PyObject* s[3];
  compare_sig(I, false).parse(args, nargsf, kwnames, s);
  const Operand a = operand_arg(s[0], e.name, "input");
  const Operand b = operand_arg(s[1], e.name, "other");
  const Tensor out = out_arg(s[2], e.name);
  Tensor r = maybe_nogil(worth_releasing_gil({&a, &b}),
                         [&] { return autograd::compare(e.op, a, b, out); });
  if (out.defined()) return same_obj(s[2]);
  return wrap(std::move(r));
  EMBER_PY_CATCH
}

template <int I, bool INPLACE>
PyObject* compare_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                         PyObject* kwnames) {
  EMBER_PY_TRY
  const CompareEntry& e = kCompare[I];
  PyObject* s[1];
  compare_sig(I, true).parse(args, nargsf, kwnames, s);
  const Tensor& t = tensor_arg(self);
  const Operand b = operand_arg(s[0], e.name, "other");
  const Operand a = t;
  const bool release = worth_releasing_gil({&a, &b});
  if (INPLACE) {
    maybe_nogil(release, [&] { return autograd::compare(e.op, t, b, t, true); });
    return same_obj(self);
  }
  return wrap(maybe_nogil(release, [&] { return autograd::compare(e.op, t, b); }));
  EMBER_PY_CATCH
}

// ---- operators -----------------------------------------------------------------


template <BinaryOp OP>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  EMBER_PY_TRY
  Operand x, y;
  if (!to_operand(a, &x) || !to_operand(b, &y)) return not_implemented();
  if (OP == BinaryOp::Pow) check_pow_exponent(x, y);
  const bool release = worth_releasing_gil({&x, &y});
  if (x.is_scalar() && !y.is_scalar()) {
    // A number on the left is torch's reflected op: number * t is t.__rmul__(number),
    // mul(t, number) (the number second, kept at full precision); number / t is
    // t.__rtruediv__(number), t.reciprocal() * number.
    if (OP == BinaryOp::Mul) {
      return wrap(maybe_nogil(release, [&] { return autograd::binary(OP, y, x); }));
    }
    if (OP == BinaryOp::Div) {
      return wrap(maybe_nogil(release, [&] {
        return autograd::binary(BinaryOp::Mul, autograd::unary(ops::UnaryOp::Reciprocal, y.tensor),
                                x);
      }));
    }
  }
  return wrap(maybe_nogil(release, [&] { return autograd::binary(OP, x, y); }));
  EMBER_PY_CATCH
}

template <BinaryOp OP>
PyObject* nb_inplace(PyObject* a, PyObject* b) {
  EMBER_PY_TRY
  Operand y;
  if (!is_tensor(a) || !to_operand(b, &y)) return not_implemented();
  const Tensor& t = tensor_arg(a);
  const Operand x = t;
  if (OP == BinaryOp::Pow) check_pow_exponent(x, y);
  maybe_nogil(worth_releasing_gil({&x, &y}), [&] { return autograd::binary(OP, t, y, {}, t, true); });
  return same_obj(a);
  EMBER_PY_CATCH
}

PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) return not_implemented();
  return nb_binary<BinaryOp::Pow>(a, b);
}
PyObject* nb_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) return not_implemented();
  return nb_inplace<BinaryOp::Pow>(a, b);
}

PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  EMBER_PY_TRY
  Operand x, y;
  if (!to_operand(a, &x) || !to_operand(b, &y)) return not_implemented();
  CompareOp c = CompareOp::Eq;
  switch (op) {
    case Py_EQ: c = CompareOp::Eq; break;
    case Py_NE: c = CompareOp::Ne; break;
    case Py_LT: c = CompareOp::Lt; break;
    case Py_LE: c = CompareOp::Le; break;
    case Py_GT: c = CompareOp::Gt; break;
    case Py_GE: c = CompareOp::Ge; break;
    default: return not_implemented();
  }
  const bool release = worth_releasing_gil({&x, &y});
  return wrap(maybe_nogil(release, [&] { return autograd::compare(c, x, y); }));
  EMBER_PY_CATCH
}

// The dunder methods (x.__add__(y), x.__radd__(y), x.__iadd__(y)) for code
// that calls them by name; the operators themselves go through the slots.

template <BinaryOp OP, int KIND>
PyObject* dunder(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_SetString(PyExc_TypeError, "expected exactly one argument");
    return nullptr;
  }
  if (KIND == kForward) return nb_binary<OP>(self, args[0]);
  if (KIND == kReflected) return nb_binary<OP>(args[0], self);
  return nb_inplace<OP>(self, args[0]);
}

template <int OP>
PyObject* dunder_compare(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_SetString(PyExc_TypeError, "expected exactly one argument");
    return nullptr;
  }
  return richcompare(self, args[0], OP);
}

template <int... I>
void binary_defs(std::vector<PyMethodDef>& fns, std::vector<PyMethodDef>& methods,
                 std::integer_sequence<int, I...>) {
  ((fns.push_back({kBinary[I].name, EMBER_FAST(&binary_function<I>), kFastKw, kBinary[I].doc}),
    methods.push_back({kBinary[I].name, EMBER_FAST((&binary_method<I, false>)), kFastKw,
                       kBinary[I].doc})),
   ...);
  static std::vector<std::string> inplace_names;
  inplace_names.reserve(kNumBinary);
  (
      [&] {
        if (!kBinary[I].has_inplace) return;
        inplace_names.push_back(std::string(kBinary[I].name) + "_");
        methods.push_back({inplace_names.back().c_str(), EMBER_FAST((&binary_method<I, true>)),
                           kFastKw, "in-place form: writes the result into self, returns self"});
      }(),
      ...);
}

template <int... I>
void compare_defs(std::vector<PyMethodDef>& fns, std::vector<PyMethodDef>& methods,
                  std::integer_sequence<int, I...>) {
  ((fns.push_back({kCompare[I].name, EMBER_FAST(&compare_function<I>), kFastKw,
                   "elementwise comparison; a bool tensor"}),
    methods.push_back({kCompare[I].name, EMBER_FAST((&compare_method<I, false>)), kFastKw,
                       "elementwise comparison; a bool tensor"})),
   ...);
  static std::vector<std::string> inplace_names;
  inplace_names.reserve(kNumCompare);
  (
      [&] {
        inplace_names.push_back(std::string(kCompare[I].name) + "_");
        methods.push_back({inplace_names.back().c_str(), EMBER_FAST((&compare_method<I, true>)),
                           kFastKw, "in-place comparison: 0/1 in self's dtype"});
      }(),
      ...);
}

#define EMBER_DUNDER(name, OP, KIND) \
  {name, EMBER_FAST((&dunder<BinaryOp::OP, KIND>)), METH_FASTCALL, nullptr}
#define EMBER_DUNDER3(stem, OP)                          \
  EMBER_DUNDER("__" stem "__", OP, kForward),            \
      EMBER_DUNDER("__r" stem "__", OP, kReflected),     \
      EMBER_DUNDER("__i" stem "__", OP, kInplace)

PyMethodDef g_dunders[] = {
    EMBER_DUNDER3("add", Add),
    EMBER_DUNDER3("sub", Sub),
    EMBER_DUNDER3("mul", Mul),
    EMBER_DUNDER3("truediv", Div),
    EMBER_DUNDER3("floordiv", DivFloor),
    EMBER_DUNDER3("mod", Remainder),
    EMBER_DUNDER3("pow", Pow),
    {"__eq__", EMBER_FAST(&dunder_compare<Py_EQ>), METH_FASTCALL, nullptr},
    {"__ne__", EMBER_FAST(&dunder_compare<Py_NE>), METH_FASTCALL, nullptr},
    {"__lt__", EMBER_FAST(&dunder_compare<Py_LT>), METH_FASTCALL, nullptr},
    {"__le__", EMBER_FAST(&dunder_compare<Py_LE>), METH_FASTCALL, nullptr},
    {"__gt__", EMBER_FAST(&dunder_compare<Py_GT>), METH_FASTCALL, nullptr},
    {"__ge__", EMBER_FAST(&dunder_compare<Py_GE>), METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void bind_math(py::module_& m) {
  init_math_args(m);
  m.def(
      "result_type",
      [](py::handle a, py::handle b) {
        const Operand x = operand_arg(a.ptr(), "result_type", "tensor1");
        const Operand y = operand_arg(b.ptr(), "result_type", "tensor2");
        return dtype_to_py(ops::binary_result_type(BinaryOp::Add, x, y));
      },
      py::arg("tensor1"), py::arg("tensor2"),
      "The dtype torch's type promotion gives an arithmetic op on the two operands.");
  m.def("get_num_threads", &ops::get_num_threads,
        "Threads the CPU math kernels use (the caller included).");
  m.def("set_num_threads", &ops::set_num_threads, py::arg("num"),
        "Sets the threads the CPU math kernels use (at most the hardware threads).");
  m.def(
      "can_cast",
      [](py::handle from, py::handle to) {
        return ops::can_cast(dtype_from_py(from), dtype_from_py(to));
      },
      py::arg("from_"), py::arg("to"),
      "Whether an op may write a result of dtype from_ into a tensor of dtype to (torch's "
      "rule: no floating -> integral, nothing but bool -> bool).");
  static MathDefs d;
  binary_defs(d.functions, d.methods, std::make_integer_sequence<int, kNumBinary>{});
  compare_defs(d.functions, d.methods, std::make_integer_sequence<int, kNumCompare>{});
  add_unary_defs(d);
  add_ternary_defs(d);
  add_reduce_defs(d);
  static std::vector<PyMethodDef> special_private;
  add_special_defs(d, special_private);
  add_special_jit_defs(special_private);
  add_return_types(m);
  for (auto* v : {&d.functions, &d.methods, &d.dunders, &special_private}) {
    v->push_back({nullptr, nullptr, 0, nullptr});
  }
  add_module_functions(m, d.functions.data());
  add_module_functions(m, special_private.data());
  register_math_functions(m, d.functions.data());
  add_tensor_methods(d.methods.data());
  add_tensor_methods(g_dunders);
  add_tensor_methods(d.dunders.data());
  // The slots last: setting the dunder attributes above pointed them at
  // Python's generic slot wrappers.
  PyTypeObject* type = tensor_type();
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_add = nb_binary<BinaryOp::Add>;
  nb->nb_subtract = nb_binary<BinaryOp::Sub>;
  nb->nb_multiply = nb_binary<BinaryOp::Mul>;
  nb->nb_true_divide = nb_binary<BinaryOp::Div>;
  nb->nb_floor_divide = nb_binary<BinaryOp::DivFloor>;
  nb->nb_remainder = nb_binary<BinaryOp::Remainder>;
  nb->nb_power = nb_power;
  nb->nb_inplace_add = nb_inplace<BinaryOp::Add>;
  nb->nb_inplace_subtract = nb_inplace<BinaryOp::Sub>;
  nb->nb_inplace_multiply = nb_inplace<BinaryOp::Mul>;
  nb->nb_inplace_true_divide = nb_inplace<BinaryOp::Div>;
  nb->nb_inplace_floor_divide = nb_inplace<BinaryOp::DivFloor>;
  nb->nb_inplace_remainder = nb_inplace<BinaryOp::Remainder>;
  nb->nb_inplace_power = nb_inplace_power;
  type->tp_richcompare = richcompare;
  set_unary_slots(type);
  PyType_Modified(type);
}

}  // namespace ember::bindings
