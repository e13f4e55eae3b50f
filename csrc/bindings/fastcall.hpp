// The one argument parser of ember's fast-call bindings. The hot functions
// (math operators, memory statistics, tensor methods) are CPython
// METH_FASTCALL | METH_KEYWORDS functions rather than pybind11 ones, because
// `a + b` must cost little more than the kernel launch; they all parse their
// arguments with Signature, match keywords by interned-string identity first,
// and raise Python's own TypeError messages.
#pragma once

#include <Python.h>

#include <initializer_list>

#include "bindings/bindings.hpp"

namespace ember::bindings {

// A function's parameters: positional-or-keyword names, then keyword-only
// names (after `npos`); the first `required` must be given. Built once per
// function (a static), at most 8 names.
class Signature {
 public:
  Signature(const char* fn, int npos, std::initializer_list<const char*> names,
            int required = 0);
  // Fills slots[i] (borrowed; nullptr when absent) from a vectorcall's
  // arguments. TypeError for too many positionals, unknown or repeated
  // keywords, and missing required arguments.
  void parse(PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames, PyObject** slots) const;
  const char* name() const { return fn_; }

 private:
  int index_of(PyObject* kw) const;
  const char* fn_;
  int npos_;
  int n_;
  int required_;
  PyObject* names_[8];
};

// Converts C++ exceptions to Python ones (bindings/errors.cpp) and returns
// nullptr; for the bodies of CPython functions.
#define EMBER_PY_TRY try {
#define EMBER_PY_CATCH                      \
  }                                         \
  catch (py::error_already_set & e) {       \
    e.restore();                            \
    return nullptr;                         \
  }                                         \
  catch (...) {                             \
    py::detail::try_translate_exceptions(); \
    return nullptr;                         \
  }

// A fast-call function as the PyCFunction a PyMethodDef holds.
#define EMBER_FAST(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))
constexpr int kFastKw = METH_FASTCALL | METH_KEYWORDS;

}  // namespace ember::bindings
