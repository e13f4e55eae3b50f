#include "runtime/driver_api.hpp"

#if EMBER_WITH_CUDA

#include <cuda_runtime_api.h>

#include <atomic>
#include <string>

#include "runtime/errors.hpp"
#include "runtime/init.hpp"
#include "runtime/stream.hpp"  // kMaxDevices

namespace ember::cuda {

namespace {

// The primary context of each device, once seen current after cudaSetDevice.
std::atomic<CUcontext> g_primary[kMaxDevices] = {};

template <typename Fn>
void resolve(Fn& fn, const char* name, std::string& missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion(name, &p, CUDA_VERSION, cudaEnableDefault, &status);
  if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr) {
    (void)cudaGetLastError();
    missing += std::string(missing.empty() ? "" : ", ") + name;
    return;
  }
  fn = reinterpret_cast<Fn>(p);
}

struct Resolved {
  DriverApi api;
  std::string missing;
  Resolved() {
    resolve(api.cuCtxGetCurrent, "cuCtxGetCurrent", missing);
    resolve(api.cuLibraryLoadData, "cuLibraryLoadData", missing);
    resolve(api.cuLibraryGetKernel, "cuLibraryGetKernel", missing);
    resolve(api.cuKernelGetAttribute, "cuKernelGetAttribute", missing);
    resolve(api.cuKernelSetAttribute, "cuKernelSetAttribute", missing);
    resolve(api.cuKernelGetParamInfo, "cuKernelGetParamInfo", missing);
    resolve(api.cuLaunchKernel, "cuLaunchKernel", missing);
    resolve(api.cuPointerGetAttribute, "cuPointerGetAttribute", missing);
  }
};

}  // namespace

const DriverApi& driver_api() {
  lazy_init();
  static const Resolved* r = new Resolved();  // never destroyed: used until exit
  if (!r->missing.empty()) {
    throw CudaError(detail::str("the CUDA driver lacks ", r->missing,
                                ", which runtime compilation needs: install an NVIDIA driver "
                                "for CUDA ",
                                CUDA_VERSION / 1000, ".", CUDA_VERSION % 1000 / 10,
                                " or newer (nvidia-smi shows the driver's CUDA version)."),
                    static_cast<int>(CUDA_ERROR_NOT_FOUND), "CUDA_ERROR_NOT_FOUND");
  }
  return r->api;
}

void ensure_driver_context(int device) {
  const DriverApi& api = driver_api();
  CUcontext cur = nullptr;
  EMBER_CU_CHECK(api.cuCtxGetCurrent(&cur));
  if (device >= 0 && device < kMaxDevices && cur != nullptr &&
      cur == g_primary[device].load(std::memory_order_relaxed)) {
    return;
  }
  // cudaSetDevice initialises the primary context and makes it current.
  EMBER_CUDA_CHECK(cudaSetDevice(device));
  EMBER_CU_CHECK(api.cuCtxGetCurrent(&cur));
  if (device >= 0 && device < kMaxDevices) g_primary[device].store(cur, std::memory_order_relaxed);
}

}  // namespace ember::cuda

#endif  // EMBER_WITH_CUDA
