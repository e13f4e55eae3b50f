#include "runtime/library_errors.hpp"

#if EMBER_WITH_CUDA
#include <cublas_api.h>
#include <cuda.h>
#include <cufft.h>
#include <cusolver_common.h>
#include <nvrtc.h>
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

constexpr const char* kFaultHint =
    "A kernel faulted; the CUDA context is now unusable and the process must restart. Run with "
    "CUDA_LAUNCH_BLOCKING=1 or under compute-sanitizer to find the kernel.";

#if EMBER_WITH_CUDA
// CUresult values of cuda.h, named by the header's own constants; the
// descriptions follow the header's comments.
struct CuResult {
  int code;
  const char* name;
  const char* description;
  const char* hint;
  bool out_of_memory;
};

#define EMBER_CU(name, description, hint, oom) {name, #name, description, hint, oom}
constexpr CuResult kCuResults[] = {
    EMBER_CU(
        CUDA_ERROR_INVALID_VALUE,
        "one or more of the parameters passed to the API call is not within an acceptable range",
        "Check the launch configuration (grid and block dimensions, shared memory) and the "
        "arguments.",
        false),
    EMBER_CU(CUDA_ERROR_OUT_OF_MEMORY,
             "the API call failed because it was unable to allocate enough memory",
             "The GPU is out of memory: free tensors or call ember.cuda.empty_cache().", true),
    EMBER_CU(CUDA_ERROR_NOT_INITIALIZED, "the CUDA driver has not been initialized",
             "Call ember.cuda.init() first; please report this to ember.", false),
    EMBER_CU(CUDA_ERROR_DEINITIALIZED, "the CUDA driver is shutting down",
             "This happens at interpreter exit; nothing to do.", false),
    EMBER_CU(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PROFILER_NOT_INITIALIZED, "profiler not initialized", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STUB_LIBRARY, "the CUDA driver is a stub library",
             "Install the NVIDIA driver (libcuda.so.1 found is the toolkit's stub).", false),
    EMBER_CU(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "the call requires a newer driver",
             "Install a newer NVIDIA driver.", false),
    EMBER_CU(CUDA_ERROR_DEVICE_UNAVAILABLE, "device unavailable", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected",
             "Check nvidia-smi and CUDA_VISIBLE_DEVICES.", false),
    EMBER_CU(CUDA_ERROR_INVALID_DEVICE, "the device ordinal is not a valid CUDA device",
             "Ember.cuda.device_count() says how many GPUs there are.", false),
    EMBER_CU(CUDA_ERROR_DEVICE_NOT_LICENSED, "device not licensed", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_IMAGE, "the device kernel image is invalid",
             "The compiled kernel is corrupt or for another GPU: delete ember's kernel cache "
             "(EMBER_CACHE_DIR, ~/.cache/ember/kernels) and retry.",
             false),
    EMBER_CU(CUDA_ERROR_INVALID_CONTEXT,
             "there is no context bound to the current thread or it is invalid",
             "Please report this to ember.", false),
    EMBER_CU(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MAP_FAILED, "map failed", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_UNMAP_FAILED, "unmap failed", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_ALREADY_MAPPED, "already mapped", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NO_BINARY_FOR_GPU, "there is no kernel image suitable for this device",
             "Compile for this GPU's architecture (ember.cuda.get_device_capability()).", false),
    EMBER_CU(CUDA_ERROR_ALREADY_ACQUIRED, "already acquired", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_MAPPED, "not mapped", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "not mapped as array", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "not mapped as pointer", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_ECC_UNCORRECTABLE, "ecc uncorrectable", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_UNSUPPORTED_LIMIT, "unsupported limit", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "context already in use", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "peer access unsupported", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed",
             "The PTX is invalid or too new for the driver: update the driver or compile for an "
             "older architecture.",
             false),
    EMBER_CU(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid graphics context", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NVLINK_UNCORRECTABLE, "nvlink uncorrectable", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "the PTX JIT compiler library was not found",
             "Install the NVIDIA driver's JIT compiler (libnvidia-ptxjitcompiler).", false),
    EMBER_CU(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
             "the PTX was compiled with a toolchain newer than the driver supports",
             "Install a newer NVIDIA driver.", false),
    EMBER_CU(CUDA_ERROR_JIT_COMPILATION_DISABLED, "jit compilation disabled", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "unsupported exec affinity", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, "unsupported devside sync", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CONTAINED, "contained", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_SOURCE, "the device kernel source is invalid", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_FILE_NOT_FOUND, "the file was not found", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object init failed", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_OPERATING_SYSTEM, "operating system", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_HANDLE, "a resource handle passed to the API call was not valid",
             "A stream, event, module or kernel handle is stale or belongs to another device.",
             false),
    EMBER_CU(CUDA_ERROR_ILLEGAL_STATE, "illegal state", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_LOSSY_QUERY, "lossy query", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_FOUND, "a named symbol was not found",
             "Check the kernel's name: C++ kernels need extern \"C\" or name_expressions.", false),
    EMBER_CU(CUDA_ERROR_NOT_READY, "the asynchronous operation has not completed yet",
             "Synchronize() first.", false),
    EMBER_CU(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered", kFaultHint,
             false),
    EMBER_CU(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
             "a launch did not occur because it did not have appropriate resources",
             "Use fewer threads per block, less shared memory, or fewer registers per thread "
             "(kernel.num_regs, kernel.max_threads_per_block).",
             false),
    EMBER_CU(CUDA_ERROR_LAUNCH_TIMEOUT, "the device kernel took too long to execute", kFaultHint,
             false),
    EMBER_CU(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch incompatible texturing",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access already enabled", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access not enabled", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context active", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_ASSERT, "a device-side assert triggered", kFaultHint, false),
    EMBER_CU(CUDA_ERROR_TOO_MANY_PEERS, "too many peers", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory already registered",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "host memory not registered", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_HARDWARE_STACK_ERROR,
             "the kernel hit a stack error (overflow or misaligned stack)", kFaultHint, false),
    EMBER_CU(CUDA_ERROR_ILLEGAL_INSTRUCTION, "the kernel executed an illegal instruction",
             kFaultHint, false),
    EMBER_CU(CUDA_ERROR_MISALIGNED_ADDRESS, "the kernel loaded or stored at a misaligned address",
             kFaultHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_ADDRESS_SPACE,
             "the kernel used an address in the wrong address space", kFaultHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_PC, "the kernel's program counter was invalid", kFaultHint, false),
    EMBER_CU(CUDA_ERROR_LAUNCH_FAILED,
             "an exception occurred on the device while executing a kernel", kFaultHint, false),
    EMBER_CU(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks for a cooperative launch",
             "Launch at most the number of blocks that fit on the device at once.", false),
    EMBER_CU(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory leak", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_PERMITTED, "the operation is not permitted", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_NOT_SUPPORTED, "the operation is not supported on this device or driver",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_SYSTEM_NOT_READY, "system not ready", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "system driver mismatch", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "compat not supported on device",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MPS_CONNECTION_FAILED, "mps connection failed", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MPS_RPC_FAILURE, "mps rpc failure", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MPS_SERVER_NOT_READY, "mps server not ready", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "mps max clients reached", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, "mps max connections reached", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_MPS_CLIENT_TERMINATED, "mps client terminated", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CDP_NOT_SUPPORTED, "cdp not supported", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CDP_VERSION_MISMATCH, "cdp version mismatch", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
             "the operation is not permitted while a stream is being captured", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "stream capture invalidated", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_MERGE, "stream capture merge", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "stream capture unmatched", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "stream capture unjoined", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "stream capture isolation", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "stream capture implicit", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_CAPTURED_EVENT, "captured event", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "stream capture wrong thread", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_TIMEOUT, "timeout", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph exec update failure", kPersistHint,
             false),
    EMBER_CU(CUDA_ERROR_EXTERNAL_DEVICE, "external device", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_CLUSTER_SIZE, "the cluster size is invalid", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_FUNCTION_NOT_LOADED, "the kernel has not been loaded into this context",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_RESOURCE_TYPE, "invalid resource type", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "invalid resource configuration",
             kPersistHint, false),
    EMBER_CU(CUDA_ERROR_KEY_ROTATION, "key rotation", kPersistHint, false),
    EMBER_CU(CUDA_ERROR_UNKNOWN, "an unknown internal error has occurred", kPersistHint, false),
};
#undef EMBER_CU
#endif

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

