// A real geev's right eigenvectors, unpacked on the GPU: LAPACK (and
// cuSOLVER's Xgeev) store a conjugate pair w_j, w_{j+1} = conj(w_j) as the two
// real columns VR[:, j] (real part) and VR[:, j + 1] (imaginary part); torch
// returns the complex vectors v_j = VR[:, j] + i VR[:, j + 1] and
// v_{j+1} = conj(v_j). The pairs are found from the eigenvalues alone (a run of
// non-real eigenvalues is a run of pairs), so the order within a pair does not
// matter. One thread per column, no host sync (the CPU does the same in geev_).
#include "ops/cuda_loops.cuh"
#include "ops/linalg/linalg.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::linalg::internal {

namespace {

// vr: nb column-major n x n real matrices; w: nb * n complex (re, im pairs);
// v: nb column-major n x n complex matrices (re, im pairs).
template <typename R>
__global__ void unpack_kernel(const R* __restrict__ vr, const R* __restrict__ w,
                              R* __restrict__ v, int64_t n, int64_t columns) {
  for (int64_t c = cuda_loops::global_id(); c < columns; c += cuda_loops::grid_size()) {
    const int64_t b = c / n, j = c % n;
    const R* wb = w + 2 * b * n;
    const R* col = vr + c * n;  // VR[:, j] of matrix b
    R* out = v + 2 * c * n;
    // j opens a pair when an even number of non-real eigenvalues precede it in its run.
    int64_t before = 0;
    while (before < j && wb[2 * (j - before - 1) + 1] != R(0)) ++before;
    const bool complex = wb[2 * j + 1] != R(0);
    const bool opens = complex && before % 2 == 0 && j + 1 < n;
    const bool closes = complex && before % 2 == 1;
    const R* re = closes ? col - n : col;
    const R* im = opens ? col + n : closes ? col : nullptr;
    const R sign = closes ? R(-1) : R(1);
    for (int64_t i = 0; i < n; ++i) {
      out[2 * i] = re[i];
      out[2 * i + 1] = im ? sign * im[i] : R(0);
    }
  }
}

}  // namespace

void unpack_real_eigenvectors_cuda(const Tensor& VR, const Tensor& w, const Tensor& V) {
  const int64_t n = VR.size(-1), columns = n == 0 ? 0 : VR.numel() / n;
  if (columns == 0) return;
  const int dev = VR.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  if (VR.dtype() == ScalarType::Float64) {
    unpack_kernel<double><<<cuda_loops::blocks_for(columns), cuda_loops::kThreads, 0, st>>>(
        static_cast<const double*>(VR.data_ptr()), static_cast<const double*>(w.data_ptr()),
        static_cast<double*>(V.data_ptr()), n, columns);
  } else {
    unpack_kernel<float><<<cuda_loops::blocks_for(columns), cuda_loops::kThreads, 0, st>>>(
        static_cast<const float*>(VR.data_ptr()), static_cast<const float*>(w.data_ptr()),
        static_cast<float*>(V.data_ptr()), n, columns);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace ember::ops::linalg::internal
