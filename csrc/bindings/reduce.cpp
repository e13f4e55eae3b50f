// Reductions from Python, with torch's signatures: sum/mean/prod(input, dim,
// keepdim, *, dtype), max/min(input[, dim[, keepdim]] | other), amax/amin,
// argmax/argmin, std/var(input, dim, *, correction, keepdim) and the older
// unbiased= forms, norm(input, p, dim, keepdim, dtype), all/any,
// count_nonzero, logsumexp. max/min with dim return (values, indices) as
// ember.return_types.max/min (named tuples like torch.return_types).
#include <Python.h>
#include <structmember.h>

#include <cmath>
#include <string>

#include "autograd/functions.hpp"
#include "bindings/math_args.hpp"
#include "bindings/math_parts.hpp"
#include "ops/pointwise/binary.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/reduce/scan.hpp"
#include "ops/reduce/softmax.hpp"

namespace ember::bindings {

namespace {

using ops::ReduceOp;

PyTypeObject* g_max_type = nullptr;
PyTypeObject* g_min_type = nullptr;

PyStructSequence_Field g_fields[] = {{"values", "the extreme values"},
                                     {"indices", "their indices along dim"},
                                     {nullptr, nullptr}};
PyStructSequence_Desc g_max_desc = {"ember.return_types.max", "(values, indices) of max(dim)",
                                    g_fields, 2};
PyStructSequence_Desc g_min_desc = {"ember.return_types.min", "(values, indices) of min(dim)",
                                    g_fields, 2};

PyObject* values_indices(bool is_max, std::pair<Tensor, Tensor> r) {
  PyObject* t = PyStructSequence_New(is_max ? g_max_type : g_min_type);
  if (!t) throw py::error_already_set();
  PyStructSequence_SetItem(t, 0, wrap(std::move(r.first)));
  PyStructSequence_SetItem(t, 1, wrap(std::move(r.second)));
  return t;
}

// dim: None -> all, an int, or a tuple/list of ints.
ops::Dims dims_arg(PyObject* o, const char* fn) {
  if (!o || o == Py_None) return std::nullopt;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    // An empty tuple stays empty: sum/mean/... read it as every dim, but
    // all/any reduce nothing and logsumexp raises (as torch).
    const Shape s = int_list_arg(o, fn, "dim");
    return std::vector<int64_t>(s.begin(), s.end());
  }
  return std::vector<int64_t>{int_arg(o, fn, "dim")};
}

Tensor run(ReduceOp op, const Tensor& x, const ops::Dims& dims, bool keepdim,
           std::optional<ScalarType> dtype, const ops::ReduceArgs& args, const Tensor& out) {
  const ops::Operand in(x);
  return maybe_nogil(worth_releasing_gil({&in}),
                     [&] { return autograd::reduce(op, x, dims, keepdim, dtype, args, out); });
}

PyObject* finish(Tensor r, const Tensor& out, PyObject* out_obj) {
  if (out.defined()) return same_obj(out_obj);
  return wrap(std::move(r));
}

// ---- sum, mean, prod, amax, amin, argmax, argmin, all, any, logsumexp ---------

struct SimpleEntry {
  const char* name;
  ReduceOp op;
  bool has_dtype;
};

constexpr SimpleEntry kSimple[] = {
    {"sum", ReduceOp::Sum, true},        {"mean", ReduceOp::Mean, true},
    {"prod", ReduceOp::Prod, true},      {"amax", ReduceOp::Amax, false},
    {"amin", ReduceOp::Amin, false},     {"argmax", ReduceOp::ArgMax, false},
    {"argmin", ReduceOp::ArgMin, false}, {"all", ReduceOp::All, false},
    {"any", ReduceOp::Any, false},       {"logsumexp", ReduceOp::LogSumExp, false},
};
constexpr int kNumSimple = sizeof(kSimple) / sizeof(kSimple[0]);

Signature& simple_sig(int i, bool method) {
  static std::vector<Signature>* s = [] {
    auto* v = new std::vector<Signature>();
    for (int i = 0; i < kNumSimple; ++i) {
      const SimpleEntry& e = kSimple[i];
      v->emplace_back(e.name, 3, std::initializer_list<const char*>{"input", "dim", "keepdim",
                                                                    "dtype", "out"});
      v->emplace_back(e.name, 2, std::initializer_list<const char*>{"dim", "keepdim", "dtype"});
    }
    return v;
  }();
  return (*s)[2 * i + (method ? 1 : 0)];
}

Tensor simple(const SimpleEntry& e, const Tensor& x, PyObject* const* s, const Tensor& out) {
  if (s[2] && s[2] != Py_None && !e.has_dtype) {
    throw TypeError(detail::str(e.name, "() got an unexpected keyword argument 'dtype'"));
  }
  return run(e.op, x, dims_arg(s[0], e.name), bool_arg(s[1], false), dtype_kw(s[2]), {}, out);
}

template <int I>
PyObject* simple_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  const SimpleEntry& e = kSimple[I];
  PyObject* s[5];
  simple_sig(I, false).parse(args, nargsf, kw, s);
  if (!s[0]) throw TypeError(detail::str(e.name, "() missing required argument 'input'"));
  const Tensor& x = tensor_arg(s[0], "'input'");
  const Tensor out = out_arg(s[4], e.name);
  return finish(simple(e, x, s + 1, out), out, s[4]);
  EMBER_PY_CATCH
}

