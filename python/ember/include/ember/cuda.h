// CUDA in an ember extension: ember's current stream, the current device and
// a guard that switches it for a scope, and EMBER_CUDA_CHECK.
//
//   ember::cuda::DeviceGuard guard(x.device().index);
//   my_kernel<<<blocks, threads, 0, ember::cuda::current_stream()>>>(...);
//   EMBER_CUDA_CHECK(cudaGetLastError());
//
// Launch every kernel on ember::cuda::current_stream(): ember's own work on
// the tensors is ordered on it, so no synchronisation is needed.
#pragma once

#include "ember/api.h"

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#include <cuda_runtime_api.h>
#define EMBER_HAS_CUDA_RUNTIME 1
#endif
#endif

struct CUstream_st;

namespace ember {
namespace cuda {

using stream_t = CUstream_st*;  // the same type as cudaStream_t

// ember's current stream of `device` (-1: the current device).
inline stream_t current_stream(int device = -1) {
  void* s = nullptr;
  detail::check(api().current_stream(device, &s));
  return static_cast<stream_t>(s);
}

inline int current_device() {
  int32_t d = 0;
  detail::check(api().current_device(&d));
  return d;
}

inline void set_device(int device) { detail::check(api().set_device(device)); }

// Makes `device` current for a scope (-1: leaves it alone) and restores the
// previous device when the scope ends.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (device < 0) return;
    prev_ = current_device();
    if (prev_ != device)
      set_device(device);
    else
      prev_ = -1;
  }
  ~DeviceGuard() {
    if (prev_ >= 0) (void)api().set_device(prev_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

}  // namespace cuda
}  // namespace ember

#ifdef EMBER_HAS_CUDA_RUNTIME
// Throws ember::CudaError (ember.cuda.CudaError in Python) when a CUDA
// runtime call fails, naming the call and the error.
#define EMBER_CUDA_CHECK(expr)                                                                     \
  do {                                                                                             \
    const cudaError_t ember_err_ = (expr);                                                         \
    if (ember_err_ != cudaSuccess)                                                                 \
      throw ::ember::CudaError(::ember::detail::cat("CUDA error: ", cudaGetErrorName(ember_err_),  \
                                                    " (", cudaGetErrorString(ember_err_), ") in ", \
                                                    #expr));                                       \
  } while (0)
#endif
