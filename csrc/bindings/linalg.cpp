// Matrix products from Python: ember.matmul/mm/bmm/mv/dot/vdot/outer/addmm/
// addmv/baddbmm/einsum, the Tensor methods, the @ operator, nn.functional's
// linear, and the matmul precision switches.
//
// `x @ y` is the type's nb_matrix_multiply slot calling autograd::matmul directly,
// and ember.matmul / ember.mm are METH_FASTCALL functions: these run in inner
// loops (a 64x64 product costs a few microseconds on the GPU), where
// pybind11's generic dispatch would add ~1 us. The GIL is kept: GPU products
// only queue work; CPU products call the BLAS (ops/blas/blas_cpu) with it held.
#include <Python.h>

#include "autograd/functions.hpp"
#include "bindings/fastcall.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/blas/cublas_api.hpp"
#include "ops/blas/cublas_matmul.hpp"
#include "ops/blas/einsum.hpp"
#include "ops/blas/linear.hpp"
#include "ops/blas/matmul.hpp"
#include "ops/blas/matmul_config.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

void bind_linalg_lapack(py::module_& m);  // linalg_lapack.cpp

namespace {

PyObject* to_py(Tensor t) { return py::cast(std::move(t)).release().ptr(); }

// a @ b (and b.__rmatmul__(a)): NotImplemented unless both are tensors.
PyObject* nb_matmul(PyObject* a, PyObject* b) {
  if (!is_tensor(a) || !is_tensor(b)) Py_RETURN_NOTIMPLEMENTED;
  EMBER_PY_TRY
  return to_py(autograd::matmul(tensor_arg(a), tensor_arg(b)));
  EMBER_PY_CATCH
}

// ---- f(input, other, *, out=None) as METH_FASTCALL functions ----------------

struct MatmulSpec {
  static constexpr const char* name = "matmul";
  static constexpr const char* arg2 = "other";
  static Tensor call(const Tensor& a, const Tensor& b) { return autograd::matmul(a, b); }
  static void out(const Tensor& o, const Tensor& a, const Tensor& b) { autograd::matmul_out(o, a, b); }
};
struct MmSpec {
  static constexpr const char* name = "mm";
  static constexpr const char* arg2 = "mat2";
  static Tensor call(const Tensor& a, const Tensor& b) { return autograd::mm(a, b); }
  static void out(const Tensor& o, const Tensor& a, const Tensor& b) { autograd::mm_out(o, a, b); }
};

template <typename Spec>
PyObject* fast_binary(PyObject*, PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames) {
  EMBER_PY_TRY
    static const Signature sig(Spec::name, 2, {"input", Spec::arg2, "out"}, 2);
    PyObject* v[3];  // input, other, out
    sig.parse(args, nargsf, kwnames, v);
    if (!v[2]) v[2] = Py_None;
    const Tensor& a = tensor_arg(v[0], "input");
    const Tensor& b = tensor_arg(v[1], Spec::arg2);
    if (v[2] == Py_None) return to_py(Spec::call(a, b));
    Spec::out(tensor_arg(v[2], "out"), a, b);
    Py_INCREF(v[2]);
    return v[2];
  EMBER_PY_CATCH
}

PyMethodDef g_fast_defs[] = {
    {"matmul",
     EMBER_FAST(&fast_binary<MatmulSpec>),
     METH_FASTCALL | METH_KEYWORDS,
     "matmul(input, other, *, out=None)\n\nThe matrix product with torch's rules: 1-D operands "
     "are vectors, dims before the last two are batch dims and broadcast."},
    {"mm", EMBER_FAST(&fast_binary<MmSpec>),
     METH_FASTCALL | METH_KEYWORDS,
     "mm(input, mat2, *, out=None)\n\nThe product of two matrices (no broadcasting)."},
};

void def_fast(py::module_& m) {
  for (PyMethodDef& d : g_fast_defs) {
    PyObject* f = PyCFunction_NewEx(&d, nullptr, m.attr("__name__").ptr());
    if (!f) throw py::error_already_set();
    m.attr(d.ml_name) = py::reinterpret_steal<py::object>(f);
  }
}

Scalar scalar_or(py::handle h, const char* fn, const char* arg) {
  return scalar_arg(h, fn, arg);
}

// out=None -> the new tensor; out=t -> t filled (torch returns out).
template <typename F, typename FOut>
py::object with_out(py::handle out, F&& f, FOut&& f_out) {
  if (out.is_none()) return py::cast(f());
  f_out(tensor_arg(out, "out"));
  return py::reinterpret_borrow<py::object>(out);
}

void bind_functions(py::module_& m) {
  const auto out = py::arg("out") = py::none();
  const auto beta = py::arg("beta") = 1;
  const auto alpha = py::arg("alpha") = 1;
  m.def(
      "bmm",
      [](const Tensor& a, const Tensor& b, py::handle o) {
        return with_out(o, [&] { return autograd::bmm(a, b); },
                        [&](const Tensor& t) { autograd::bmm_out(t, a, b); });
      },
      py::arg("input"), py::arg("mat2"), py::kw_only(), out,
      "Batched matrix product of two 3-D tensors: [b, n, m] @ [b, m, p] -> [b, n, p].");
  m.def("mv", &autograd::mv, py::arg("input"), py::arg("vec"), "Matrix-vector product.");
  m.def("dot", &autograd::dot, py::arg("input"), py::arg("tensor"), "Dot product of two 1-D tensors.");
  // vdot conjugates its first argument (a no-op for real dtypes).
  const auto vdot = [](const Tensor& a, const Tensor& b) {
    return autograd::dot(autograd::conj(a), b);
  };
  m.def("vdot", vdot, py::arg("input"), py::arg("other"),
        "Dot product of two 1-D tensors, the first one conjugated.");
  m.def("outer", &autograd::outer, py::arg("input"), py::arg("vec2"), "Outer product of two vectors.");
  m.def("ger", &autograd::outer, py::arg("input"), py::arg("vec2"), "Alias of outer.");
  m.def(
      "addmm",
      [](const Tensor& self, const Tensor& a, const Tensor& b, py::handle be, py::handle al,
         py::handle o) {
        const Scalar sb = scalar_or(be, "addmm", "beta"), sa = scalar_or(al, "addmm", "alpha");
        return with_out(o, [&] { return autograd::addmm(self, a, b, sb, sa); },
                        [&](const Tensor& t) { autograd::addmm_out(t, self, a, b, sb, sa); });
      },
      py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), beta, alpha, out,
      "beta * input + alpha * (mat1 @ mat2); input broadcasts. With beta=0 input is ignored.");
  m.def(
      "addmv",
      [](const Tensor& self, const Tensor& a, const Tensor& v, py::handle be, py::handle al) {
        return autograd::addmv(self, a, v, scalar_or(be, "addmv", "beta"),
                          scalar_or(al, "addmv", "alpha"));
      },
      py::arg("input"), py::arg("mat"), py::arg("vec"), py::kw_only(), beta, alpha,
      "beta * input + alpha * (mat @ vec).");
  m.def(
      "baddbmm",
      [](const Tensor& self, const Tensor& a, const Tensor& b, py::handle be, py::handle al) {
        return autograd::baddbmm(self, a, b, scalar_or(be, "baddbmm", "beta"),
                            scalar_or(al, "baddbmm", "alpha"));
      },
      py::arg("input"), py::arg("batch1"), py::arg("batch2"), py::kw_only(), beta, alpha,
      "beta * input + alpha * bmm(batch1, batch2); input broadcasts.");
  m.def(
      "einsum",
      [](const std::string& eq, py::args operands) {
        std::vector<Tensor> ts;
        // einsum("ij,jk", [a, b]) and einsum("ij,jk", a, b)
        if (operands.size() == 1 && (PyList_Check(operands[0].ptr()) ||
                                     PyTuple_Check(operands[0].ptr()))) {
          for (py::handle h : operands[0]) ts.push_back(tensor_arg(h, "operand"));
        } else {
          for (py::handle h : operands) ts.push_back(tensor_arg(h, "operand"));
        }
        return autograd::einsum(eq, ts);
      },
      py::arg("equation"),
      "einsum(equation, *operands): Einstein summation over one or two operands, computed as "
      "one batched matrix product of views where the layouts allow.");
}