template <int I>
PyObject* simple_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  PyObject* s[3];
  simple_sig(I, true).parse(args, nargsf, kw, s);
  return wrap(simple(kSimple[I], tensor_arg(self), s, Tensor()));
  EMBER_PY_CATCH
}

// ---- max, min -------------------------------------------------------------------

// max(input) | max(input, dim, keepdim=False) | max(input, other)
template <bool MAX>
PyObject* max_min(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  const char* fn = MAX ? "max" : "min";
  static Signature fsig(MAX ? "max" : "min", 3, {"input", "dim", "keepdim", "out"});
  static Signature msig(MAX ? "max" : "min", 2, {"dim", "keepdim"});
  PyObject* s[4] = {};
  if (self) {
    msig.parse(args, nargsf, kw, s + 1);
    s[0] = self;
  } else {
    fsig.parse(args, nargsf, kw, s);
  }
  if (!s[0]) throw TypeError(detail::str(fn, "() missing required argument 'input'"));
  const Tensor& x = tensor_arg(s[0], "'input'");
  if (s[1] && is_tensor(s[1])) {
    const Tensor out = out_arg(s[3], fn);
    Tensor r = autograd::binary(MAX ? ops::BinaryOp::Maximum : ops::BinaryOp::Minimum, x,
                                tensor_arg(s[1]), {}, out);
    return finish(std::move(r), out, s[3]);
  }
  if (!s[1] || s[1] == Py_None) {
    if (s[2]) throw TypeError(detail::str(fn, "(): keepdim needs dim"));
    const Tensor out = out_arg(s[3], fn);
    return finish(run(MAX ? ReduceOp::Amax : ReduceOp::Amin, x, std::nullopt, false,
                      std::nullopt, {}, out), out, s[3]);
  }
  const int64_t dim = int_arg(s[1], fn, "dim");
  const bool keepdim = bool_arg(s[2], false);
  const ops::Operand in(x);
  auto r = maybe_nogil(worth_releasing_gil({&in}),
                       [&] { return autograd::max_min_dim(MAX, x, dim, keepdim); });
  return values_indices(MAX, std::move(r));
}

template <bool MAX>
PyObject* max_min_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return max_min<MAX>(nullptr, args, nargsf, kw);
  EMBER_PY_CATCH
}

template <bool MAX>
PyObject* max_min_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return max_min<MAX>(self, args, nargsf, kw);
  EMBER_PY_CATCH
}

// ---- var, std -------------------------------------------------------------------

