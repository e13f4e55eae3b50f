#include "bindings/fastcall.hpp"

#include "runtime/errors.hpp"

namespace ember::bindings {

Signature::Signature(const char* fn, int npos, std::initializer_list<const char*> names,
                     int required)
    : fn_(fn), npos_(npos), n_(static_cast<int>(names.size())), required_(required) {
  EMBER_CHECK(n_ <= 8 && required_ <= n_, "internal error: signature of ", fn, "()");
  int i = 0;
  for (const char* n : names) names_[i++] = PyUnicode_InternFromString(n);
}

int Signature::index_of(PyObject* kw) const {
  for (int i = 0; i < n_; ++i) {
    if (kw == names_[i]) return i;
  }
  for (int i = 0; i < n_; ++i) {
    if (PyUnicode_Compare(kw, names_[i]) == 0) return i;
  }
  return -1;
}

void Signature::parse(PyObject* const* args, Py_ssize_t nargsf, PyObject* kwnames,
                      PyObject** slots) const {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (nargs > npos_) {
    throw TypeError(detail::str(fn_, "() takes at most ", npos_, " positional argument",
                                npos_ == 1 ? "" : "s", " (", static_cast<int64_t>(nargs),
                                " given)"));
  }
  for (int i = 0; i < n_; ++i) slots[i] = i < nargs ? args[i] : nullptr;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nkw; ++j) {
    PyObject* kw = PyTuple_GET_ITEM(kwnames, j);
    const int i = index_of(kw);
    if (i < 0) {
      throw TypeError(detail::str(fn_, "() got an unexpected keyword argument '",
                                  PyUnicode_AsUTF8(kw), "'"));
    }
    if (slots[i]) {
      throw TypeError(detail::str(fn_, "() got multiple values for argument '",
                                  PyUnicode_AsUTF8(kw), "'"));
    }
    slots[i] = args[nargs + j];
  }
  for (int i = 0; i < required_; ++i) {
    if (slots[i] == nullptr) {
      throw TypeError(detail::str(fn_, "() missing required argument '",
                                  PyUnicode_AsUTF8(names_[i]), "'"));
    }
  }
}

}  // namespace ember::bindings
