// cuBLAS state: handles per (thread, device), workspaces per (device, stream),
// bound to the current stream (the llm.c cublas_common.h habit: all cuBLAS
// state in one small module).
//
// - Handles (one cublasHandle_t and one cublasLtHandle_t per device) are
//   created lazily by the first product a thread runs on a device, and go
//   back to a per-device pool when the thread exits, so threads that come and
//   go reuse them (torch does the same). Handles are never destroyed: the
//   pool is leaked at exit on purpose, because destroying them from static
//   destructors may run after the CUDA driver has been unloaded. The driver
//   frees everything at process exit.
// - Each call binds the handle to the current stream of the device; when the
//   stream changed since the handle's last call, cublasSetStream and
//   cublasSetWorkspace run again (cublasSetStream resets the workspace).
// - Workspaces come from ember's caching allocator, one per (device, stream),
//   allocated on that stream the first time a product runs there and kept
//   (so they count in memory_allocated(), as torch's do). Work on one stream
//   is ordered, so the cuBLAS and cuBLASLt calls of every thread may share a
//   stream's workspace. Size: CUBLAS_WORKSPACE_CONFIG (":SIZE_KiB:COUNT"
//   pairs, torch's format) or torch's defaults: 32 MiB on Hopper and newer,
//   4096 KiB x 2 + 16 KiB x 8 before.
#pragma once

#if EMBER_WITH_CUDA

#include <cstddef>

#include "ops/blas/cublas_api.hpp"

namespace ember::ops::blas {

struct CublasContext {
  const CublasApi* api;
  cublasHandle_t handle;  // bound to `stream` with `workspace`
  cublasLtHandle_t lt;
  cudaStream_t stream;
  void* workspace;
  size_t workspace_size;
};

// The handles of the calling thread for `device`, bound to the device's
// current stream. The caller has made `device` current (DeviceGuard).
CublasContext cublas_context(int device);

// Sets the handle's math mode when it differs from the last one set.
void set_math_mode(const CublasContext& ctx, int device, cublasMath_t mode);

// Workspace bytes for a device of compute capability `major`, from
// CUBLAS_WORKSPACE_CONFIG when set (ValueError when malformed).
size_t workspace_size_for(int major);

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