// var(input, dim=None, *, correction=1, keepdim=False) and the older
// var(input, unbiased) / var(input, dim, unbiased, keepdim).
template <bool STD>
PyObject* var_std(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  const char* fn = STD ? "std" : "var";
  static Signature fsig(STD ? "std" : "var", 4,
                        {"input", "dim", "unbiased", "keepdim", "correction", "out"});
  static Signature msig(STD ? "std" : "var", 3, {"dim", "unbiased", "keepdim", "correction"});
  PyObject* s[6] = {};
  if (self) {
    msig.parse(args, nargsf, kw, s + 1);
    s[0] = self;
  } else {
    fsig.parse(args, nargsf, kw, s);
  }
  if (!s[0]) throw TypeError(detail::str(fn, "() missing required argument 'input'"));
  const Tensor& x = tensor_arg(s[0], "'input'");
  PyObject* dim = s[1];
  PyObject* unbiased = s[2];
  if (dim && PyBool_Check(dim)) {  // var(x, True): the unbiased flag
    unbiased = dim;
    dim = nullptr;
  }
  ops::ReduceArgs a;
  if (unbiased && unbiased != Py_None) a.correction = bool_arg(unbiased, true) ? 1.0 : 0.0;
  if (s[4] && s[4] != Py_None) {
    EMBER_CHECK(!unbiased || unbiased == Py_None, fn,
                "(): cannot specify both unbiased and correction");
    a.correction = number_arg(s[4], fn, "correction").to_double();
  }
  const Tensor out = out_arg(s[5], fn);
  return finish(run(STD ? ReduceOp::Std : ReduceOp::Var, x, dims_arg(dim, fn), bool_arg(s[3], false),
                    std::nullopt, a, out), out, s[5]);
}

template <bool STD>
PyObject* var_std_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return var_std<STD>(nullptr, args, nargsf, kw);
  EMBER_PY_CATCH
}

template <bool STD>
PyObject* var_std_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return var_std<STD>(self, args, nargsf, kw);
  EMBER_PY_CATCH
}

// ---- norm, count_nonzero --------------------------------------------------------

double norm_p(PyObject* p) {
  if (!p || p == Py_None) return 2.0;
  if (PyUnicode_Check(p)) {
    if (PyUnicode_CompareWithASCIIString(p, "fro") == 0) return 2.0;
    if (PyUnicode_CompareWithASCIIString(p, "nuc") == 0) {
      throw Error("norm(): p='nuc' (the nuclear norm) needs an SVD, which ember does not have");
    }
    throw ValueError(detail::str("norm(): p must be a number, 'fro' or 'nuc', got '",
                                 PyUnicode_AsUTF8(p), "'"));
  }
  return number_arg(p, "norm", "p").to_double();
}

PyObject* norm(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  static Signature fsig("norm", 4, {"input", "p", "dim", "keepdim", "dtype", "out"});
  static Signature msig("norm", 3, {"p", "dim", "keepdim", "dtype"});
  PyObject* s[6] = {};
  if (self) {
    msig.parse(args, nargsf, kw, s + 1);
    s[0] = self;
  } else {
    fsig.parse(args, nargsf, kw, s);
  }
  if (!s[0]) throw TypeError("norm() missing required argument 'input'");
  const Tensor& x = tensor_arg(s[0], "'input'");
  ops::ReduceArgs a;
  a.p = norm_p(s[1]);
  const Tensor out = out_arg(s[5], "norm");
  const ops::Dims dims = dims_arg(s[2], "norm");
  // torch.norm with p='fro' (its default) over more than two dims calls
  // linalg.matrix_norm, which wants exactly two
  const bool fro = !s[1] || (PyUnicode_Check(s[1]) && PyUnicode_CompareWithASCIIString(s[1], "fro") == 0);
  if (fro && dims && dims->size() > 2) {
    std::string got;
    for (int64_t d : *dims) got += (got.empty() ? "" : " ") + std::to_string(d);
    throw Error("linalg.matrix_norm: dim must be a 2-tuple. Got " + got);
  }
  return finish(run(ReduceOp::Norm, x, dims, bool_arg(s[3], false), dtype_kw(s[4]), a, out),
                out, s[5]);
}

