// The parts of ember's math bindings, each in its own file; bind_math
// (math.cpp) collects their functions and methods, adds them to the module
// and to ember.Tensor, and sets ember.Tensor's number-protocol slots last
// (adding a dunder attribute resets the matching slot to Python's generic
// wrapper).
#pragma once

#include <Python.h>

#include <deque>
#include <string>
#include <vector>

#include "bindings/fastcall.hpp"

namespace ember::bindings {

struct MathDefs {
  std::vector<PyMethodDef> functions;  // ember.<name>
  std::vector<PyMethodDef> methods;    // ember.Tensor.<name>
  std::vector<PyMethodDef> dunders;    // ember.Tensor.__<op>__ (METH_FASTCALL)
};

void add_unary_defs(MathDefs& d);       // math_unary.cpp
void set_unary_slots(PyTypeObject* t);  // math_unary.cpp
void add_ternary_defs(MathDefs& d);     // math_ternary.cpp
void add_reduce_defs(MathDefs& d);      // reduce.cpp
// math_special.cpp: ember's special functions into d; the torch.special-only
// ones (_C.special_<name>, _C._frexp) into private_fns.
void add_special_defs(MathDefs& d, std::vector<PyMethodDef>& private_fns);
// math_special.cpp too: the torch.special functions compiled for the GPU at run
// time (_C.special_airy_ai, _C.special_chebyshev_polynomial_t, ...).
void add_special_jit_defs(std::vector<PyMethodDef>& private_fns);
void add_return_types(py::module_& m);  // reduce.cpp: ember.return_types


// "name_" for a method's in-place form, as a C string that lives for the process
// (PyMethodDef keeps the pointer; a deque never moves its elements).
inline const char* inplace_name(const char* name) {
  static auto* names = new std::deque<std::string>();
  names->push_back(std::string(name) + "_");
  return names->back().c_str();
}

// NotImplemented (a new reference), for number-protocol slots given a non-tensor.
inline PyObject* not_implemented() { Py_RETURN_NOTIMPLEMENTED; }
// Which form of a binary operator a dunder slot implements: a + b, b + a, a += b.
enum DunderKind { kForward, kReflected, kInplace };

}  // namespace ember::bindings