void bind_methods(py::class_<Tensor>& cls) {
  const auto beta = py::arg("beta") = 1;
  const auto alpha = py::arg("alpha") = 1;
  cls.def("matmul", &autograd::matmul, py::arg("other"));
  cls.def("__matmul__", &autograd::matmul, py::arg("other"), py::is_operator());
  cls.def(
      "__rmatmul__", [](const Tensor& self, const Tensor& other) { return autograd::matmul(other, self); },
      py::arg("other"), py::is_operator());
  cls.def("mm", &autograd::mm, py::arg("mat2"));
  cls.def("bmm", &autograd::bmm, py::arg("mat2"));
  cls.def("mv", &autograd::mv, py::arg("vec"));
  cls.def("dot", &autograd::dot, py::arg("tensor"));
  cls.def(
      "vdot", [](const Tensor& a, const Tensor& b) { return autograd::dot(autograd::conj(a), b); },
      py::arg("other"));
  cls.def("outer", &autograd::outer, py::arg("vec2"));
  cls.def("ger", &autograd::outer, py::arg("vec2"));
  cls.def(
      "addmm",
      [](const Tensor& self, const Tensor& a, const Tensor& b, py::handle be, py::handle al) {
        return autograd::addmm(self, a, b, scalar_or(be, "addmm", "beta"),
                          scalar_or(al, "addmm", "alpha"));
      },
      py::arg("mat1"), py::arg("mat2"), py::kw_only(), beta, alpha);
  cls.def(
      "addmm_",
      [](py::object self, const Tensor& a, const Tensor& b, py::handle be, py::handle al) {
        autograd::addmm_(tensor_arg(self), a, b, scalar_or(be, "addmm_", "beta"),
                    scalar_or(al, "addmm_", "alpha"));
        return self;
      },
      py::arg("mat1"), py::arg("mat2"), py::kw_only(), beta, alpha);
  cls.def(
      "addmv",
      [](const Tensor& self, const Tensor& a, const Tensor& v, py::handle be, py::handle al) {
        return autograd::addmv(self, a, v, scalar_or(be, "addmv", "beta"),
                          scalar_or(al, "addmv", "alpha"));
      },
      py::arg("mat"), py::arg("vec"), py::kw_only(), beta, alpha);
  cls.def(
      "baddbmm",
      [](const Tensor& self, const Tensor& a, const Tensor& b, py::handle be, py::handle al) {
        return autograd::baddbmm(self, a, b, scalar_or(be, "baddbmm", "beta"),
                            scalar_or(al, "baddbmm", "alpha"));
      },
      py::arg("batch1"), py::arg("batch2"), py::kw_only(), beta, alpha);
  cls.def(
      "baddbmm_",
      [](py::object self, const Tensor& a, const Tensor& b, py::handle be, py::handle al) {
        autograd::baddbmm_(tensor_arg(self), a, b, scalar_or(be, "baddbmm_", "beta"),
                      scalar_or(al, "baddbmm_", "alpha"));
        return self;
      },
      py::arg("batch1"), py::arg("batch2"), py::kw_only(), beta, alpha);
  // The @ operator calls autograd::matmul straight from the type slot (after the
  // defs above, which would otherwise install Python's generic slot wrapper).
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  type->tp_as_number->nb_matrix_multiply = &nb_matmul;
  PyType_Modified(type);
}