PyObject* norm_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return norm(nullptr, args, nargsf, kw);
  EMBER_PY_CATCH
}
PyObject* norm_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  return norm(self, args, nargsf, kw);
  EMBER_PY_CATCH
}

PyObject* count_nonzero(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  static Signature fsig("count_nonzero", 2, {"input", "dim"});
  static Signature msig("count_nonzero", 1, {"dim"});
  PyObject* s[2] = {};
  if (self) {
    msig.parse(args, nargsf, kw, s + 1);
    s[0] = self;
  } else {
    fsig.parse(args, nargsf, kw, s);
  }
  if (!s[0]) throw TypeError("count_nonzero() missing required argument 'input'");
  const Tensor& x = tensor_arg(s[0], "'input'");
  return wrap(ops::count_nonzero(x, dims_arg(s[1], "count_nonzero")));
}

PyObject* count_nonzero_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf,
                                 PyObject* kw) {
  EMBER_PY_TRY
  return count_nonzero(nullptr, args, nargsf, kw);
  EMBER_PY_CATCH
}
PyObject* count_nonzero_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                               PyObject* kw) {
  EMBER_PY_TRY
  return count_nonzero(self, args, nargsf, kw);
  EMBER_PY_CATCH
}

// ---- cumsum, cumprod, softmax, log_softmax ------------------------------------

enum AlongKind { kCumsum, kCumprod, kSoftmax, kLogSoftmax };
constexpr const char* kAlongNames[] = {"cumsum", "cumprod", "softmax", "log_softmax"};

Tensor along(int kind, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype,
             const Tensor& out) {
  const ops::Operand in(x);
  return maybe_nogil(worth_releasing_gil({&in}), [&] {
    switch (kind) {
      case kCumsum: return autograd::scan(ops::ScanOp::Sum, x, dim, dtype, out);
      case kCumprod: return autograd::scan(ops::ScanOp::Prod, x, dim, dtype, out);
      case kSoftmax: return autograd::softmax(x, dim, dtype);
      default: return autograd::log_softmax(x, dim, dtype);
    }
  });
}

template <int KIND>
PyObject* along_function(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  const char* fn = kAlongNames[KIND];
  static Signature sig(kAlongNames[KIND], 3, {"input", "dim", "dtype", "out"});
  PyObject* s[4];
  sig.parse(args, nargsf, kw, s);
  if (!s[0]) throw TypeError(detail::str(fn, "() missing required argument 'input'"));
  if (!s[1] || s[1] == Py_None) throw TypeError(detail::str(fn, "() missing required argument 'dim'"));
  const Tensor& x = tensor_arg(s[0], "'input'");
  const Tensor out = out_arg(s[3], fn);
  EMBER_CHECK(!out.defined() || KIND <= kCumprod, fn, "() takes no out= argument in ember");
  return finish(along(KIND, x, int_arg(s[1], fn, "dim"), dtype_kw(s[2]), out), out, s[3]);
  EMBER_PY_CATCH
}

template <int KIND, bool INPLACE>
PyObject* along_method(PyObject* self, PyObject* const* args, Py_ssize_t nargsf, PyObject* kw) {
  EMBER_PY_TRY
  const char* fn = kAlongNames[KIND];
  static Signature sig(kAlongNames[KIND], 2, {"dim", "dtype"});
  PyObject* s[2];
  sig.parse(args, nargsf, kw, s);
  if (!s[0] || s[0] == Py_None) throw TypeError(detail::str(fn, "() missing required argument 'dim'"));
  const Tensor& x = tensor_arg(self);
  const int64_t dim = int_arg(s[0], fn, "dim");
  if (INPLACE) {
    along(KIND, x, dim, dtype_kw(s[1]), x);
    return same_obj(self);
  }
  return wrap(along(KIND, x, dim, dtype_kw(s[1]), Tensor()));
  EMBER_PY_CATCH
}

