#include "tensor/complex_views.hpp"

#include "runtime/errors.hpp"

namespace ember {

namespace {

// The parts of complex t (part 0: real, 1: imaginary), as a real tensor of t's shape.
Tensor part(const Tensor& t, int which) {
  Shape strides = t.strides();
  for (int64_t& s : strides) s *= 2;
  return Tensor(t.storage(), to_real_type(t.dtype()), t.sizes(), std::move(strides),
                t.storage_offset() * 2 + which);
}

}  // namespace

Tensor view_as_real(const Tensor& t) {
  EMBER_CHECK(is_complex(t.dtype()), "view_as_real is only supported for complex tensors");
  Shape sizes = t.sizes(), strides = t.strides();
  for (int64_t& s : strides) s *= 2;
  sizes.push_back(2);
  strides.push_back(1);
  return Tensor(t.storage(), to_real_type(t.dtype()), std::move(sizes), std::move(strides),
                t.storage_offset() * 2);
}

Tensor view_as_complex(const Tensor& t) {
  const ScalarType dt = t.dtype();
  EMBER_CHECK(dt == ScalarType::Float16 || dt == ScalarType::Float32 || dt == ScalarType::Float64,
              "view_as_complex is only supported for half, float and double tensors, but got a "
              "tensor of scalar type: ", torch_scalar_name(dt));
  EMBER_CHECK(t.dim() != 0, "Input tensor must have one or more dimensions");
  EMBER_CHECK(t.sizes().back() == 2, "Tensor must have a last dimension of size 2");
  EMBER_CHECK(t.strides().back() == 1, "Tensor must have a last dimension with stride 1");
  Shape sizes(t.sizes().begin(), t.sizes().end() - 1);
  Shape strides(t.strides().begin(), t.strides().end() - 1);
  for (int64_t& s : strides) {
    EMBER_CHECK(s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension");
    s /= 2;
  }
  EMBER_CHECK(t.storage_offset() % 2 == 0, "Tensor must have a storage_offset divisible by 2");
  return Tensor(t.storage(), to_complex_type(dt), std::move(sizes), std::move(strides),
                t.storage_offset() / 2);
}

Tensor real_part(const Tensor& t) { return is_complex(t.dtype()) ? part(t, 0) : t; }

Tensor imag_part(const Tensor& t) {
  EMBER_CHECK(is_complex(t.dtype()),
              "imag is not implemented for tensors with non-complex dtypes.");
  return part(t, 1);
}

}  // namespace ember
