// Complex numbers from Python: the Tensor attributes and methods (real, imag,
// conj, conj_physical, resolve_conj, is_conj, angle, sgn, __complex__) and the
// module functions (view_as_real, view_as_complex, real, imag, conj,
// conj_physical, resolve_conj, resolve_neg, is_conj, is_neg, angle, sgn,
// complex, polar), all through the autograd layer.
//
// ember has no lazy conjugate (or negative) bit: conj() of a complex tensor is
// a new tensor holding the conjugates, is_conj() is always False and
// resolve_conj() returns its input.
#include <Python.h>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "bindings/math_args.hpp"
#include "bindings/tensor_common.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

// Runs f with the GIL released for CPU tensors big enough to be worth it.
template <typename F>
Tensor run(const Tensor& x, F&& f) {
  const ops::Operand in(x);
  return maybe_nogil(worth_releasing_gil({&in}), std::forward<F>(f));
}

Tensor optional_out(py::handle out, const char* fn) { return out_arg(out.ptr(), fn); }

// The result, or the out= object itself when one was given (torch returns it).
py::object complex_result_obj(Tensor r, py::handle out) {
  if (!out.is_none()) return py::reinterpret_borrow<py::object>(out);
  return py::cast(std::move(r));
}

// self.real = value / self.imag = value: copies value into the part.
void set_part(const Tensor& part, py::handle value, const char* fn) {
  if (is_tensor(value)) {
    autograd::copy_(part, tensor_arg(value));
  } else {
    autograd::fill_(part, scalar_arg(value, fn, "value"));
  }
}

}  // namespace

void bind_complex(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));

  // ---- views ---------------------------------------------------------------
  cls.def_property(
      "real", [](const Tensor& t) { return autograd::real(t); },
      [](const Tensor& t, py::handle v) { set_part(autograd::real(t), v, "real"); },
      "The real parts: a view of a complex tensor (this tensor itself for real dtypes).");
  cls.def_property(
      "imag", [](const Tensor& t) { return autograd::imag(t); },
      [](const Tensor& t, py::handle v) { set_part(autograd::imag(t), v, "imag"); },
      "The imaginary parts: a view of a complex tensor (RuntimeError for real dtypes).");
  m.def("view_as_real", &autograd::view_as_real, py::arg("input"),
        "A complex tensor's view of shape (..., 2) in its parts' dtype (no copy).");
  m.def("view_as_complex", &autograd::view_as_complex, py::arg("input"),
        "A float16/float32/float64 tensor of shape (..., 2) (unit last stride) viewed as "
        "complex32/complex64/complex128 (no copy).");
  m.def("real", &autograd::real, py::arg("input"), "input.real");
  m.def("imag", &autograd::imag, py::arg("input"), "input.imag");

  // ---- conjugates: no lazy bit in ember ------------------------------------------
  const char* conj_doc =
      "The complex conjugate: a new tensor (ember has no lazy conjugate bit, so is_conj() is "
      "False); this tensor itself for real dtypes.";
  // A real tensor's conj() is the tensor itself (the same Python object).
  const auto conj_obj = [](py::object self) -> py::object {
    const Tensor& t = tensor_arg(self);
    if (!is_complex(t.dtype())) return self;
    return py::cast(run(t, [&] { return autograd::conj(t); }));
  };
  cls.def("conj", conj_obj, conj_doc);
  m.def("conj", conj_obj, py::arg("input"), conj_doc);
  cls.def("conj_physical", [](py::object self) -> py::object {
    const Tensor& t = tensor_arg(self);
    if (!is_complex(t.dtype())) return self;  // torch: the input itself
    return py::cast(run(t, [&] { return autograd::conj_physical(t); }));
  });
  cls.def("conj_physical_", [](py::object self) {
    const Tensor& t = tensor_arg(self);
    run(t, [&] { return autograd::conj_physical(t, t, true); });
    return self;
  });
  m.def(
      "conj_physical",
      [](py::object self, py::handle out) -> py::object {
        const Tensor& t = tensor_arg(self, "input");
        if (!is_complex(t.dtype()) && out.is_none()) return self;
        const Tensor o = optional_out(out, "conj_physical");
        return complex_result_obj(run(t, [&] { return autograd::conj_physical(t, o); }), out);
      },
      py::arg("input"), py::kw_only(), py::arg("out") = py::none());
  for (const char* name : {"resolve_conj", "resolve_neg"}) {
    cls.def(name, [](py::object self) { return self; }, "This tensor (ember has no lazy bits).");
    m.def(name, [](py::object t) { tensor_arg(t, "input"); return t; }, py::arg("input"));
  }
  for (const char* name : {"is_conj", "is_neg"}) {
    cls.def(name, [](const Tensor&) { return false; }, "False: ember has no lazy bits.");
    m.def(name, [](const Tensor&) { return false; }, py::arg("input"));
  }

  // ---- angle, sgn ------------------------------------------------------------------
  cls.def("angle", [](const Tensor& t) { return run(t, [&] { return autograd::angle(t); }); });
  m.def(
      "angle",
      [](const Tensor& t, py::handle out) {
        const Tensor o = optional_out(out, "angle");
        return complex_result_obj(run(t, [&] { return autograd::angle(t, o); }), out);
      },
      py::arg("input"), py::kw_only(), py::arg("out") = py::none(),
      "The argument of complex values (a real tensor); pi for negative real values, else 0.");
  cls.def("sgn", [](const Tensor& t) { return run(t, [&] { return autograd::sgn(t); }); });
  cls.def("sgn_", [](py::object self) {
    const Tensor& t = tensor_arg(self);
    run(t, [&] { return autograd::sgn(t, t, true); });
    return self;
  });
  m.def(
      "sgn",
      [](const Tensor& t, py::handle out) {
        const Tensor o = optional_out(out, "sgn");
        return complex_result_obj(run(t, [&] { return autograd::sgn(t, o); }), out);
      },
      py::arg("input"), py::kw_only(), py::arg("out") = py::none(),
      "z / |z| for complex values (0 for 0); sign for real ones.");

  // ---- complex, polar ----------------------------------------------------------------
  m.def(
      "complex",
      [](const Tensor& re, const Tensor& im, py::handle out) {
        const Tensor o = optional_out(out, "complex");
        return complex_result_obj(run(re, [&] { return autograd::complex(re, im, o); }), out);
      },
      py::arg("real"), py::arg("imag"), py::kw_only(), py::arg("out") = py::none(),
      "real + i imag from two float16/float32/float64 tensors of one dtype (broadcast).");
  m.def(
      "polar",
      [](const Tensor& abs, const Tensor& angle, py::handle out) {
        const Tensor o = optional_out(out, "polar");
        return complex_result_obj(run(abs, [&] { return autograd::polar(abs, angle, o); }), out);
      },
      py::arg("abs"), py::arg("angle"), py::kw_only(), py::arg("out") = py::none(),
      "abs * (cos(angle) + i sin(angle)).");

  // ---- Python's complex() -------------------------------------------------------
  cls.def("__complex__", [](const Tensor& t) {
    if (t.numel() != 1) {
      throw Error(detail::str("a Tensor with ", t.numel(),
                              " elements cannot be converted to Scalar"));
    }
    const py::object item = tensor_item(t);
    const Py_complex c = PyComplex_AsCComplex(item.ptr());  // bool, int, float or complex
    if (c.real == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(c.real, c.imag));
  });
}

}  // namespace ember::bindings
