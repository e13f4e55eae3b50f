// The parameter types of a __global__ function, read from its source, so that
// RawKernel can check and convert each Python argument (a tensor for a
// pointer, an int that fits an `int`, a float for a `float` ...).
//
// - Finds the declaration of `name` that follows a __global__ (extern "C"
//   kernels, or the function template of a name expression such as
//   "my_kernel<float, 4>", whose template arguments are substituted), splits
//   its parameters and classifies each type: any pointer or array is a
//   Pointer; the built-in and fixed-width integer types, bool, float, double,
//   half/__half and __nv_bfloat16 have their own kinds; anything else (a
//   struct, a typedef ember cannot see through) is Opaque, checked by size only.
// - The caller checks the result against the sizes the driver reports
//   (cuKernelGetParamInfo); when the source cannot be read (a cubin given by
//   path, a macro-generated signature) it falls back to sizes alone.
// - Plain text processing: no CUDA, testable on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ember::ops::jit {

enum class ParamKind : uint8_t {
  Pointer,
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Opaque,
};

struct ParamType {
  ParamKind kind = ParamKind::Opaque;
  // For a pointer to one of the kinds above (float*, const __half*): that
  // kind, so a tensor of another dtype can be refused. Opaque for void*,
  // char*, pointers to pointers and unknown types.
  ParamKind pointee = ParamKind::Opaque;
  std::string spelling;  // the type as written, for messages ("const float* x")
};

// The size in bytes of a kind (0 for Opaque).
size_t param_kind_size(ParamKind k);
const char* param_kind_name(ParamKind k);

// The parameters of kernel `name` (a plain name, or a name expression with
// template arguments) in `source`; nullopt when no __global__ declaration of
// that name is found.
std::optional<std::vector<ParamType>> parse_kernel_params(const std::string& source,
                                                          const std::string& name);

}  // namespace ember::ops::jit
