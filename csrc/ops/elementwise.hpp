// The one elementwise path every math op takes: out = f(in0, in1, in2) with
// the inputs broadcast to one shape, computed in a common dtype and converted
// to the output's dtype.
//
//   1. The op decides the dtypes (ops/promotion.hpp): the common dtype the
//      inputs are computed in and the dtype of a new output.
//   2. make_elementwise() checks devices, broadcasts the shapes, allocates the
//      output (dense, in the inputs' dimension order, as torch) or checks the
//      given one (out=, in-place: shape, castability, overlap), and builds the
//      strided loop layout (tensor/iter.hpp) with the output as operand 0.
//   3. A runner applies a functor (ops/*_functors.hpp, shared by both devices)
//      to every element: run_elementwise_cpu (ops/elementwise_cpu.hpp) or
//      run_elementwise_cuda (ops/elementwise.cuh).
//
// Python numbers are passed by value, never as tensors; on the GPU so are 0-d
// CPU tensors (torch allows them beside CUDA tensors). Every tensor input is
// converted to the common dtype before the op, as torch does: a 0-d tensor's
// value passed by value is rounded to it, and other tensor inputs round
// through it as they are loaded. Nothing here waits for the GPU.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "tensor/iter.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

// One input of a math op: a tensor or a number.
struct Operand {
  Tensor tensor;  // undefined for a number
  Scalar scalar;

  Operand() = default;  // the number 0
  Operand(const Tensor& t) : tensor(t) {}  // NOLINT: implicit on purpose
  Operand(Tensor&& t) : tensor(std::move(t)) {}  // NOLINT
  Operand(const Scalar& s) : scalar(s) {}  // NOLINT
  Operand(double v) : scalar(Scalar::from_double(v)) {}  // NOLINT
  Operand(int64_t v) : scalar(Scalar::from_int(v)) {}  // NOLINT
  Operand(int v) : scalar(Scalar::from_int(v)) {}  // NOLINT
  Operand(bool v) : scalar(Scalar::from_bool(v)) {}  // NOLINT

  bool is_scalar() const { return !tensor.defined(); }
  // The dtype this operand brings to promotion.
  ScalarType dtype() const { return is_scalar() ? scalar.default_type() : tensor.dtype(); }
};

constexpr int kMaxInputs = 3;

struct ElementwiseIter {
  int nin = 0;
  // Operand 0 is the output, 1..nin the inputs.
  IterLayout<kMaxInputs + 1> layout;
  ScalarType dtype[kMaxInputs + 1] = {};
  // Inputs passed by value; their data pointer is null and strides 0.
  bool by_value[kMaxInputs + 1] = {};
  Scalar value[kMaxInputs + 1];
  // Tensor inputs whose values round through `common` as they are loaded
  // (element_access.hpp's round_through): a dtype other than common, when
  // common is narrower than its compute type. Only the dynamic (mixed-dtype)
  // loops read these; the typed loops never see such an input.
  bool round[kMaxInputs + 1] = {};
  bool any_round = false;
  // The result is rounded to `result` before it is stored (round_result): an
  // out= of another dtype than the op's result dtype, when that is narrower
  // than the compute type.
  bool round_out = false;
  ScalarType result = ScalarType::Float32;  // the op's result dtype (spec.out_dtype)
  ScalarType common = ScalarType::Float32;  // the dtype the inputs are computed in
  Tensor out;
  const char* name = "";

  bool is_cuda() const { return out.is_cuda(); }
  // Every load and store is a plain conversion (the typed loops may run).
  bool plain() const { return !any_round && !round_out; }
  int64_t numel() const { return layout.numel; }
  // Every tensor operand is walked contiguously (or is one element broadcast).
  bool is_flat() const {
    if (layout.ndim != 1) return layout.numel <= 1;
    for (int k = 0; k <= nin; ++k) {
      const int64_t s = layout.strides[k][0];
      if (s != 0 && s != int64_t(element_size(dtype[k]))) return false;
    }
    return layout.strides[0][0] != 0 || layout.numel <= 1;
  }
};

struct ElementwiseSpec {
  const char* name;         // for messages: "add"
  ScalarType common;        // the dtype inputs are computed in
  ScalarType out_dtype;     // the dtype of a new output
  ScalarType cast_from;     // an out=/in-place output must be castable from this
  bool check_cast = true;
  // Numbers are converted to `common` before the op (torch: comparisons, and
  // every op with an integral common dtype); otherwise floating ops see them
  // at full precision (float16_tensor * 0.1 multiplies by float(0.1)).
  bool round_numbers = false;
  // Inputs (bit k-1 for input k) whose Python number is converted to `common`
  // even where round_numbers is false: torch's CUDA division kernels read a
  // number in first place as the tensor's type (divide(1e10, half) is inf / x).
  unsigned round_number_inputs = 0;
  // Inputs (bit k-1 for input k) that keep their full precision when they are
  // one-element tensors, instead of being converted to `common` first: where
  // torch's kernel reads such an operand as a scalar in the compute type
  // (its CPU mul/div with a scalar second operand, its CUDA opmath kernels
  // with a CPU scalar).
  unsigned keep_scalar_tensors = 0;
  // The op has complex kernels (ops/pointwise/complex.hpp). Without them a
  // complex input or common dtype raises torch's "\"name_cpu\" not
  // implemented for 'ComplexFloat'" before anything is allocated, so no real
  // kernel ever sees complex data.
  bool complex = false;
};

// `out`: undefined for a new output; `inplace`: out is the op's first input
// (x.add_(y)), whose shape may not grow by broadcasting.
ElementwiseIter make_elementwise(const ElementwiseSpec& spec, const Tensor& out, bool inplace,
                                 std::initializer_list<const Operand*> inputs);

// torch.result_type of the operands (tensors with dims, 0-d tensors, numbers:
// ops/promotion.hpp's categories).
ScalarType result_type(std::initializer_list<const Operand*> inputs);

// The shape all inputs broadcast to (RuntimeError naming both shapes).
Shape broadcast_operands(std::initializer_list<const Operand*> inputs);

// A device error for tensors on different devices (0-d CPU tensors may join
// CUDA tensors): the device the op runs on.
Device common_device(std::initializer_list<const Operand*> inputs, const Tensor& out);

// Strides of a new output of `shape` that follows the inputs' dimension order
// (torch's TensorIterator rule).
Shape output_strides(const Shape& shape, std::initializer_list<const Operand*> inputs);

// A 0-d CPU tensor holding a number (torch.add(5, 5) computes on one).
Tensor scalar_to_tensor(const Scalar& s);

// out= of another shape than the result's: an empty tensor takes the shape (as
// torch resizes it), any other raises (torch would resize with a warning).
void resize_out(const Tensor& out, const Shape& shape);

// RuntimeError as torch's "Found dtype Long but expected Int": ops whose out=
// must have exactly the result dtype (abs, neg, floor, clamp ...).
void check_out_dtype(const Tensor& out, ScalarType expected);

// Message for an op/dtype pair that has no kernel, as torch words it:
// "\"bitwise_and_cpu\" not implemented for 'Float'".
[[noreturn]] void not_implemented(const char* op, ScalarType t, bool cuda);

}  // namespace ember::ops
