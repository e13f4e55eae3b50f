#include "runtime/cuda_device.hpp"

#include "runtime/device_error.hpp"

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::cuda {

void check_device_index(int index) {
  lazy_init();
  const int n = device_count();
  if (index < 0 || index >= n) {
    throw CudaError(detail::str("Invalid device ordinal ", index, ": ember sees ", n,
                                " CUDA device", n == 1 ? "" : "s", " (valid: ",
                                n == 1 ? "cuda:0" : detail::str("cuda:0 to cuda:", n - 1),
                                "). Check ember.cuda.device_count() and CUDA_VISIBLE_DEVICES."),
                    101, "cudaErrorInvalidDevice");
  }
}

#if EMBER_WITH_CUDA

int current_device() {
  lazy_init();
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

void set_device(int index) {
  check_device_index(index);
  int cur = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&cur));
  if (cur != index) EMBER_CUDA_CHECK(cudaSetDevice(index));
}

int exchange_device(int index) {
  if (index < 0) return -1;
  check_device_index(index);
  int cur = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&cur));
  if (cur != index) EMBER_CUDA_CHECK(cudaSetDevice(index));
  return cur;
}

DeviceGuard::DeviceGuard(int index) { prev_ = exchange_device(index); }

DeviceGuard::~DeviceGuard() {
  if (prev_ < 0) return;
  int cur = 0;
  if (cudaGetDevice(&cur) == cudaSuccess && cur != prev_) EMBER_CUDA_WARN(cudaSetDevice(prev_));
}

namespace {

std::string format_uuid(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char out[48];
  std::snprintf(out, sizeof(out),
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return out;
}

DeviceProperties query_properties(int index) {
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceProperties d;
  d.index = index;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.total_memory = p.totalGlobalMem;
  d.multi_processor_count = p.multiProcessorCount;
  d.L2_cache_size = p.l2CacheSize;
  d.warp_size = p.warpSize;
  d.uuid = format_uuid(p.uuid);
  d.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.shared_memory_per_block = p.sharedMemPerBlock;
  d.shared_memory_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_memory_per_multiprocessor = p.sharedMemPerMultiprocessor;
  d.regs_per_multiprocessor = p.regsPerMultiprocessor;
  d.memory_bus_width = p.memoryBusWidth;
  d.is_integrated = p.integrated != 0;
  d.is_multi_gpu_board = p.isMultiGpuBoard != 0;
  d.pci_bus_id = p.pciBusID;
  d.pci_device_id = p.pciDeviceID;
  d.pci_domain_id = p.pciDomainID;
  return d;
}

}  // namespace

const DeviceProperties& get_device_properties(int index) {
  check_device_index(index);
  static std::mutex mu;
  static std::vector<std::unique_ptr<DeviceProperties>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() <= static_cast<size_t>(index)) cache.resize(index + 1);
  if (!cache[index]) cache[index] = std::make_unique<DeviceProperties>(query_properties(index));
  return *cache[index];
}

std::pair<size_t, size_t> mem_get_info(int index) {
  DeviceGuard guard(index);
  size_t free_b = 0, total_b = 0;
  EMBER_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return {free_b, total_b};
}

void synchronize(int index) {
  lazy_init();
  int cur = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&cur));
  if (index < 0 || index == cur) {
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    check_index_errors(cur);  // bad indices of finished kernels (runtime/device_error.hpp)
    return;
  }
  {
    DeviceGuard guard(index);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  check_index_errors(index);
}

#else  // CPU-only build: every call explains that there is no CUDA.

int current_device() { lazy_init(); return 0; }
void set_device(int index) { check_device_index(index); }
int exchange_device(int index) {
  if (index < 0) return -1;
  check_device_index(index);
  return 0;
}
DeviceGuard::DeviceGuard(int index) { prev_ = exchange_device(index); }
DeviceGuard::~DeviceGuard() = default;
const DeviceProperties& get_device_properties(int index) {
  check_device_index(index);
  throw Error("unreachable");
}
std::pair<size_t, size_t> mem_get_info(int index) {
  check_device_index(index);
  return {0, 0};
}
void synchronize(int index) { check_device_index(index < 0 ? 0 : index); }

#endif

int device_index(const Device& d) {
  if (!d.is_cuda()) {
    throw ValueError(detail::str("Expected a cuda device, but got: ", d.str()));
  }
  return d.has_index() ? d.index : current_device();
}

std::string DeviceProperties::repr() const {
  return detail::str("_CudaDeviceProperties(name='", name, "', major=", major, ", minor=", minor,
                     ", total_memory=", total_memory / (1024 * 1024),
                     "MB, multi_processor_count=", multi_processor_count, ", uuid=", uuid,
                     ", pci_bus_id=", pci_bus_id, ", pci_device_id=", pci_device_id,
                     ", pci_domain_id=", pci_domain_id, ", L2_cache_size=",
                     L2_cache_size / (1024 * 1024), "MB)");
}

}  // namespace ember::cuda
