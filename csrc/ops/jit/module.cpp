#include "ops/jit/module.hpp"

#include <optional>

#if EMBER_WITH_CUDA

#include <cuda_runtime_api.h>

#include "runtime/cuda_device.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/errors.hpp"

namespace ember::ops::jit {

namespace {

std::mutex g_modules_mutex;
std::unordered_map<std::string, std::shared_ptr<Module>>& modules() {
  static auto* m = new std::unordered_map<std::string, std::shared_ptr<Module>>();
  return *m;
}

int kernel_attribute(CUfunction_attribute a, CUkernel k, int device) {
  int v = 0;
  EMBER_CU_CHECK(cuda::driver_api().cuKernelGetAttribute(&v, a, k, device));
  return v;
}

std::string dims(const unsigned (&d)[3]) {
  return detail::str("(", d[0], ", ", d[1], ", ", d[2], ")");
}

}  // namespace

Kernel::Kernel(CUkernel handle, std::string name) : handle_(handle), name_(std::move(name)) {
  const cuda::DriverApi& api = cuda::driver_api();
  for (size_t i = 0;; ++i) {
    size_t off = 0, size = 0;
    if (api.cuKernelGetParamInfo(handle_, i, &off, &size) != CUDA_SUCCESS) break;
    offsets_.push_back(off);
    sizes_.push_back(size);
    bytes_ = off + size;
  }
}

const KernelAttributes& Kernel::attributes(int device) {
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "device ", device, " out of range");
  if (const KernelAttributes* a = ready_[device].load(std::memory_order_acquire)) return *a;
  std::lock_guard<std::mutex> lock(mutex_);
  if (attrs_[device]) return *attrs_[device];
  // Queried in the device's primary context (the kernel is loaded into it).
  cuda::DeviceGuard guard(device);
  cuda::ensure_driver_context(device);
  auto a = std::make_unique<KernelAttributes>();
  a->max_threads_per_block =
      kernel_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, handle_, device);
  a->shared_size_bytes = kernel_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, handle_, device);
  a->const_size_bytes = kernel_attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, handle_, device);
  a->local_size_bytes = kernel_attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, handle_, device);
  a->num_regs = kernel_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, handle_, device);
  a->ptx_version = kernel_attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION, handle_, device);
  a->binary_version = kernel_attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION, handle_, device);
  a->max_dynamic_shared_size_bytes =
      kernel_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, handle_, device);
  a->preferred_shared_memory_carveout =
      kernel_attribute(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, handle_, device);
  a->optin_shared_limit =
      static_cast<int>(cuda::get_device_properties(device).shared_memory_per_block_optin) -
      a->shared_size_bytes;
  attrs_[device] = std::move(a);
  ready_[device].store(attrs_[device].get(), std::memory_order_release);
  return *attrs_[device];
}

void Kernel::set_max_dynamic_shared_size(int device, int bytes) {
  const KernelAttributes& a = attributes(device);
  EMBER_CHECK_VALUE(bytes >= 0 && bytes <= a.optin_shared_limit, "kernel '", name_,
                    "': max_dynamic_shared_size_bytes must be in [0, ", a.optin_shared_limit,
                    "] on device ", device, " (the device's opt-in limit less the kernel's ",
                    a.shared_size_bytes, " bytes of static shared memory), got ", bytes);
  cuda::DeviceGuard guard(device);
  cuda::ensure_driver_context(device);
  EMBER_CU_CHECK(cuda::driver_api().cuKernelSetAttribute(
      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes, handle_, device));
  std::lock_guard<std::mutex> lock(mutex_);
  attrs_[device]->max_dynamic_shared_size_bytes = bytes;
}