LibraryStatus describe_cufft_status(int status) {
#if EMBER_WITH_CUDA
  switch (static_cast<cufftResult>(status)) {
    case CUFFT_SUCCESS:
      return {"CUFFT_SUCCESS", "the operation completed successfully", "", false};
    case CUFFT_INVALID_PLAN:
      return {"CUFFT_INVALID_PLAN", "the plan handle is invalid", kPersistHint, false};
    case CUFFT_ALLOC_FAILED:
      return {"CUFFT_ALLOC_FAILED", "cuFFT failed to allocate GPU or CPU memory",
              "Free tensors, call ember.cuda.empty_cache(), or lower "
              "ember.backends.cuda.cufft_plan_cache.max_size.",
              true};
    case CUFFT_INVALID_TYPE:
      return {"CUFFT_INVALID_TYPE", "the transform type is not supported", kPersistHint, false};
    case CUFFT_INVALID_VALUE:
      return {"CUFFT_INVALID_VALUE", "a bad pointer or parameter was given",
              "Please report this to ember with the shape, strides and dtype of the input.",
              false};
    case CUFFT_INTERNAL_ERROR:
      return {"CUFFT_INTERNAL_ERROR", "an internal cuFFT error (often a driver problem)",
              kPersistHint, false};
    case CUFFT_EXEC_FAILED:
      return {"CUFFT_EXEC_FAILED", "cuFFT failed to execute the transform on the GPU",
              kPersistHint, false};
    case CUFFT_SETUP_FAILED:
      return {"CUFFT_SETUP_FAILED", "the cuFFT library failed to initialise",
              "Check that the GPU is usable (nvidia-smi) and that libcufft matches the driver.",
              false};
    case CUFFT_INVALID_SIZE:
      return {"CUFFT_INVALID_SIZE", "the transform size is not supported",
              "cuFFT does not support this signal size (half precision needs powers of two); "
              "try float32 or the CPU.",
              false};
    case CUFFT_UNALIGNED_DATA:
      return {"CUFFT_UNALIGNED_DATA", "the data is not aligned", kPersistHint, false};
    case CUFFT_INVALID_DEVICE:
      return {"CUFFT_INVALID_DEVICE", "the plan was made on another GPU", kPersistHint, false};
    case CUFFT_NO_WORKSPACE:
      return {"CUFFT_NO_WORKSPACE", "no workspace was given to the plan", kPersistHint, false};
    case CUFFT_NOT_IMPLEMENTED:
      return {"CUFFT_NOT_IMPLEMENTED", "the functionality is not implemented",
              "cuFFT does not implement this transform; try the CPU.", false};
    case CUFFT_NOT_SUPPORTED:
      return {"CUFFT_NOT_SUPPORTED", "the operation is not supported for these parameters",
              "cuFFT does not support this combination of sizes, strides and dtype; try "
              "float32 or the CPU.",
              false};
    default:
      break;
  }
#endif
  return {"CUFFT_UNKNOWN", "an unknown cuFFT status", kPersistHint, false};
}

