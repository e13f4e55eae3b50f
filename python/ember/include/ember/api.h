// Finding ember's C API table (ember/c_api.h) from an extension.
//
// ember::api() imports ember._C's capsule the first time (taking the GIL for
// that moment, so any thread may call it) and checks its version; afterwards
// it is one load. The pointer lives in an inline variable: one per extension
// module, shared by all its translation units (.cpp and .cu alike).
#pragma once

#include <dlfcn.h>

#include "ember/c_api.h"
#include "ember/errors.h"

namespace ember {
namespace detail {

inline const EmberCApi* g_api = nullptr;

// CPython's stable C API, looked up in the process rather than declared, so
// that translation units compiled without Python's headers (nvcc's .cu files)
// find the table too, and no declaration clashes with Python.h's.
template <typename Fn>
Fn python_function(const char* name) {
  void* f = dlsym(RTLD_DEFAULT, name);
  if (!f) throw Error(cat("ember extension: the Python C API function ", name, " is missing"));
  return reinterpret_cast<Fn>(f);
}

inline const EmberCApi* load_api() {
  static const auto ensure = python_function<int (*)()>("PyGILState_Ensure");
  static const auto release = python_function<void (*)(int)>("PyGILState_Release");
  static const auto capsule_import =
      python_function<void* (*)(const char*, int)>("PyCapsule_Import");
  static const auto clear = python_function<void (*)()>("PyErr_Clear");
  const int gil = ensure();
  auto* table = static_cast<const EmberCApi*>(capsule_import(EMBER_C_API_CAPSULE, 0));
  if (!table) clear();
  release(gil);
  if (!table) {
    throw Error("this extension could not import ember's C API (" EMBER_C_API_CAPSULE
                "): import ember first, and check that ember is installed in this Python");
  }
  if (table->version != EMBER_C_API_VERSION) {
    throw Error(cat("this extension was built against ember's C API version ", EMBER_C_API_VERSION,
                    " but the installed ember (", table->ember_version, ") provides version ",
                    table->version, ": rebuild the extension"));
  }
  if (table->size < sizeof(EmberCApi)) {
    throw Error(cat("this extension was built against a newer ember than the installed ",
                    table->ember_version, ": upgrade ember or rebuild the extension"));
  }
  return table;
}

}  // namespace detail

// ember's C API table; Error when ember cannot be imported or its version
// does not match the one this extension was built against.
inline const EmberCApi& api() {
  if (!detail::g_api) detail::g_api = detail::load_api();
  return *detail::g_api;
}

namespace detail {
// Throws the pending error of a failed C API call.
inline void check(int status) {
  if (status != EMBER_OK) throw_status(status, api().last_error());
}
}  // namespace detail

}  // namespace ember
