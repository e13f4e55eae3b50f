// Status checks of the CUDA libraries ember opens at run time, beside
// EMBER_CUDA_CHECK (runtime/errors.hpp): one macro per library.
//
// - Every library reports success as status 0; anything else raises
//   ember.cuda.CudaError naming the library, the function called, the status's
//   name and description, and what to try next. A library's own allocation
//   failure raises ember.cuda.OutOfMemoryError instead.
// - Each library has a describe_<library>_status() here, built from the
//   library's header alone (never a call into the library), so a message can
//   be made even when the library failed to load half-way.
// - Write calls as EMBER_CUBLAS_CHECK(api.cublasGemmEx(...)): the message names
//   the function after the last '.' or '->' before the parenthesis.
// - Libraries now: cuBLAS and cuBLASLt (EMBER_CUBLAS_CHECK), cuSOLVER (EMBER_CUSOLVER_CHECK), cuFFT (EMBER_CUFFT_CHECK), NVRTC
//   (EMBER_NVRTC_CHECK) and the CUDA driver API (EMBER_CU_CHECK, for the
//   entry points of runtime/driver_api.hpp). cuDNN and CUPTI
//   join here, each with its describe function.
#pragma once

#include "runtime/errors.hpp"

namespace ember {

// Runtime compilation (NVRTC) refused a source: `log` is the compiler's
// output, with the line numbers of the source it was given. The bindings map
// it to ember.cuda.CompileError (a RuntimeError) with a `log` attribute.
class CompileError : public Error {
 public:
  CompileError(std::string message, std::string log)
      : Error(std::move(message)), log_(std::move(log)) {}
  const std::string& log() const noexcept { return log_; }

 private:
  std::string log_;
};

}  // namespace ember

namespace ember::detail {

// What a library says about one of its statuses.
struct LibraryStatus {
  const char* name;         // e.g. "CUBLAS_STATUS_NOT_SUPPORTED"
  const char* description;  // what it means
  const char* hint;         // what to try next
  bool out_of_memory;       // raise OutOfMemoryError rather than CudaError
};

// Throws CudaError (or OutOfMemoryError) for a failed library call `call`.
[[noreturn]] void throw_library_error(const char* library, int status, const LibraryStatus& what,
                                      const char* call);

// "api.cublasGemmEx(handle, ...)" -> "cublasGemmEx".
std::string function_name(const char* call);

// cuBLAS and cuBLASLt statuses (cublasStatus_t).
LibraryStatus describe_cublas_status(int status);
// NVRTC statuses (nvrtcResult). A failed compilation is not reported through
// this: the compiler raises ember.cuda.CompileError with NVRTC's log.
LibraryStatus describe_nvrtc_status(int status);
// cuSOLVER statuses (cusolverStatus_t). A failed factorization (a singular or
// non-positive-definite matrix) is not a status: it comes back in the routine's
// info array, which ember.linalg turns into torch.linalg.LinAlgError.
LibraryStatus describe_cusolver_status(int status);
// cuFFT statuses (cufftResult). CUFFT_ALLOC_FAILED is an OutOfMemoryError.
LibraryStatus describe_cufft_status(int status);
// CUDA driver API results (CUresult). Kernel faults say that the context is
// unusable; launch-resource failures say what to lower.
LibraryStatus describe_cu_status(int status);

}  // namespace ember::detail

#define EMBER_LIBRARY_CHECK(library, describe, expr)                                    \
  do {                                                                                  \
    const int ember_status_ = static_cast<int>(expr);                                   \
    if (ember_status_ != 0)                                                             \
      ::ember::detail::throw_library_error(library, ember_status_, describe(ember_status_), \
                                           #expr);                                      \
  } while (0)

#define EMBER_CUBLAS_CHECK(expr) \
  EMBER_LIBRARY_CHECK("cuBLAS", ::ember::detail::describe_cublas_status, expr)

#define EMBER_CUSOLVER_CHECK(expr) \
  EMBER_LIBRARY_CHECK("cuSOLVER", ::ember::detail::describe_cusolver_status, expr)

#define EMBER_CUFFT_CHECK(expr) \
  EMBER_LIBRARY_CHECK("cuFFT", ::ember::detail::describe_cufft_status, expr)

#define EMBER_NVRTC_CHECK(expr) \
  EMBER_LIBRARY_CHECK("NVRTC", ::ember::detail::describe_nvrtc_status, expr)

#define EMBER_CU_CHECK(expr) \
  EMBER_LIBRARY_CHECK("CUDA driver", ::ember::detail::describe_cu_status, expr)
