#include "ops/fill/fill.hpp"

#include <algorithm>
#include <cstring>

#include "ops/fill/affine.hpp"
#include "runtime/errors.hpp"
#include "tensor/complex_views.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"

namespace ember::ops {

namespace {

ArangeParams arange_params(const Scalar& start, const Scalar& step) {
  ArangeParams p{};
  p.dstart = start.to_double();
  p.dstep = step.to_double();
  p.istart = start.is_floating() ? static_cast<int64_t>(start.d) : start.to<int64_t>();
  p.istep = step.is_floating() ? static_cast<int64_t>(step.d) : step.to<int64_t>();
  return p;
}

}  // namespace

// No internal-overlap check: as torch's fill_, writing one value is
// idempotent (zeros(1).expand(3).fill_(5) writes the one element).
void fill_(const Tensor& t, const Scalar& v) {
  if (v.is_complex() && v.im != 0.0 && !is_complex(t.dtype()) && t.dtype() != ScalarType::Bool) {
    // torch's checked conversion of a complex number to a real type.
    throw Error(detail::str("value cannot be converted to type ",
                            t.dtype() == ScalarType::Int64 ? "int64_t"
                                                           : torch_cpp_type_name(t.dtype()),
                            " without overflow"));
  }
  if (t.numel() == 0) return;
  if (is_complex(t.dtype())) {
    // Through the real view: one pass when both parts are equal (zeros,
    // ones + ones j), else one per part.
    const Complex<double> c = v.to_complex();
    if (c.re == c.im) {
      fill_(view_as_real(t), Scalar::from_double(c.re));
    } else {
      fill_(real_part(t), Scalar::from_double(c.re));
      fill_(imag_part(t), Scalar::from_double(c.im));
    }
    return;
  }
#if EMBER_WITH_CUDA
  if (t.is_cuda()) {
    internal::fill_cuda(t, v);
    return;
  }
#endif
  const IterLayout<1> it = make_iter<1>(t.sizes(), {&t});
  dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = v.to<T>();
    for_each_cpu(it, [&](char* const* p, const int64_t* s, int64_t n) {
      if (s[0] == int64_t(sizeof(T))) {
        std::fill_n(reinterpret_cast<T*>(p[0]), n, value);
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = value;
      }
    });
  });
}

void zero_(const Tensor& t) { fill_(t, Scalar::from_int(0)); }

void arange_fill(const Tensor& out, const Scalar& start, const Scalar& step) {
  EMBER_CHECK(out.dim() == 1, "arange_fill needs a 1-D tensor");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) {
    internal::arange_fill_cuda(out, start, step);
    return;
  }
#endif
  const ArangeParams p = arange_params(start, step);
  const int64_t stride = out.strides()[0];
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < out.numel(); ++i) data[i * stride] = arange_value<T>(p, i);
  }, "arange_cpu");
}

void linspace_fill(const Tensor& out, double start, double end) {
  EMBER_CHECK(out.dim() == 1, "linspace_fill needs a 1-D tensor");
  if (out.numel() == 0) return;
#if EMBER_WITH_CUDA
  if (out.is_cuda()) {
    internal::linspace_fill_cuda(out, start, end);
    return;
  }
#endif
  const int64_t n = out.numel();
  const LinspaceParams p{start, end, n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0, n};
  const int64_t stride = out.strides()[0];
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) data[i * stride] = linspace_value<T>(p, i);
  }, "linspace_cpu");
}

#if EMBER_WITH_CUDA
namespace internal {
ArangeParams arange_params_for_cuda(const Scalar& start, const Scalar& step) {
  return arange_params(start, step);
}
}  // namespace internal
#endif

}  // namespace ember::ops
