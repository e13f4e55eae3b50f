// The CUDA driver API entry points ember calls directly: loading compiled
// kernels (NVRTC's cubins and PTX), looking kernels up, querying them, and
// launching them with cuLaunchKernel.
//
// - ember links the CUDA runtime statically and no libcuda at build time; the
//   entry points come from the driver the runtime loaded, through
//   cudaGetDriverEntryPointByVersion (for the CUDA version ember was built
//   with, so each pointer has the prototype of the header it was compiled
//   against). Resolved once, on first use, after lazy_init(); import ember
//   resolves nothing.
// - Modules are loaded with cuLibraryLoadData (context-independent loading):
//   one CUlibrary serves every device, each device's context gets the code on
//   first use, and a CUkernel is launched by casting it to CUfunction.
// - Calls are checked with EMBER_CU_CHECK (runtime/library_errors.hpp).
#pragma once

#if EMBER_WITH_CUDA

#include <cuda.h>

#include "runtime/library_errors.hpp"

namespace ember::cuda {

struct DriverApi {
  decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = nullptr;
  decltype(&::cuLibraryLoadData) cuLibraryLoadData = nullptr;
  decltype(&::cuLibraryGetKernel) cuLibraryGetKernel = nullptr;
  decltype(&::cuKernelGetAttribute) cuKernelGetAttribute = nullptr;
  decltype(&::cuKernelSetAttribute) cuKernelSetAttribute = nullptr;
  decltype(&::cuKernelGetParamInfo) cuKernelGetParamInfo = nullptr;
  decltype(&::cuLaunchKernel) cuLaunchKernel = nullptr;
  decltype(&::cuPointerGetAttribute) cuPointerGetAttribute = nullptr;
};

// Resolves the entry points on the first call (thread-safe; initialises CUDA
// lazily). Throws CudaError when the driver lacks one of them.
const DriverApi& driver_api();

// Makes the primary context of `device` current on this thread for the driver
// API, as the runtime does for its own calls (a thread that has made no
// runtime call yet has no current context). `device` must be the runtime's
// current device. Cheap when it already is (one driver call).
void ensure_driver_context(int device);

}  // namespace ember::cuda

#endif  // EMBER_WITH_CUDA
