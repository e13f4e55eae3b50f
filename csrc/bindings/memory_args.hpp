// Argument parsing shared by the memory bindings: sizes and pointers from
// Python objects (fast-call arguments: bindings/fastcall.hpp; streams:
// stream_from_py in bindings/bindings.hpp).
#pragma once

#include <Python.h>

#include <cstddef>

#include "bindings/bindings.hpp"
#include "memory/backing.hpp"

namespace ember::bindings {

// A non-negative int (bool is rejected): TypeError / ValueError naming `arg`.
size_t size_from_py(PyObject* obj, const char* fname, const char* arg);

// An address as an int (0 allowed).
void* ptr_from_py(PyObject* obj, const char* fname);

// Named statistics as a dict ({"allocated_bytes.all.current": ..., ...}).
inline py::dict to_dict(const std::vector<std::pair<std::string, int64_t>>& items) {
  py::dict d;
  for (const auto& [k, v] : items) d[py::str(k)] = v;
  return d;
}

}  // namespace ember::bindings
