#include "runtime/stream.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "runtime/cuda_device.hpp"
#include "runtime/device_error.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::cuda {

namespace {
// nullptr = the default stream. Per thread, so one thread's choice never leaks
// into another.
thread_local StreamHandle tls_current[kMaxDevices] = {};
}  // namespace

StreamView current_stream(int device) {
  if (device < 0) device = current_device();
  EMBER_CHECK(device < kMaxDevices, "ember supports at most ", kMaxDevices, " devices");
  return StreamView(tls_current[device], device);
}

void set_current_stream(StreamView s) {
  EMBER_CHECK(s.device() >= 0 && s.device() < kMaxDevices, "invalid stream device ", s.device());
  tls_current[s.device()] = s.handle();
}

StreamView default_stream(int device) {
  if (device < 0) device = current_device();
  return StreamView(nullptr, device);
}

#if EMBER_WITH_CUDA

namespace {

int resolve_device(int device) {
  if (device < 0) return current_device();
  check_device_index(device);
  EMBER_CHECK(device < kMaxDevices, "ember supports at most ", kMaxDevices, " devices");
  return device;
}

// The free CUDA streams of one device, one list per priority level.
struct DevicePool {
  std::mutex mu;
  bool have_range = false;
  int least = 0;     // lowest priority (the largest number)
  int greatest = 0;  // highest priority (the smallest number)
  std::vector<std::vector<StreamHandle>> free;  // [priority - greatest]
  int created = 0;
};

// Never destroyed: a Stream released during interpreter shutdown must still
// find its pool.
DevicePool& pool(int device) {
  static DevicePool* pools = new DevicePool[kMaxDevices];
  return pools[device];
}

// Call with p.mu held.
void ensure_range(DevicePool& p, int device) {
  if (p.have_range) return;
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&p.least, &p.greatest));
  p.free.resize(static_cast<size_t>(p.least - p.greatest) + 1);
  p.have_range = true;
}

int clamp_locked(const DevicePool& p, long long priority) {
  return static_cast<int>(std::clamp<long long>(priority, p.greatest, p.least));
}

}  // namespace

std::pair<int, int> priority_range(int device) {
  device = resolve_device(device);
  DevicePool& p = pool(device);
  std::lock_guard<std::mutex> lock(p.mu);
  ensure_range(p, device);
  return {p.least, p.greatest};
}

int clamp_priority(long long priority, int device) {
  device = resolve_device(device);
  DevicePool& p = pool(device);
  std::lock_guard<std::mutex> lock(p.mu);
  ensure_range(p, device);
  return clamp_locked(p, priority);
}

bool stream_query(StreamView s) {
  DeviceGuard guard(s.device());
  const cudaError_t err = cudaStreamQuery(s.handle());
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();  // not an error: clear it
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return false;
}

void stream_synchronize(StreamView s) {
  {
    DeviceGuard guard(s.device());
    EMBER_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  }
  check_index_errors(s.device());  // runtime/device_error.hpp
}

int stream_priority(StreamView s) {
  DeviceGuard guard(s.device());
  int priority = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(s.handle(), &priority));
  return priority;
}

int stream_device(StreamHandle h) {
  if (is_special_handle(h)) return -1;
  lazy_init();
  int device = -1;
  const cudaError_t err = cudaStreamGetDevice(h, &device);
  if (err == cudaErrorCallRequiresNewerDriver || err == cudaErrorNotSupported) {
    (void)cudaGetLastError();  // a driver older than CUDA 12.8: the caller decides
    return -1;
  }
  EMBER_CUDA_CHECK(err);
  return device;
}

Stream::Stream(int device, long long priority) {
  device = resolve_device(device);
  DevicePool& p = pool(device);
  std::lock_guard<std::mutex> lock(p.mu);
  ensure_range(p, device);
  const int prio = clamp_locked(p, priority);
  auto& free = p.free[prio - p.greatest];
  StreamHandle h = nullptr;
  if (!free.empty()) {
    h = free.back();
    free.pop_back();
  } else {
    DeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&h, cudaStreamNonBlocking, prio));
    ++p.created;
  }
  view_ = StreamView(h, device);
  priority_ = prio;
  owns_ = true;
}

void Stream::release() noexcept {
  if (!owns_) return;
  owns_ = false;
  if (in_bad_fork()) return;  // a forked child cannot use the parent's streams (or locks)
  DevicePool& p = pool(view_.device());
  std::lock_guard<std::mutex> lock(p.mu);
  try {
    p.free[priority_ - p.greatest].push_back(view_.handle());
  } catch (...) {
    // Out of host memory: keep the stream alive but out of the pool.
  }
}

std::pair<int, int> stream_pool_stats(int device) {
  device = resolve_device(device);
  DevicePool& p = pool(device);
  std::lock_guard<std::mutex> lock(p.mu);
  int free = 0;
  for (const auto& level : p.free) free += static_cast<int>(level.size());
  return {p.created, free};
}

#else  // CPU-only build: lazy_init() explains that there is no CUDA.

std::pair<int, int> priority_range(int device) {
  lazy_init();
  return {0, 0};
}
int clamp_priority(long long priority, int device) {
  lazy_init();
  return 0;
}
bool stream_query(StreamView s) {
  lazy_init();
  return true;
}
void stream_synchronize(StreamView s) { lazy_init(); }
int stream_priority(StreamView s) {
  lazy_init();
  return 0;
}
int stream_device(StreamHandle h) {
  lazy_init();
  return -1;
}
Stream::Stream(int device, long long priority) { lazy_init(); }
void Stream::release() noexcept { owns_ = false; }
std::pair<int, int> stream_pool_stats(int device) {
  lazy_init();
  return {0, 0};
}

#endif

Stream::~Stream() { release(); }

Stream::Stream(Stream&& o) noexcept : view_(o.view_), priority_(o.priority_), owns_(o.owns_) {
  o.owns_ = false;
}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    release();
    view_ = o.view_;
    priority_ = o.priority_;
    owns_ = o.owns_;
    o.owns_ = false;
  }
  return *this;
}

}  // namespace ember::cuda