void Kernel::launch(const LaunchConfig& cfg, cuda::StreamView stream, void** args,
                    bool on_current_device) {
  const int device = stream.device();
  const KernelAttributes& a = attributes(device);
  const unsigned* g = cfg.grid;
  const unsigned* b = cfg.block;
  EMBER_CHECK_VALUE(g[0] >= 1 && g[1] >= 1 && g[2] >= 1 && b[0] >= 1 && b[1] >= 1 && b[2] >= 1,
                    "kernel '", name_, "': grid ", dims(cfg.grid), " and block ", dims(cfg.block),
                    " must be positive in every dimension");
  EMBER_CHECK_VALUE(g[0] <= 0x7FFFFFFFu && g[1] <= 65535 && g[2] <= 65535, "kernel '", name_,
                    "': grid ", dims(cfg.grid),
                    " exceeds the limits (2147483647, 65535, 65535): launch fewer blocks or "
                    "loop inside the kernel");
  EMBER_CHECK_VALUE(b[0] <= 1024 && b[1] <= 1024 && b[2] <= 64, "kernel '", name_, "': block ",
                    dims(cfg.block), " exceeds the limits (1024, 1024, 64)");
  const unsigned long long threads = 1ull * b[0] * b[1] * b[2];
  EMBER_CHECK_VALUE(threads <= static_cast<unsigned long long>(a.max_threads_per_block), "kernel '",
                    name_, "' was launched with ", threads, " threads per block (block ",
                    dims(cfg.block), "), more than the ", a.max_threads_per_block,
                    " it can run on device ", device, " (it uses ", a.num_regs,
                    " registers per thread): launch fewer threads per block");
  if (cfg.shared_mem > static_cast<unsigned>(a.max_dynamic_shared_size_bytes)) {
    throw ValueError(detail::str(
        "kernel '", name_, "' was launched with shared_mem=", cfg.shared_mem,
        " bytes of dynamic shared memory, more than its limit of ", a.max_dynamic_shared_size_bytes,
        " bytes: ",
        cfg.shared_mem <= static_cast<unsigned>(a.optin_shared_limit)
            ? detail::str("raise the limit first with kernel.max_dynamic_shared_size_bytes = ",
                          cfg.shared_mem)
            : detail::str("device ", device, " allows at most ", a.optin_shared_limit,
                          " bytes for this kernel; use less shared memory")));
  }
  std::optional<cuda::DeviceGuard> guard;
  if (!on_current_device) guard.emplace(device);
  cuda::ensure_driver_context(device);
  EMBER_CU_CHECK(cuda::driver_api().cuLaunchKernel(
      reinterpret_cast<CUfunction>(handle_), g[0], g[1], g[2], b[0], b[1], b[2], cfg.shared_mem,
      reinterpret_cast<CUstream>(stream.handle()), args, nullptr));
}

std::shared_ptr<Module> Module::load(std::shared_ptr<const Binary> binary) {
  const std::string id = hex(binary->key) + binary->target;
  std::lock_guard<std::mutex> lock(g_modules_mutex);
  auto& slot = modules()[id];
  if (slot) return slot;
  const cuda::DriverApi& api = cuda::driver_api();
  cuda::ensure_driver_context(cuda::current_device());
  CUlibrary lib = nullptr;
  EMBER_CU_CHECK(
      api.cuLibraryLoadData(&lib, binary->image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  slot.reset(new Module(std::move(binary), lib));
  return slot;
}

Kernel& Module::kernel(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(name);
  if (it != kernels_.end()) return *it->second;
  std::string symbol = name;
  for (const auto& [expr, lowered] : binary_->lowered) {
    if (expr == name) symbol = lowered;
  }
  CUkernel k = nullptr;
  const CUresult r = cuda::driver_api().cuLibraryGetKernel(&k, lib_, symbol.c_str());
  if (r == CUDA_ERROR_NOT_FOUND) {
    throw CudaError(detail::str("the compiled module has no kernel named '", name,
                                "': declare it extern \"C\" __global__, or pass its C++ name in "
                                "name_expressions (e.g. name_expressions=['",
                                name, "<float>']) and ask for that expression"),
                    static_cast<int>(r), "CUDA_ERROR_NOT_FOUND");
  }
  EMBER_CU_CHECK(r);
  auto& slot = kernels_[name];
  slot = std::make_unique<Kernel>(k, name);
  return *slot;
}

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
