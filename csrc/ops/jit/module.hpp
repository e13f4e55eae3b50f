// Compiled kernels loaded into the driver, and their launches.
//
// - Module: one CUlibrary per binary (cuLibraryLoadData: context-independent,
//   so one load serves every device; each device's context gets the code on
//   its first launch there). Modules are cached by the binary's key and
//   never unloaded: a kernel may still be queued when its Python object dies,
//   and the same source compiled twice shares one module.
// - Kernel: a CUkernel with its parameters' offsets and sizes (from the
//   driver), its attributes per device (cached), and launch(), which checks
//   the configuration against the device and the kernel (threads per block,
//   grid limits, dynamic shared memory) before cuLaunchKernel, so a bad
//   launch is a ValueError that says what to change, and checks the launch
//   itself (EMBER_CU_CHECK: CudaError). Launches go on the given stream, in
//   the primary context of its device.
#pragma once

#if EMBER_WITH_CUDA

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/jit/kernel_cache.hpp"
#include "runtime/stream.hpp"

namespace ember::ops::jit {

struct KernelAttributes {
  int max_threads_per_block = 0;
  int shared_size_bytes = 0;  // static shared memory
  int const_size_bytes = 0;
  int local_size_bytes = 0;
  int num_regs = 0;
  int ptx_version = 0;
  int binary_version = 0;
  int max_dynamic_shared_size_bytes = 0;
  int preferred_shared_memory_carveout = 0;
  int optin_shared_limit = 0;  // the most dynamic shared memory the device allows
};

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_mem = 0;
};

class Kernel {
 public:
  Kernel(CUkernel handle, std::string name);
  const std::string& name() const noexcept { return name_; }
  CUkernel handle() const noexcept { return handle_; }
  // Each parameter's offset and size in bytes, as the driver reports them.
  const std::vector<size_t>& param_offsets() const noexcept { return offsets_; }
  const std::vector<size_t>& param_sizes() const noexcept { return sizes_; }
  size_t param_bytes() const noexcept { return bytes_; }

  // Cached per device after the first query.
  const KernelAttributes& attributes(int device);
  void set_max_dynamic_shared_size(int device, int bytes);

  // Checks `cfg` (ValueError), then launches on `stream` (whose device the
  // kernel runs on) with kernelParams `args` (one pointer per parameter).
  // `on_current_device`: the caller knows the stream's device is the current
  // one, so no device guard is needed (saves two cudaGetDevice calls).
  void launch(const LaunchConfig& cfg, cuda::StreamView stream, void** args,
              bool on_current_device = false);

 private:
  CUkernel handle_;
  std::string name_;
  std::vector<size_t> offsets_, sizes_;
  size_t bytes_ = 0;
  std::mutex mutex_;
  static constexpr int kMaxDevices = 64;
  std::unique_ptr<KernelAttributes> attrs_[kMaxDevices];
  std::atomic<const KernelAttributes*> ready_[kMaxDevices] = {};
};

class Module {
 public:
  // The module of `binary`, loaded once per process.
  static std::shared_ptr<Module> load(std::shared_ptr<const Binary> binary);

  const Binary& binary() const noexcept { return *binary_; }
  // The kernel named `name` (a name expression given at compile time maps to
  // its lowered name). CudaError naming the kernels' spelling rules when the
  // module has no such kernel.
  Kernel& kernel(const std::string& name);

 private:
  Module(std::shared_ptr<const Binary> binary, CUlibrary lib)
      : binary_(std::move(binary)), lib_(lib) {}
  std::shared_ptr<const Binary> binary_;
  CUlibrary lib_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Kernel>> kernels_;
};

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
