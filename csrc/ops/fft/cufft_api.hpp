// cuFFT, opened with dlopen on first use like cuBLAS and cuSOLVER
// (ops/blas/cublas_api.hpp, ops/linalg/cusolver_api.hpp): `import ember`
// loads nothing. cufft_api() opens libcufft.so.<CUFFT_VER_MAJOR> (by soname,
// then from the toolkit directory baked in at build time), resolves the entry
// points ember.fft uses into typed pointers (types from cufftXt.h, so a
// signature change is a compile error), and throws a RuntimeError naming
// libcufft when it is missing. Calls go through EMBER_CUFFT_CHECK
// (runtime/library_errors.hpp).
#pragma once

#if EMBER_WITH_CUDA

#include <cufft.h>
#include <cufftXt.h>

#include <string>

#include "runtime/library_errors.hpp"

namespace ember::ops::fft {

struct CufftApi {
  std::string path;
  decltype(&::cufftCreate) Create = nullptr;
  decltype(&::cufftDestroy) Destroy = nullptr;
  decltype(&::cufftSetAutoAllocation) SetAutoAllocation = nullptr;
  decltype(&::cufftXtMakePlanMany) XtMakePlanMany = nullptr;
  decltype(&::cufftSetWorkArea) SetWorkArea = nullptr;
  decltype(&::cufftSetStream) SetStream = nullptr;
  decltype(&::cufftXtExec) XtExec = nullptr;
};

// Opens the library on the first call (thread-safe); throws ember::Error
// naming libcufft when it cannot be opened or lacks an entry point.
const CufftApi& cufft_api();
bool cufft_api_loaded() noexcept;

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
