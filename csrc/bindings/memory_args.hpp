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

}  // namespace ember::bindings