template <int... I>
void simple_defs(MathDefs& d, std::integer_sequence<int, I...>) {
  ((d.functions.push_back({kSimple[I].name, EMBER_FAST(&simple_function<I>), kFastKw, nullptr}),
    d.methods.push_back({kSimple[I].name, EMBER_FAST(&simple_method<I>), kFastKw, nullptr})),
   ...);
}

void init_return_types() {
  if (g_max_type) return;
  g_max_type = PyStructSequence_NewType(&g_max_desc);
  g_min_type = PyStructSequence_NewType(&g_min_desc);
  if (!g_max_type || !g_min_type) throw py::error_already_set();
}

}  // namespace

void add_reduce_defs(MathDefs& d) {
  init_return_types();
  simple_defs(d, std::make_integer_sequence<int, kNumSimple>{});
  const PyMethodDef fns[] = {
      {"max", EMBER_FAST(&max_min_function<true>), kFastKw,
       "max(input) | max(input, dim, keepdim=False) -> (values, indices) | max(input, other)"},
      {"min", EMBER_FAST(&max_min_function<false>), kFastKw,
       "min(input) | min(input, dim, keepdim=False) -> (values, indices) | min(input, other)"},
      {"var", EMBER_FAST(&var_std_function<false>), kFastKw,
       "var(input, dim=None, *, correction=1, keepdim=False)"},
      {"std", EMBER_FAST(&var_std_function<true>), kFastKw,
       "std(input, dim=None, *, correction=1, keepdim=False)"},
      {"norm", EMBER_FAST(&norm_function), kFastKw,
       "norm(input, p='fro', dim=None, keepdim=False, dtype=None)"},
      {"count_nonzero", EMBER_FAST(&count_nonzero_function), kFastKw,
       "count_nonzero(input, dim=None)"},
      {"cumsum", EMBER_FAST(&along_function<kCumsum>), kFastKw, "cumsum(input, dim, *, dtype=None)"},
      {"cumprod", EMBER_FAST(&along_function<kCumprod>), kFastKw,
       "cumprod(input, dim, *, dtype=None)"},
      {"softmax", EMBER_FAST(&along_function<kSoftmax>), kFastKw, "softmax(input, dim, dtype=None)"},
      {"log_softmax", EMBER_FAST(&along_function<kLogSoftmax>), kFastKw,
       "log_softmax(input, dim, dtype=None)"},
  };
  const PyMethodDef methods[] = {
      {"max", EMBER_FAST(&max_min_method<true>), kFastKw, nullptr},
      {"min", EMBER_FAST(&max_min_method<false>), kFastKw, nullptr},
      {"var", EMBER_FAST(&var_std_method<false>), kFastKw, nullptr},
      {"std", EMBER_FAST(&var_std_method<true>), kFastKw, nullptr},
      {"norm", EMBER_FAST(&norm_method), kFastKw, nullptr},
      {"count_nonzero", EMBER_FAST(&count_nonzero_method), kFastKw, nullptr},
      {"cumsum", EMBER_FAST((&along_method<kCumsum, false>)), kFastKw, nullptr},
      {"cumsum_", EMBER_FAST((&along_method<kCumsum, true>)), kFastKw, nullptr},
      {"cumprod", EMBER_FAST((&along_method<kCumprod, false>)), kFastKw, nullptr},
      {"cumprod_", EMBER_FAST((&along_method<kCumprod, true>)), kFastKw, nullptr},
      {"softmax", EMBER_FAST((&along_method<kSoftmax, false>)), kFastKw, nullptr},
      {"log_softmax", EMBER_FAST((&along_method<kLogSoftmax, false>)), kFastKw, nullptr},
  };
  for (const PyMethodDef& f : fns) d.functions.push_back(f);
  for (const PyMethodDef& m : methods) d.methods.push_back(m);
}

void add_return_types(py::module_& m) {
  init_return_types();
  py::module_ rt = m.def_submodule("return_types", "named tuples returned by reductions");
  rt.attr("max") = py::handle(reinterpret_cast<PyObject*>(g_max_type));
  rt.attr("min") = py::handle(reinterpret_cast<PyObject*>(g_min_type));
}

}  // namespace ember::bindings
