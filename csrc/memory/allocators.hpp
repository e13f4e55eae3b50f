// The process-wide allocators: one caching allocator per device, created on
// its first allocation, and one pinned host allocator. They are never
// destroyed (memory is returned at exit by the driver, after the CUDA runtime
// may already be gone).
#pragma once

#include <cstddef>

#include "memory/backing.hpp"
#include "memory/caching_allocator.hpp"
#include "memory/host_allocator.hpp"

namespace ember::memory {

// The caching allocator of `device` (>= 0). The first call initialises CUDA
// and reads EMBER_CUDA_ALLOC_CONF (ValueError when invalid).
CachingAllocator& device_allocator(int device);
// nullptr while `device` has not allocated. One atomic load.
CachingAllocator* existing_device_allocator(int device) noexcept;

// Allocates on `stream` of `device`; nullptr for 0 bytes.
void* raw_alloc(size_t size, int device, Stream stream);
// Frees memory from raw_alloc (nullptr: no-op). ValueError for any other pointer.
void raw_delete(void* ptr);
// The allocation at `ptr` is used by work on the stream `handle` of `device`
// (see CachingAllocator); device < 0: the allocation's device.
void record_stream(void* ptr, cuda::StreamHandle handle, int device);

// Returns the unused cached memory of every device, and of the pinned host
// allocator, to the driver.
void empty_cache();

HostCachingAllocator& host_allocator();
HostCachingAllocator* existing_host_allocator() noexcept;

}  // namespace ember::memory
