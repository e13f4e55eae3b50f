// The CUDA implementations of the allocators' backings: cudaMalloc/cudaFree,
// cudaHostAlloc/cudaFreeHost, and events without timing for stream ordering.
#pragma once

#include <memory>

#include "memory/backing.hpp"

namespace ember::memory {

// Throw ember::Error in a build without CUDA.
std::unique_ptr<DeviceBacking> make_cuda_device_backing(int device);
std::unique_ptr<HostBacking> make_cuda_host_backing();

}  // namespace ember::memory
