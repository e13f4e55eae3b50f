// What the caching allocators need from the machine below them, as two small
// interfaces. The CUDA implementations (cuda_backing.cpp) call cudaMalloc,
// cudaHostAlloc and CUDA events; the simulated ones (sim_backing.cpp) hand out
// fake addresses and let a test decide when events complete. All of the
// allocators' bookkeeping -- rounding, pools, splitting, merging, stream
// ordering, statistics, the out-of-memory path -- is written against these
// interfaces, so it runs and is tested on a machine without a GPU.
#pragma once

#include <cstddef>
#include <utility>

#include "runtime/stream.hpp"

namespace ember::memory {

using Stream = cuda::StreamView;
// An opaque event handle (a cudaEvent_t under CUDA).
using Event = void*;

enum class MallocStatus { kOk, kOutOfMemory };

// Device memory, events and stream ordering of one device. Calls come with the
// allocator's lock held; implementations need no locking of their own unless
// a test drives them from another thread.
class DeviceBacking {
 public:
  virtual ~DeviceBacking() = default;

  virtual int device() const = 0;
  // Reserves `size` bytes. kOutOfMemory when the device cannot; any other
  // failure throws.
  virtual MallocStatus malloc(void** ptr, size_t size) = 0;
  virtual void free(void* ptr) = 0;
  // (free, total) bytes of the device.
  virtual std::pair<size_t, size_t> mem_get_info() = 0;

  // Events are created on `device` (the device of the stream they will be
  // recorded on) and never carry timing.
  virtual Event create_event(int device) = 0;
  virtual void destroy_event(Event event) noexcept = 0;
  virtual void record_event(Event event, Stream stream) = 0;
  // True when the work the event captured has finished. Never blocks.
  virtual bool query_event(Event event) = 0;
  // Blocks the host until the event completes (only on the release paths).
  virtual void synchronize_event(Event event) = 0;
  // Orders all later work on `stream` after the event, on the GPU.
  virtual void stream_wait_event(Stream stream, Event event) = 0;
};

// Page-locked host memory and the events that gate its reuse.
class HostBacking {
 public:
  virtual ~HostBacking() = default;

  // nullptr when the memory cannot be had; any other failure throws.
  virtual void* alloc(size_t size) = 0;
  virtual void free(void* ptr) = 0;

  virtual Event create_event(int device) = 0;
  virtual void destroy_event(Event event) noexcept = 0;
  virtual void record_event(Event event, Stream stream) = 0;
  virtual bool query_event(Event event) = 0;
};

}  // namespace ember::memory
