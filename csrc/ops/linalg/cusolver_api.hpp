// cuSOLVER (dense), opened with dlopen on first use like cuBLAS
// (ops/blas/cublas_api.hpp): `import ember` loads nothing. cusolver_api()
// opens libcusolver.so.<CUSOLVER_VER_MAJOR> (by soname, then from the toolkit
// directory baked in at build time), resolves the entry points ember.linalg
// uses into typed pointers (types from cusolverDn.h, so a signature change is
// a compile error), and throws a RuntimeError naming the library when it is
// missing. Calls go through EMBER_CUSOLVER_CHECK (runtime/library_errors.hpp).
//
// cusolver_handle(device) gives the calling thread's handle for the device,
// bound to the device's current stream (handles are per thread and device,
// created lazily and never destroyed, as cuBLAS's).
#pragma once

#if EMBER_WITH_CUDA

#include <cusolverDn.h>

#include <string>

#include "runtime/library_errors.hpp"

namespace ember::ops::linalg {

#define EMBER_CUSOLVER_PAIR(name)                   \
  decltype(&::cusolverDnS##name) S##name = nullptr; \
  decltype(&::cusolverDnD##name) D##name = nullptr;

struct CusolverApi {
  std::string path;
  decltype(&::cusolverDnCreate) Create = nullptr;
  decltype(&::cusolverDnSetStream) SetStream = nullptr;
  decltype(&::cusolverDnCreateSyevjInfo) CreateSyevjInfo = nullptr;
  decltype(&::cusolverDnCreateGesvdjInfo) CreateGesvdjInfo = nullptr;
  decltype(&::cusolverDnDestroySyevjInfo) DestroySyevjInfo = nullptr;
  decltype(&::cusolverDnDestroyGesvdjInfo) DestroyGesvdjInfo = nullptr;
  decltype(&::cusolverDnXgesvdjSetMaxSweeps) XgesvdjSetMaxSweeps = nullptr;
  EMBER_CUSOLVER_PAIR(getrf_bufferSize)
  EMBER_CUSOLVER_PAIR(getrf)
  EMBER_CUSOLVER_PAIR(getrs)
  EMBER_CUSOLVER_PAIR(potrf_bufferSize)
  EMBER_CUSOLVER_PAIR(potrf)
  EMBER_CUSOLVER_PAIR(potrs)
  EMBER_CUSOLVER_PAIR(potrfBatched)
  EMBER_CUSOLVER_PAIR(geqrf_bufferSize)
  EMBER_CUSOLVER_PAIR(geqrf)
  EMBER_CUSOLVER_PAIR(orgqr_bufferSize)
  EMBER_CUSOLVER_PAIR(orgqr)
  EMBER_CUSOLVER_PAIR(ormqr_bufferSize)
  EMBER_CUSOLVER_PAIR(ormqr)
  EMBER_CUSOLVER_PAIR(syevd_bufferSize)
  EMBER_CUSOLVER_PAIR(syevd)
  EMBER_CUSOLVER_PAIR(syevjBatched_bufferSize)
  EMBER_CUSOLVER_PAIR(syevjBatched)
  EMBER_CUSOLVER_PAIR(gesvdj_bufferSize)
  EMBER_CUSOLVER_PAIR(gesvdj)
  EMBER_CUSOLVER_PAIR(gesvdjBatched_bufferSize)
  EMBER_CUSOLVER_PAIR(gesvdjBatched)
};

#undef EMBER_CUSOLVER_PAIR

// Opens the library on the first call (thread-safe); throws ember::Error
// naming libcusolver when it cannot be opened or lacks an entry point.
const CusolverApi& cusolver_api();
bool cusolver_api_loaded() noexcept;

// The calling thread's handle for `device` (made current by the caller),
// bound to the device's current stream.
cusolverDnHandle_t cusolver_handle(int device);

}  // namespace ember::ops::linalg

#endif  // EMBER_WITH_CUDA
