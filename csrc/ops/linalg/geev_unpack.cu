// A real geev's right eigenvectors, unpacked on the GPU: LAPACK (and
// cuSOLVER's Xgeev) store a conjugate pair w_j, w_{j+1} = conj(w_j), Im w_j > 0,
// as the two real columns VR[:, j] (real part) and VR[:, j + 1] (imaginary
// part); torch returns the complex vectors VR[:, j] +- i VR[:, j + 1]. One
// thread per element, no host sync (the CPU does the same in geev_).
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
                              R* __restrict__ v, int64_t n, int64_t total) {
  for (int64_t e = cuda_loops::global_id(); e < total; e += cuda_loops::grid_size()) {
    const int64_t nn = n * n;
    const int64_t b = e / nn, j = (e % nn) / n, i = e % n;
    const R* base = vr + b * nn;
    const R wi = w[2 * (b * n + j) + 1];
    R re, im;
    if (wi > R(0) && j + 1 < n) {
      re = base[j * n + i];
      im = base[(j + 1) * n + i];
    } else if (wi < R(0) && j > 0) {
      re = base[(j - 1) * n + i];
      im = -base[j * n + i];
    } else {
      re = base[j * n + i];
      im = R(0);
    }
    v[2 * e] = re;
    v[2 * e + 1] = im;
  }
}

}  // namespace

void unpack_real_eigenvectors_cuda(const Tensor& VR, const Tensor& w, const Tensor& V) {
  const int64_t n = VR.size(-1), total = VR.numel();
  if (total == 0) return;
  const int dev = VR.device().index;
  cuda::DeviceGuard guard(dev);
  cudaStream_t st = cuda::current_stream(dev).handle();
  if (VR.dtype() == ScalarType::Float64) {
    unpack_kernel<double><<<cuda_loops::blocks_for(total), cuda_loops::kThreads, 0, st>>>(
        static_cast<const double*>(VR.data_ptr()), static_cast<const double*>(w.data_ptr()),
        static_cast<double*>(V.data_ptr()), n, total);
  } else {
    unpack_kernel<float><<<cuda_loops::blocks_for(total), cuda_loops::kThreads, 0, st>>>(
        static_cast<const float*>(VR.data_ptr()), static_cast<const float*>(w.data_ptr()),
        static_cast<float*>(V.data_ptr()), n, total);
  }
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace ember::ops::linalg::internal
