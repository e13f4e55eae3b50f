// Argument handling shared by the math bindings (math*.cpp, reduce*.cpp):
// operands, numbers, out= and dtype= from the fast-call arguments that
// Signature (bindings/fastcall.hpp) parses.
#pragma once

#include <Python.h>

#include <initializer_list>
#include <optional>

#include "bindings/fastcall.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/elementwise.hpp"
#include "runtime/errors.hpp"

namespace ember::bindings {

// A tensor or a number (bool, int, float, NumPy scalar); false for anything
// else (operators then return NotImplemented).
bool to_operand(PyObject* obj, ops::Operand* out);
// The same, raising TypeError naming the function and argument.
ops::Operand operand_arg(PyObject* obj, const char* fn, const char* arg);
// A number argument (alpha=, value=...), TypeError otherwise.
Scalar number_arg(PyObject* obj, const char* fn, const char* arg);
// out=: None/absent -> undefined tensor.
Tensor out_arg(PyObject* obj, const char* fn);
// dtype=: None/absent -> nullopt.
std::optional<ScalarType> dtype_kw(PyObject* obj);
bool bool_arg(PyObject* obj, bool fallback);

// A new Python reference to a tensor result.
PyObject* wrap(Tensor t);
// `self`, for in-place methods and out=.
inline PyObject* same_obj(PyObject* self) {
  Py_INCREF(self);
  return self;
}

// The numbers among `ops` converted into `dtype` the way torch's kernels
// convert them (Scalar::to<T>(), checked): RuntimeError "value cannot be
// converted to type int8_t without overflow" when one does not fit
// (check_scalar_fits). Called where torch checks: clamp's bounds, where's
// numbers (not into float16/bfloat16), pow's exponent (into integer dtypes,
// float16 and bfloat16). The ops (ops/pointwise) do not check.
void check_scalar_operands(std::initializer_list<const ops::Operand*> ops, ScalarType dtype);

// Whether a CPU op on these operands is big enough to release the GIL.
bool worth_releasing_gil(std::initializer_list<const ops::Operand*> ops);

// Adds a METH_FASTCALL|METH_KEYWORDS method (or a static PyMethodDef array,
// ending with a {nullptr} entry) to ember.Tensor.
void add_tensor_methods(PyMethodDef* defs);
// Adds module-level functions (same array form) to `m`.
void add_module_functions(py::module_& m, PyMethodDef* defs);
// Appends the names of `defs` to _C._math_functions, the names ember's
// __init__ re-exports.
void register_math_functions(py::module_& m, PyMethodDef* defs);
// ember.Tensor's type object (init_math_args reads it from the module).
void init_math_args(py::module_& m);
PyTypeObject* tensor_type();

}  // namespace ember::bindings
