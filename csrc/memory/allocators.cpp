#include "memory/allocators.hpp"

#include <atomic>
#include <mutex>

#include "memory/allocator_config.hpp"
#include "memory/cuda_backing.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::memory {

namespace {

std::atomic<CachingAllocator*> g_device[cuda::kMaxDevices] = {};
std::atomic<int> g_slots{0};  // 1 + the highest device with an allocator
std::atomic<HostCachingAllocator*> g_host{nullptr};
std::mutex g_create;

[[noreturn]] void unknown_pointer(const void* ptr, const char* what) {
  throw ValueError(detail::str(what, ": pointer ", ptr,
                               " was not allocated by ember's caching allocator (or was already "
                               "freed). Pass the int that caching_allocator_alloc returned."));
}

}  // namespace

CachingAllocator* existing_device_allocator(int device) noexcept {
  if (device < 0 || device >= cuda::kMaxDevices) return nullptr;
  return g_device[device].load(std::memory_order_acquire);
}

CachingAllocator& device_allocator(int device) {
  if (CachingAllocator* a = existing_device_allocator(device)) return *a;
  EMBER_CHECK(device < cuda::kMaxDevices, "ember supports at most ", cuda::kMaxDevices,
              " devices");
  const AllocatorConfig& config = process_alloc_conf();
  cuda::check_device_index(device);
  std::lock_guard<std::mutex> lock(g_create);
  CachingAllocator* a = g_device[device].load(std::memory_order_acquire);
  if (a == nullptr) {
    a = new CachingAllocator(make_cuda_device_backing(device), config);
    g_device[device].store(a, std::memory_order_release);
    if (g_slots.load() < device + 1) g_slots.store(device + 1);
  }
  return *a;
}

void* raw_alloc(size_t size, int device, Stream stream) {
  return device_allocator(device).allocate(size, stream);
}

void raw_delete(void* ptr) {
  if (ptr == nullptr) return;
  const int n = g_slots.load(std::memory_order_acquire);
  for (int d = 0; d < n; ++d) {
    CachingAllocator* a = existing_device_allocator(d);
    if (a != nullptr && a->try_deallocate(ptr)) return;
  }
  unknown_pointer(ptr, "caching_allocator_delete");
}

void record_stream(void* ptr, cuda::StreamHandle handle, int device) {
  const int n = g_slots.load(std::memory_order_acquire);
  for (int d = 0; d < n; ++d) {
    CachingAllocator* a = existing_device_allocator(d);
    if (a != nullptr && a->try_record_stream(ptr, Stream(handle, device < 0 ? d : device))) return;
  }
  unknown_pointer(ptr, "record_stream");
}

void empty_cache() {
  const int n = g_slots.load(std::memory_order_acquire);
  for (int d = 0; d < n; ++d) {
    if (CachingAllocator* a = existing_device_allocator(d)) a->empty_cache();
  }
  if (HostCachingAllocator* h = existing_host_allocator()) h->empty_cache();
}

HostCachingAllocator* existing_host_allocator() noexcept {
  return g_host.load(std::memory_order_acquire);
}

HostCachingAllocator& host_allocator() {
  if (HostCachingAllocator* h = existing_host_allocator()) return *h;
  cuda::lazy_init();
  std::lock_guard<std::mutex> lock(g_create);
  HostCachingAllocator* h = g_host.load(std::memory_order_acquire);
  if (h == nullptr) {
    h = new HostCachingAllocator(make_cuda_host_backing());
    g_host.store(h, std::memory_order_release);
  }
  return *h;
}

}  // namespace ember::memory
