// Storage: the reference-counted owner of one block of memory that tensors
// view. It knows the pointer, the size in bytes, the device, whether the host
// memory is pinned, and how to give the memory back (a deleter with a context,
// so foreign memory -- a NumPy array, a DLPack capsule -- is released by its
// owner's rule).
//
// Every allocation of device and pinned memory goes through two functions in
// storage.cpp (alloc_device, alloc_pinned); at the memory issue's merge they
// call the caching allocators instead of cudaMalloc/cudaHostAlloc, and
// StorageImpl::record_stream calls the allocator's record_stream.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/device.hpp"
#include "runtime/stream.hpp"

namespace ember {

// A pointer and how to release it: deleter(ctx) runs exactly once, when the
// last owner goes away. A null deleter means nothing to release.
struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;
  void (*deleter)(void* ctx) = nullptr;
};

enum class MemoryKind : uint8_t {
  Host,     // ember's 64-byte aligned pageable host memory
  Pinned,   // ember's page-locked host memory
  Device,   // ember's device memory (the caching allocator's, after the merge)
  Foreign,  // memory owned by someone else (NumPy, DLPack, __cuda_array_interface__)
};

class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes, Device device, MemoryKind kind, bool pinned = false);
  ~StorageImpl();
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const noexcept { return data_.ptr; }
  size_t nbytes() const noexcept { return nbytes_; }
  // For CUDA storage the index is always set.
  const Device& device() const noexcept { return device_; }
  MemoryKind kind() const noexcept { return kind_; }
  bool is_pinned() const noexcept { return pinned_; }

  // Tells the allocator that work queued on `stream` uses this memory, so it
  // is not reused before that work finishes when the storage dies (torch's
  // Tensor.record_stream; ember also calls it for pinned host memory that a
  // non_blocking copy reads or writes). A no-op for foreign memory and, until
  // the caching allocators are plugged in, for cudaMalloc'd/cudaHostAlloc'd
  // memory (cudaFree and cudaFreeHost wait for the device anyway).
  void record_stream(cuda::StreamView stream);

  // Autograd's version counter, shared by every view of the storage: bumped by
  // each in-place write from Python (in-place ops, copy_, fill_, __setitem__,
  // optimiser steps), checked when a tensor saved for backward is used.
  uint32_t version() const noexcept { return version_.load(std::memory_order_relaxed); }
  void bump_version() noexcept { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> version_{0};
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  MemoryKind kind_;
  bool pinned_;
};

using Storage = std::shared_ptr<StorageImpl>;

// New storage of `nbytes` (0 is allowed and allocates nothing).
// Host memory is 64-byte aligned; pinned host memory is page-locked.
Storage new_cpu_storage(size_t nbytes, bool pinned = false);
// Device memory of `device` (>= 0), allocated on its current stream.
Storage new_cuda_storage(int device, size_t nbytes);
// Wraps memory owned elsewhere; `owner.deleter(owner.ctx)` runs when the
// storage dies. `device` must carry its index for CUDA memory.
Storage wrap_storage(void* ptr, size_t nbytes, Device device, DataPtr owner, bool pinned = false);

// The raw allocation functions (storage.cpp), for scratch buffers outside tensors.
DataPtr alloc_device(int device, size_t nbytes, cuda::StreamView stream);
DataPtr alloc_pinned(size_t nbytes);
DataPtr alloc_host(size_t nbytes);

// Owns a DataPtr for a scope (a scratch buffer).
class UniqueDataPtr {
 public:
  UniqueDataPtr() = default;
  explicit UniqueDataPtr(DataPtr d) : d_(d) {}
  ~UniqueDataPtr() { reset(); }
  UniqueDataPtr(UniqueDataPtr&& o) noexcept : d_(o.d_) { o.d_ = DataPtr{}; }
  UniqueDataPtr& operator=(UniqueDataPtr&& o) noexcept {
    if (this != &o) {
      reset();
      d_ = o.d_;
      o.d_ = DataPtr{};
    }
    return *this;
  }
  void* get() const noexcept { return d_.ptr; }
  void reset() noexcept {
    if (d_.deleter) d_.deleter(d_.ctx);
    d_ = DataPtr{};
  }

 private:
  DataPtr d_;
};

}  // namespace ember
