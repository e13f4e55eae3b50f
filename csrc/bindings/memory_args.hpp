// Argument parsing shared by the memory bindings: METH_FASTCALL arguments,
// sizes, pointers and streams from Python objects.
#pragma once

#include <Python.h>

#include <cstddef>

#include "bindings/bindings.hpp"
#include "memory/backing.hpp"

namespace ember::bindings {

// Fills out[i] with the i-th argument, by position or keyword (nullptr when
// not given). Returns false with a TypeError set on a bad call.
bool parse_fastcall(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                    const char* const* names, int count, int required, PyObject** out);

// A non-negative int (bool is rejected): TypeError / ValueError naming `arg`.
size_t size_from_py(PyObject* obj, const char* fname, const char* arg);

// An address as an int (0 allowed).
void* ptr_from_py(PyObject* obj, const char* fname);

// None: the current stream of `device` (< 0: the current device); an int: a
// raw cudaStream_t handle on `device`; otherwise an ember stream or any object
// with __cuda_stream__ (torch, CuPy), through the streams layer's converter.
memory::Stream stream_from_py(PyObject* obj, int device);

}  // namespace ember::bindings
