#include "memory/cuda_backing.hpp"

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::memory {

#if EMBER_WITH_CUDA

namespace {

cudaEvent_t ev(Event e) { return static_cast<cudaEvent_t>(e); }

Event create_event_on(int device) {
  cuda::DeviceGuard guard(device);
  cudaEvent_t e = nullptr;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}

void record_on(Event e, Stream s) {
  cuda::DeviceGuard guard(s.device());  // the legacy default stream is per device
  EMBER_CUDA_CHECK(cudaEventRecord(ev(e), s.handle()));
}

bool query(Event e) {
  const cudaError_t err = cudaEventQuery(ev(e));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return false;
}

class CudaDeviceBacking final : public DeviceBacking {
 public:
  explicit CudaDeviceBacking(int device) : device_(device) {}

  int device() const override { return device_; }

  MallocStatus malloc(void** ptr, size_t size) override {
    cuda::DeviceGuard guard(device_);
    const cudaError_t err = cudaMalloc(ptr, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it for the next call
      *ptr = nullptr;
      return MallocStatus::kOutOfMemory;
    }
    EMBER_CUDA_CHECK(err);
    return MallocStatus::kOk;
  }

  void free(void* ptr) override {
    cuda::DeviceGuard guard(device_);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }

  std::pair<size_t, size_t> mem_get_info() override { return cuda::mem_get_info(device_); }

  Event create_event(int device) override { return create_event_on(device); }
  void destroy_event(Event e) noexcept override { EMBER_CUDA_WARN(cudaEventDestroy(ev(e))); }
  void record_event(Event e, Stream s) override { record_on(e, s); }
  bool query_event(Event e) override { return query(e); }
  void synchronize_event(Event e) override { EMBER_CUDA_CHECK(cudaEventSynchronize(ev(e))); }
  void stream_wait_event(Stream s, Event e) override {
    cuda::DeviceGuard guard(s.device());
    EMBER_CUDA_CHECK(cudaStreamWaitEvent(s.handle(), ev(e), 0));
  }

 private:
  const int device_;
};

class CudaHostBacking final : public HostBacking {
 public:
  void* alloc(size_t size) override {
    void* p = nullptr;
    // Portable: usable by copies on every device, whichever is current.
    const cudaError_t err = cudaHostAlloc(&p, size, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(err);
    return p;
  }
  void free(void* ptr) override { EMBER_CUDA_CHECK(cudaFreeHost(ptr)); }
  Event create_event(int device) override { return create_event_on(device); }
  void destroy_event(Event e) noexcept override { EMBER_CUDA_WARN(cudaEventDestroy(ev(e))); }
  void record_event(Event e, Stream s) override { record_on(e, s); }
  bool query_event(Event e) override { return query(e); }
};

}  // namespace

std::unique_ptr<DeviceBacking> make_cuda_device_backing(int device) {
  return std::make_unique<CudaDeviceBacking>(device);
}

std::unique_ptr<HostBacking> make_cuda_host_backing() {
  return std::make_unique<CudaHostBacking>();
}

#else

std::unique_ptr<DeviceBacking> make_cuda_device_backing(int) {
  throw Error("ember was built without CUDA: there is no GPU memory to allocate. Install a CUDA "
              "build of ember to use ember.cuda's memory functions.");
}

std::unique_ptr<HostBacking> make_cuda_host_backing() {
  throw Error("ember was built without CUDA: pinned host memory needs a CUDA build of ember.");
}

#endif

}  // namespace ember::memory
