// Writing values that do not come from another tensor: fill_ (zeros, ones,
// full), and the affine sequences of arange and linspace. On the GPU they run
// on the current stream of the tensor's device and never wait on the host.
#pragma once

#include <cstdint>

#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

// Every element of t = v (converted to t's dtype). RuntimeError when t has
// elements that share memory (an expanded tensor), as in torch.
void fill_(const Tensor& t, const Scalar& v);
void zero_(const Tensor& t);

// out is 1-D: out[i] = start + i * step. Integer dtypes are computed in int64,
// floating dtypes in double, then converted.
void arange_fill(const Tensor& out, const Scalar& start, const Scalar& step);
// out is 1-D with n elements: torch.linspace(start, end, n), computed in
// double from both ends so that the last element is exactly `end`.
void linspace_fill(const Tensor& out, double start, double end);

namespace internal {
#if EMBER_WITH_CUDA
void fill_cuda(const Tensor& t, const Scalar& v);
void arange_fill_cuda(const Tensor& out, const Scalar& start, const Scalar& step);
void linspace_fill_cuda(const Tensor& out, double start, double end);
#endif
}  // namespace internal

}  // namespace ember::ops
