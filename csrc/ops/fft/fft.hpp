// ember.fft's cores on the GPU: torch's _fft_c2c / _fft_r2c / _fft_c2r
// through cuFFT (ops/fft/cufft_api, plans from ops/fft/fft_plan_cache).
//
// - `dims` are distinct dims of `input` (already wrapped), transformed
//   together; the result is scaled by `scale` (1 when no normalisation).
// - Layout: the transformed dims go last (a permutation, no copy); the input
//   is used in place when its signal is packed and its batch dims collapse to
//   one stride, otherwise made contiguous once. The output is allocated packed
//   in that order and permuted back (torch's strides).
// - cuFFT plans hold at most 3 dims: more dims are done in steps of up to 3
//   (c2c), or a c2c step before/after the real step (c2r/r2c).
// - c2r destroys its input in cuFFT: the input is always copied first.
// - Half precision: float16 / complex32, signal sizes powers of two only
//   (torch's check and message); bfloat16 is refused by the callers.
// - Work runs on the current stream; the workspace comes from the caching
//   allocator on that stream.
// The Python front (ember/fft.py) checks arguments, pads/trims and promotes
// dtypes, and owns autograd; the CPU goes through NumPy's pocketfft there.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops::fft {

Tensor fft_c2c_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    bool forward);
// onesided=false gives the full (Hermitian) spectrum.
Tensor fft_r2c_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    bool onesided);
// last_dim_size: the real output's size along dims.back().
Tensor fft_c2r_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    int64_t last_dim_size);

}  // namespace ember::ops::fft
