// Helpers shared by the tensor binding files (dtype.cpp, tensor*.cpp): the
// dtype singletons, argument parsing for sizes, devices and scalars, and the
// conversion of C++ tensors to Python objects.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

#include "bindings/bindings.hpp"
#include "tensor/dtype.hpp"

namespace ember::bindings {

// The Python object bound for ember.dtype.
struct DType {
  ScalarType type;
};

// The ember.float32 ... singleton of `t` (a new reference).
py::object dtype_to_py(ScalarType t);
// True for an ember.dtype or one of Python's float, int and bool types.
bool is_dtype_like(py::handle obj);
// ember.dtype, or Python's float (float64), int (int64) and bool types as torch
// accepts them. TypeError for anything else.
ScalarType dtype_from_py(py::handle obj);

}  // namespace ember::bindings
