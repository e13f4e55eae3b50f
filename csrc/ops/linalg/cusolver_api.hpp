// cuSOLVER (dense), opened with dlopen on first use like cuBLAS
// (ops/blas/cublas_api.hpp): `import ember` loads nothing. cusolver_api()
// opens libcusolver.so.<CUSOLVER_VER_MAJOR> (by soname, then from the toolkit
// directory baked in at build time; runtime/library_loader), resolves the
// s/d/c/z entry points ember.linalg uses into typed pointers (types from
// cusolverDn.h, so a signature change is a compile error), and throws a
// RuntimeError naming the library when it is missing. Calls go through EMBER_CUSOLVER_CHECK (runtime/library_errors.hpp).
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

// The s/d/c/z members of one routine; `cname` is the complex routine's name
// where LAPACK's differs (heevd for syevd, ungqr for orgqr, ...).
#define EMBER_CUSOLVER_TYPED(name, cname)           \
  decltype(&::cusolverDnS##name) S##name = nullptr; \
  decltype(&::cusolverDnD##name) D##name = nullptr; \
  decltype(&::cusolverDnC##cname) C##cname = nullptr; \
  decltype(&::cusolverDnZ##cname) Z##cname = nullptr;
#define EMBER_CUSOLVER_QUAD(name) EMBER_CUSOLVER_TYPED(name, name)

struct CusolverApi {
  std::string path;
  decltype(&::cusolverDnCreate) Create = nullptr;
  decltype(&::cusolverDnSetStream) SetStream = nullptr;
  decltype(&::cusolverDnCreateParams) CreateParams = nullptr;
  decltype(&::cusolverDnCreateSyevjInfo) CreateSyevjInfo = nullptr;
  decltype(&::cusolverDnCreateGesvdjInfo) CreateGesvdjInfo = nullptr;
  decltype(&::cusolverDnDestroySyevjInfo) DestroySyevjInfo = nullptr;
  decltype(&::cusolverDnDestroyGesvdjInfo) DestroyGesvdjInfo = nullptr;
  decltype(&::cusolverDnXgesvdjSetMaxSweeps) XgesvdjSetMaxSweeps = nullptr;
  EMBER_CUSOLVER_QUAD(getrf_bufferSize)
  EMBER_CUSOLVER_QUAD(getrf)
  EMBER_CUSOLVER_QUAD(getrs)
  EMBER_CUSOLVER_QUAD(potrf_bufferSize)
  EMBER_CUSOLVER_QUAD(potrf)
  EMBER_CUSOLVER_QUAD(potrs)
  EMBER_CUSOLVER_QUAD(potrfBatched)
  EMBER_CUSOLVER_QUAD(geqrf_bufferSize)
  EMBER_CUSOLVER_QUAD(geqrf)
  EMBER_CUSOLVER_TYPED(orgqr_bufferSize, ungqr_bufferSize)
  EMBER_CUSOLVER_TYPED(orgqr, ungqr)
  EMBER_CUSOLVER_TYPED(ormqr_bufferSize, unmqr_bufferSize)
  EMBER_CUSOLVER_TYPED(ormqr, unmqr)
  EMBER_CUSOLVER_TYPED(syevd_bufferSize, heevd_bufferSize)
  EMBER_CUSOLVER_TYPED(syevd, heevd)
  EMBER_CUSOLVER_TYPED(syevjBatched_bufferSize, heevjBatched_bufferSize)
  EMBER_CUSOLVER_TYPED(syevjBatched, heevjBatched)
  EMBER_CUSOLVER_QUAD(gesvdj_bufferSize)
  EMBER_CUSOLVER_QUAD(gesvdj)
  EMBER_CUSOLVER_QUAD(gesvdjBatched_bufferSize)
  EMBER_CUSOLVER_QUAD(gesvdjBatched)
  // The nonsymmetric eigensolver (cuSOLVER >= 11.7, CUDA 12.6): null when the
  // loaded library lacks it, and eig then runs on the host.
  decltype(&::cusolverDnXgeev_bufferSize) Xgeev_bufferSize = nullptr;
  decltype(&::cusolverDnXgeev) Xgeev = nullptr;
};

#undef EMBER_CUSOLVER_QUAD
#undef EMBER_CUSOLVER_TYPED

// Opens the library on the first call (thread-safe); throws ember::Error
// naming libcusolver when it cannot be opened or lacks an entry point.
const CusolverApi& cusolver_api();
bool cusolver_api_loaded() noexcept;

// The calling thread's handle for `device` (made current by the caller),
// bound to the device's current stream.
cusolverDnHandle_t cusolver_handle(int device);

// The 64-bit API's options object (default options), one per process, for
// cusolverDnX* calls.
cusolverDnParams_t cusolver_params();

}  // namespace ember::ops::linalg

#endif  // EMBER_WITH_CUDA
