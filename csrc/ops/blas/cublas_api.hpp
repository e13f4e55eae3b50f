// cuBLAS and cuBLASLt, opened with dlopen on first use (import ember must not
// load them: libcublasLt is 0.5 GB and costs 50-600 ms to load).
//
// - cublas_api() opens libcublasLt.so.<major> and libcublas.so.<major> (by
//   soname, then from the toolkit directory baked in at build time) and
//   resolves every entry point ember uses into a typed function pointer: the
//   types come from the cuBLAS headers, so a signature change is a compile
//   error, not a crash. It throws a RuntimeError saying what to install when
//   the libraries cannot be opened. Nothing is ever unloaded.
// - Calls go through EMBER_CUBLAS_CHECK (runtime/library_errors.hpp, included
//   here): ember.cuda.CudaError naming the cuBLAS function, the status and what
//   to try next. The members are named after the functions, so
//   EMBER_CUBLAS_CHECK(api.cublasGemmEx(...)) names cublasGemmEx.
#pragma once

#if EMBER_WITH_CUDA

#include <cublasLt.h>
#include <cublas_api.h>

#include <string>

#include "runtime/library_errors.hpp"

namespace ember::ops::blas {

// Signatures of the entry points that cublas_api.h overloads in C++ (a
// static inline shim takes a cudaDataType compute type), so decltype(&f)
// cannot name them.
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                    int, int, const void*, const void*, cudaDataType, int,
                                    const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmEx64Fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                      int64_t, int64_t, int64_t, const void*, const void*,
                                      cudaDataType, int64_t, const void*, cudaDataType, int64_t,
                                      const void*, void*, cudaDataType, int64_t,
                                      cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedExFn = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
    const void*, cudaDataType, int, long long, const void*, cudaDataType, int, long long,
    const void*, void*, cudaDataType, int, long long, int, cublasComputeType_t, cublasGemmAlgo_t);
using GemmStridedBatchedEx64Fn = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t, const void*,
    const void*, cudaDataType, int64_t, long long, const void*, cudaDataType, int64_t, long long,
    const void*, void*, cudaDataType, int64_t, long long, int64_t, cublasComputeType_t,
    cublasGemmAlgo_t);

struct CublasApi {
  std::string path;  // where libcublas was found

  // libcublas
  decltype(&::cublasCreate_v2) cublasCreate = nullptr;
  decltype(&::cublasSetStream_v2) cublasSetStream = nullptr;
  decltype(&::cublasSetWorkspace_v2) cublasSetWorkspace = nullptr;
  decltype(&::cublasSetMathMode) cublasSetMathMode = nullptr;
  GemmExFn cublasGemmEx = nullptr;
  GemmEx64Fn cublasGemmEx_64 = nullptr;
  GemmStridedBatchedExFn cublasGemmStridedBatchedEx = nullptr;
  GemmStridedBatchedEx64Fn cublasGemmStridedBatchedEx_64 = nullptr;
  // ember.linalg's (ops/linalg/linalg_cuda.cpp): triangular solves and the
  // batched LU/QR of small matrices.
  decltype(&::cublasStrsm_v2) cublasStrsmV2 = nullptr;
  decltype(&::cublasDtrsm_v2) cublasDtrsmV2 = nullptr;
  decltype(&::cublasSgetrfBatched) cublasSgetrfBatched = nullptr;
  decltype(&::cublasDgetrfBatched) cublasDgetrfBatched = nullptr;
  decltype(&::cublasSgetrsBatched) cublasSgetrsBatched = nullptr;
  decltype(&::cublasDgetrsBatched) cublasDgetrsBatched = nullptr;
  decltype(&::cublasSgeqrfBatched) cublasSgeqrfBatched = nullptr;
  decltype(&::cublasDgeqrfBatched) cublasDgeqrfBatched = nullptr;
  decltype(&::cublasCtrsm_v2) cublasCtrsmV2 = nullptr;
  decltype(&::cublasZtrsm_v2) cublasZtrsmV2 = nullptr;
  decltype(&::cublasCgetrfBatched) cublasCgetrfBatched = nullptr;
  decltype(&::cublasZgetrfBatched) cublasZgetrfBatched = nullptr;
  decltype(&::cublasCgetrsBatched) cublasCgetrsBatched = nullptr;
  decltype(&::cublasZgetrsBatched) cublasZgetrsBatched = nullptr;
  decltype(&::cublasCgeqrfBatched) cublasCgeqrfBatched = nullptr;
  decltype(&::cublasZgeqrfBatched) cublasZgeqrfBatched = nullptr;

  // libcublasLt
  decltype(&::cublasLtCreate) cublasLtCreate = nullptr;
  decltype(&::cublasLtMatmul) cublasLtMatmul = nullptr;
  decltype(&::cublasLtMatmulDescCreate) cublasLtMatmulDescCreate = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) cublasLtMatmulDescDestroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) cublasLtMatmulDescSetAttribute = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) cublasLtMatrixLayoutCreate = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) cublasLtMatrixLayoutDestroy = nullptr;
  decltype(&::cublasLtMatrixLayoutSetAttribute) cublasLtMatrixLayoutSetAttribute = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) cublasLtMatmulPreferenceCreate = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) cublasLtMatmulPreferenceDestroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) cublasLtMatmulPreferenceSetAttribute =
      nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) cublasLtMatmulAlgoGetHeuristic = nullptr;
};

// Opens the libraries on the first call (thread-safe); throws ember::Error
// when they cannot be opened or lack an entry point.
const CublasApi& cublas_api();

// True once cublas_api() has succeeded (for tests: import ember loads nothing).
bool cublas_loaded() noexcept;

}  // namespace ember::ops::blas

#endif  // EMBER_WITH_CUDA
