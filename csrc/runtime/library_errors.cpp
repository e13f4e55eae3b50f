#include "runtime/library_errors.hpp"

#if EMBER_WITH_CUDA
#include <cublas_api.h>
#endif

namespace ember::detail {

void throw_library_error(const char* library, int status, const LibraryStatus& what,
                         const char* call) {
  std::string msg = str(library, " error: ", what.name, " (", what.description, ") in ",
                        function_name(call), ". ", what.hint);
  if (what.out_of_memory) throw OutOfMemoryError("CUDA out of memory. " + msg, OomInfo{});
  throw CudaError(std::move(msg), status, what.name);
}

std::string function_name(const char* call) {
  std::string s(call);
  const size_t paren = s.find('(');
  if (paren != std::string::npos) s.resize(paren);
  const size_t dot = s.find_last_of(".>");
  if (dot != std::string::npos) s = s.substr(dot + 1);
  return s;
}

namespace {

constexpr const char* kPersistHint =
    "If this persists, run with CUDA_LAUNCH_BLOCKING=1 to find the failing call.";

}  // namespace

LibraryStatus describe_cublas_status(int status) {
#if EMBER_WITH_CUDA
  switch (static_cast<cublasStatus_t>(status)) {
    case CUBLAS_STATUS_SUCCESS:
      return {"CUBLAS_STATUS_SUCCESS", "the operation completed successfully", "", false};
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return {"CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized",
              "cuBLAS could not initialise: the GPU may be out of memory or unusable (check "
              "nvidia-smi).",
              false};
    case CUBLAS_STATUS_ALLOC_FAILED:
      return {"CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed",
              "cuBLAS could not allocate memory: free tensors or call ember.cuda.empty_cache().",
              true};
    case CUBLAS_STATUS_INVALID_VALUE:
      return {"CUBLAS_STATUS_INVALID_VALUE",
              "an invalid numeric value was used as an argument",
              "An argument was out of cuBLAS's range; please report this to ember with the "
              "shapes, strides and dtypes of the operands.",
              false};
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return {"CUBLAS_STATUS_ARCH_MISMATCH",
              "an absent device architectural feature is required",
              "This GPU or cuBLAS version does not support the operation for these dtypes; try "
              "float32.",
              false};
    case CUBLAS_STATUS_MAPPING_ERROR:
      return {"CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed",
              kPersistHint, false};
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return {"CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute",
              "A cuBLAS kernel failed; if a previous kernel faulted the CUDA context is unusable "
              "and the process must restart. Run with CUDA_LAUNCH_BLOCKING=1 to find the call.",
              false};
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return {"CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed", kPersistHint,
              false};
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return {"CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported",
              "This GPU or cuBLAS version does not support the operation for these dtypes; try "
              "float32.",
              false};
    case CUBLAS_STATUS_LICENSE_ERROR:
      return {"CUBLAS_STATUS_LICENSE_ERROR",
              "the functionality requested requires some license and an error was detected "
              "when trying to check the current licensing",
              kPersistHint, false};
  }
#endif
  return {"CUBLAS_STATUS_UNKNOWN", "an unknown cuBLAS status", kPersistHint, false};
}

}  // namespace ember::detail
