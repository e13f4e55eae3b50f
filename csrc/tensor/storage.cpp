#include "tensor/storage.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "memory/allocators.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember {

namespace {

constexpr size_t kHostAlignment = 64;
// Large host buffers are aligned to 2 MiB and offered transparent huge pages:
// a fresh 256 MiB buffer then takes 128 page faults instead of 65536.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(8) << 20;

void free_host(void* ctx) { std::free(ctx); }

#if EMBER_WITH_CUDA
// Deleters never throw: a block the allocators do not know is reported, not raised.
void free_device(void* ctx) noexcept {
  try {
    memory::raw_delete(ctx);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember warning: freeing device memory failed: %s\n", e.what());
  }
}

void free_pinned(void* ctx) noexcept {
  try {
    if (!memory::host_allocator().try_free(ctx)) {
      std::fprintf(stderr, "ember warning: %p is not a pinned block of ember's\n", ctx);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember warning: freeing pinned memory failed: %s\n", e.what());
  }
}
#endif

}  // namespace

DataPtr alloc_host(size_t nbytes) {
  if (nbytes == 0) return DataPtr{};
  const size_t align = nbytes >= kHugeThreshold ? kHugePage : kHostAlignment;
  void* p = nullptr;
  const int rc = posix_memalign(&p, align, nbytes);
  if (rc != 0 || p == nullptr) {
    throw Error(detail::str("can't allocate memory: you tried to allocate ", nbytes,
                            " bytes of host memory (", std::strerror(rc == 0 ? ENOMEM : rc),
                            "). Free some tensors or use smaller sizes."));
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage) (void)madvise(p, nbytes, MADV_HUGEPAGE);
#endif
  return DataPtr{p, p, &free_host};
}

// Device memory comes from the caching allocator of `device`, ordered on `stream`.
DataPtr alloc_device(int device, size_t nbytes, cuda::StreamView stream) {
  cuda::check_device_index(device);
  if (nbytes == 0) return DataPtr{};
#if EMBER_WITH_CUDA
  void* p = memory::raw_alloc(nbytes, device, stream);
  return DataPtr{p, p, &free_device};
#else
  return DataPtr{};  // unreachable: check_device_index throws without CUDA
#endif
}

// Pinned memory comes from the caching host allocator.
DataPtr alloc_pinned(size_t nbytes) {
  cuda::lazy_init();
  if (nbytes == 0) return DataPtr{};
#if EMBER_WITH_CUDA
  void* p = memory::host_allocator().allocate(nbytes);
  return DataPtr{p, p, &free_pinned};
#else
  throw Error(
      "Pinned memory needs CUDA, but ember was built without CUDA support. Leave "
      "pin_memory=False, or reinstall ember on a machine with the CUDA toolkit.");
#endif
}

StorageImpl::StorageImpl(DataPtr data, size_t nbytes, Device device, MemoryKind kind, bool pinned)
    : data_(data), nbytes_(nbytes), device_(device), kind_(kind), pinned_(pinned) {}

StorageImpl::~StorageImpl() {
  if (data_.deleter) data_.deleter(data_.ctx);
}

void StorageImpl::record_stream(cuda::StreamView stream) {
  if (data_.ptr == nullptr) return;
#if EMBER_WITH_CUDA
  // The block is not handed out again before the work queued on `stream` so
  // far has finished (events; the host never waits).
  if (kind_ == MemoryKind::Device) {
    memory::record_stream(data_.ptr, stream.handle(), stream.device());
  } else if (kind_ == MemoryKind::Pinned) {
    memory::host_allocator().try_record_stream(data_.ptr, stream);
  }
#else
  (void)stream;
#endif
}

namespace {

// Releases `d` if the storage cannot be made (std::bad_alloc).
Storage make_storage(DataPtr d, size_t nbytes, Device device, MemoryKind kind, bool pinned) {
  try {
    return std::make_shared<StorageImpl>(d, nbytes, device, kind, pinned);
  } catch (...) {
    if (d.deleter) d.deleter(d.ctx);
    throw;
  }
}

}  // namespace

Storage new_cpu_storage(size_t nbytes, bool pinned) {
  if (pinned) {
    return make_storage(alloc_pinned(nbytes), nbytes, Device(DeviceType::CPU), MemoryKind::Pinned,
                        true);
  }
  return make_storage(alloc_host(nbytes), nbytes, Device(DeviceType::CPU), MemoryKind::Host, false);
}

Storage new_cuda_storage(int device, size_t nbytes) {
  return make_storage(alloc_device(device, nbytes, cuda::current_stream(device)), nbytes,
                      Device(DeviceType::CUDA, device), MemoryKind::Device, false);
}

Storage wrap_storage(void* ptr, size_t nbytes, Device device, DataPtr owner, bool pinned) {
  owner.ptr = ptr;
  return make_storage(owner, nbytes, device, MemoryKind::Foreign, pinned);
}

}  // namespace ember
