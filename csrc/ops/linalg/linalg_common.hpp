// Helpers the CPU (linalg_cpu.cpp) and GPU (linalg_cuda.cpp) cores share: batch
// bookkeeping of (..., m, n) operands and the float/double dispatch.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>

#include "tensor/tensor.hpp"

namespace ember::ops::linalg::common {

inline int64_t batch_count(const Tensor& t) {
  int64_t b = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) b *= t.sizes()[d];
  return b;
}

inline Shape batch_shape(const Tensor& t) {
  return Shape(t.sizes().begin(), t.sizes().end() - 2);
}

inline Shape with(Shape s, std::initializer_list<int64_t> tail) {
  for (int64_t v : tail) s.push_back(v);
  return s;
}

// f(double{}) for float64, f(float{}) otherwise (the cores take float32/float64).
template <typename F>
void real_dispatch(ScalarType t, F&& f) {
  if (t == ScalarType::Float64) {
    f(double{});
  } else {
    f(float{});
  }
}

// f(T{}) with T float, double, std::complex<float> or std::complex<double>
// (the CPU cores: LAPACK's s/d/c/z routines).
template <typename F>
void lapack_dispatch(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float64: f(double{}); break;
    case ScalarType::ComplexFloat: f(std::complex<float>{}); break;
    case ScalarType::ComplexDouble: f(std::complex<double>{}); break;
    default: f(float{}); break;
  }
}

}  // namespace ember::ops::linalg::common