void bind_config(py::module_& m) {
  m.def(
      "set_float32_matmul_precision",
      [](const std::string& p) {
        ops::set_float32_matmul_precision(ops::matmul_precision_from_name(p));
      },
      py::arg("precision"),
      "'highest' (IEEE float32, default), 'high' or 'medium' (TF32 tensor cores allowed in "
      "float32 products on the GPU).");
  m.def("get_float32_matmul_precision",
        [] { return std::string(ops::matmul_precision_name(ops::float32_matmul_precision())); });
  m.def("_get_cublas_allow_tf32", &ops::allow_tf32);
  m.def("_set_cublas_allow_tf32", &ops::set_allow_tf32, py::arg("allow"));
  m.def("_get_cublas_allow_fp16_reduced_precision_reduction",
        &ops::allow_fp16_reduced_precision_reduction);
  m.def("_set_cublas_allow_fp16_reduced_precision_reduction",
        &ops::set_allow_fp16_reduced_precision_reduction, py::arg("allow"));
  m.def("_get_cublas_allow_bf16_reduced_precision_reduction",
        &ops::allow_bf16_reduced_precision_reduction);
  m.def("_set_cublas_allow_bf16_reduced_precision_reduction",
        &ops::set_allow_bf16_reduced_precision_reduction, py::arg("allow"));
  // Diagnostics: whether cuBLAS is loaded, and loading it (dlopen + dlsym, no
  // CUDA call) to say where it was found.
#if EMBER_WITH_CUDA
  m.def("_cublas_loaded", &ops::blas::cublas_loaded);
  m.def("_cublas_load", [] { return ops::blas::cublas_api().path; });
  // The cuBLAS calls a GPU product out = a @ b would make (any device's
  // tensors; nothing is called): for tests that emulate them on the CPU.
  m.def(
      "_cublas_plan",
      [](const Tensor& out, const Tensor& a, const Tensor& b) {
        const ops::internal::GemmPlan plan = ops::internal::plan_gemm_for_testing(out, a, b);
        py::dict d;
        d["temporary_out"] = plan.temporary_out;
        d["a"] = plan.a.defined() ? py::cast(plan.a) : py::none();
        d["b"] = plan.b.defined() ? py::cast(plan.b) : py::none();
        py::list calls;
        for (const auto& g : plan.calls) {
          py::dict c;
          c["transa"] = g.a.trans;
          c["transb"] = g.b.trans;
          c["m"] = g.m;
          c["n"] = g.n;
          c["k"] = g.k;
          c["lda"] = g.a.ld;
          c["ldb"] = g.b.ld;
          c["ldc"] = g.ldc;
          c["batch"] = g.batch;
          c["stride_a"] = g.a.batch_stride;
          c["stride_b"] = g.b.batch_stride;
          c["stride_c"] = g.stride_c;
          c["a"] = reinterpret_cast<uintptr_t>(g.a.ptr);
          c["b"] = reinterpret_cast<uintptr_t>(g.b.ptr);
          c["c"] = reinterpret_cast<uintptr_t>(g.c);
          calls.append(c);
        }
        d["calls"] = calls;
        return d;
      },
      py::arg("out"), py::arg("a"), py::arg("b"));
#else
  m.def("_cublas_loaded", [] { return false; });
  m.def("_cublas_load", []() -> std::string {
    throw Error("ember was built without CUDA: there is no cuBLAS to load");
  });
#endif
}

}  // namespace

void bind_linalg(py::module_& m) {
  bind_linalg_lapack(m);
  def_fast(m);
  bind_functions(m);
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  bind_methods(cls);
  bind_config(m);
  py::module_ nn = m.def_submodule("_nn", "ember.nn.functional's core");
  nn.def(
      "linear",
      [](const Tensor& x, const Tensor& w, py::handle bias) {
        return autograd::linear(x, w, bias.is_none() ? Tensor() : tensor_arg(bias, "bias"));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(),
      "y = input @ weight.T + bias; on the GPU the bias is added in cuBLASLt's epilogue.");
}

}  // namespace ember::bindings
