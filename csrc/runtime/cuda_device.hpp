// Working with CUDA devices: the current device (per thread, as in the CUDA
// runtime), a guard that switches and restores it, properties, free memory and
// device-wide synchronisation.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "runtime/device.hpp"

namespace ember::cuda {

// Throws CudaError (a RuntimeError) that says how many devices there are when
// `index` is not a valid ordinal. Initialises CUDA lazily.
void check_device_index(int index);

int current_device();
void set_device(int index);
// Makes `index` current and returns the previous device; -1 leaves it alone
// and returns -1. Never creates a context when the device is already current.
int exchange_device(int index);

// The CUDA ordinal a Device names (the current device when it has no index).
// Throws ValueError for a non-CUDA device.
int device_index(const Device& d);

// Switches to a device for a scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

struct DeviceProperties {
  int index = 0;
  std::string name;
  int major = 0;
  int minor = 0;
  size_t total_memory = 0;
  int multi_processor_count = 0;
  int L2_cache_size = 0;
  int warp_size = 0;
  std::string uuid;
  int max_threads_per_multi_processor = 0;
  int max_threads_per_block = 0;
  size_t shared_memory_per_block = 0;
  size_t shared_memory_per_block_optin = 0;
  size_t shared_memory_per_multiprocessor = 0;
  int regs_per_multiprocessor = 0;
  int memory_bus_width = 0;
  bool is_integrated = false;
  bool is_multi_gpu_board = false;
  int pci_bus_id = 0;
  int pci_device_id = 0;
  int pci_domain_id = 0;
  std::string repr() const;
};

// Cached after the first call for each device.
const DeviceProperties& get_device_properties(int index);
// (free, total) bytes on the device, as the driver sees them.
std::pair<size_t, size_t> mem_get_info(int index);
// Waits for all work on the device (-1: the current one). Call without the GIL.
void synchronize(int index);

}  // namespace ember::cuda
