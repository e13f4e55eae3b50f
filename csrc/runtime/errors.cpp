#include "runtime/errors.hpp"

#include <cstdint>
#include <cstdio>

namespace ember::detail {

void append(std::string& out, double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  out += buf;
}

void append(std::string& out, const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%#llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
  out += buf;
}

#if EMBER_WITH_CUDA
namespace {

// What a user can do about the most common failures.
const char* hint_for(cudaError_t err) {
  switch (err) {
    case cudaErrorNoDevice:
      return "No CUDA GPU is visible to this process: check nvidia-smi and CUDA_VISIBLE_DEVICES, "
             "or use device='cpu'.";
    case cudaErrorInsufficientDriver:
      return "The NVIDIA driver is missing or older than the CUDA runtime ember was built with: "
             "install a newer driver, or use device='cpu'.";
    case cudaErrorInvalidDevice:
      return "The device index is out of range: ember.cuda.device_count() says how many GPUs "
             "there are.";
    case cudaErrorMemoryAllocation:
      return "The GPU is out of memory: free tensors, call ember.cuda.empty_cache(), or use "
             "smaller batches.";
    case cudaErrorInitializationError:
      return "CUDA could not initialise: check the driver with nvidia-smi.";
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidAddressSpace:  // an access far outside any allocation (Hopper)
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
      return "A kernel faulted; the CUDA context is now unusable and the process must restart. "
             "Run with CUDA_LAUNCH_BLOCKING=1 or under compute-sanitizer to find the kernel.";
    case cudaErrorInvalidResourceHandle:
      return "A stream or event handle is invalid: it was destroyed, or belongs to another "
             "device or process.";
    case cudaErrorNotReady:
      return "The work is still running: synchronize() first.";
    default:
      return "If this persists, run with CUDA_LAUNCH_BLOCKING=1 to find the failing call.";
  }
}

}  // namespace

void throw_cuda_error(int code, const char* call, const char* file, int line) {
  auto err = static_cast<cudaError_t>(code);
  // Clear a non-sticky error so that the next, unrelated call does not see it.
  (void)cudaGetLastError();
  std::string msg = str("CUDA error: ", cudaGetErrorName(err), " (", cudaGetErrorString(err),
                        ") in ", call, ". ", hint_for(err));
  (void)file;
  (void)line;
  if (err == cudaErrorMemoryAllocation) {
    throw OutOfMemoryError(str("CUDA out of memory. ", msg), OomInfo{});
  }
  throw CudaError(std::move(msg), code, cudaGetErrorName(err));
}

void warn_cuda_error(int code, const char* call, const char* file, int line) noexcept {
  auto err = static_cast<cudaError_t>(code);
  (void)cudaGetLastError();
  // At interpreter exit the runtime may be unloaded before our statics die.
  if (err == cudaErrorCudartUnloading) return;
  std::fprintf(stderr, "ember warning: %s failed with %s (%s) at %s:%d\n", call,
               cudaGetErrorName(err), cudaGetErrorString(err), file, line);
}
#else
void throw_cuda_error(int code, const char* call, const char*, int) {
  throw CudaError(str("CUDA error ", code, " in ", call), code, "cudaError");
}
void warn_cuda_error(int, const char*, const char*, int) noexcept {}
#endif

}  // namespace ember::detail