LibraryStatus describe_cusolver_status(int status) {
#if EMBER_WITH_CUDA
  switch (static_cast<cusolverStatus_t>(status)) {
    case CUSOLVER_STATUS_SUCCESS:
      return {"CUSOLVER_STATUS_SUCCESS", "the operation completed successfully", "", false};
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return {"CUSOLVER_STATUS_NOT_INITIALIZED", "the library was not initialized",
              "cuSOLVER could not initialise: the GPU may be out of memory or unusable (check "
              "nvidia-smi).",
              false};
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return {"CUSOLVER_STATUS_ALLOC_FAILED", "the resource allocation failed",
              "cuSOLVER could not allocate memory: free tensors or call ember.cuda.empty_cache().",
              true};
    case CUSOLVER_STATUS_INVALID_VALUE:
      return {"CUSOLVER_STATUS_INVALID_VALUE", "an invalid value was passed as an argument",
              "An argument was out of cuSOLVER's range; please report this to ember with the "
              "shapes and dtypes of the operands.",
              false};
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return {"CUSOLVER_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required",
              "This GPU does not support the routine; try float32 or the CPU.", false};
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return {"CUSOLVER_STATUS_EXECUTION_FAILED", "the GPU program failed to execute",
              kPersistHint, false};
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return {"CUSOLVER_STATUS_INTERNAL_ERROR", "an internal cuSOLVER operation failed",
              kPersistHint, false};
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return {"CUSOLVER_STATUS_NOT_SUPPORTED", "the parameters are not supported",
              "cuSOLVER does not support this combination of sizes and options; try the CPU.",
              false};
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return {"CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "the matrix type is not supported",
              "Please report this to ember.", false};
    default:
      break;
  }
#endif
  return {"CUSOLVER_STATUS_UNKNOWN", "an unknown cuSOLVER status", kPersistHint, false};
}

LibraryStatus describe_nvrtc_status(int status) {
#if EMBER_WITH_CUDA
  switch (static_cast<nvrtcResult>(status)) {
    case NVRTC_SUCCESS:
      return {"NVRTC_SUCCESS", "success", "", false};
    case NVRTC_ERROR_OUT_OF_MEMORY:
      return {"NVRTC_ERROR_OUT_OF_MEMORY", "the compiler ran out of host memory",
              "Free host memory and retry.", false};
    case NVRTC_ERROR_PROGRAM_CREATION_FAILURE:
      return {"NVRTC_ERROR_PROGRAM_CREATION_FAILURE", "the program could not be created",
              kPersistHint, false};
    case NVRTC_ERROR_INVALID_INPUT:
      return {"NVRTC_ERROR_INVALID_INPUT", "an argument to NVRTC was invalid",
              "Please report this to ember with the source and options.", false};
    case NVRTC_ERROR_INVALID_PROGRAM:
      return {"NVRTC_ERROR_INVALID_PROGRAM", "the program handle is invalid",
              "Please report this to ember.", false};
    case NVRTC_ERROR_INVALID_OPTION:
      return {"NVRTC_ERROR_INVALID_OPTION", "a compiler option is not valid",
              "Check the options= passed (NVRTC's spelling: '-std=c++17', "
              "'--use_fast_math', '-DNAME=VALUE', '-I<dir>').",
              false};
    case NVRTC_ERROR_COMPILATION:
      return {"NVRTC_ERROR_COMPILATION", "the source did not compile",
              "Read the compiler's log above and fix the source.", false};
    case NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:
      return {"NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "a builtin operation failed",
              "NVRTC could not load its builtins library (libnvrtc-builtins): install the "
              "NVRTC that matches libnvrtc.",
              false};
    case NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION:
      return {"NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
              "name expressions must be added before compiling", "Please report this to ember.",
              false};
    case NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:
      return {"NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
              "lowered names are only known after compiling", "Please report this to ember.",
              false};
    case NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:
      return {"NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "a name expression is not valid",
              "Each name expression must name a __global__ function of the source, e.g. "
              "'my_kernel<float>'.",
              false};
    case NVRTC_ERROR_INTERNAL_ERROR:
      return {"NVRTC_ERROR_INTERNAL_ERROR", "the compiler failed internally", kPersistHint,
              false};
    default:
      break;
  }
#endif
  return {"NVRTC_ERROR_UNKNOWN", "an NVRTC status ember does not know", kPersistHint, false};
}

LibraryStatus describe_cu_status(int status) {
  if (status == 0) return {"CUDA_SUCCESS", "no error", "", false};
#if EMBER_WITH_CUDA
  for (const CuResult& r : kCuResults) {
    if (r.code == status) return {r.name, r.description, r.hint, r.out_of_memory};
  }
#endif
  return {"CUDA_ERROR_UNKNOWN", "a CUDA driver result ember does not know", kPersistHint, false};
}

}  // namespace ember::detail
