#include "runtime/event.hpp"

#include <cstring>
#include <mutex>
#include <vector>

#include "runtime/cuda_device.hpp"
#include "runtime/device_error.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::cuda {

Event::Event(bool enable_timing, bool blocking, bool interprocess)
    : timing_(enable_timing), blocking_(blocking), interprocess_(interprocess) {
  EMBER_CHECK_VALUE(!(enable_timing && interprocess),
                    "An Event cannot be both interprocess and timed: CUDA only shares events "
                    "created with timing disabled. Use Event(interprocess=True) without "
                    "enable_timing=True, and a separate timed Event to measure time.");
  lazy_init();
}

Event::~Event() { destroy(); }

Event::Event(Event&& o) noexcept
    : event_(o.event_),
      device_(o.device_),
      timing_(o.timing_),
      blocking_(o.blocking_),
      interprocess_(o.interprocess_),
      recorded_(o.recorded_) {
  o.event_ = nullptr;
  o.device_ = -1;
  o.recorded_ = false;
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    destroy();
    event_ = o.event_;
    device_ = o.device_;
    timing_ = o.timing_;
    blocking_ = o.blocking_;
    interprocess_ = o.interprocess_;
    recorded_ = o.recorded_;
    o.event_ = nullptr;
    o.device_ = -1;
    o.recorded_ = false;
  }
  return *this;
}

#if EMBER_WITH_CUDA

namespace {

// Scratch events for wait_stream(), per device. Never destroyed (see
// stream.cpp's pool): the driver frees them at exit.
struct ScratchEvents {
  std::mutex mu;
  std::vector<cudaEvent_t> free;
};

ScratchEvents& scratch(int device) {
  static ScratchEvents* all = new ScratchEvents[kMaxDevices];
  return all[device];
}

// Takes a scratch event of `device` for a scope and gives it back.
class ScratchEvent {
 public:
  explicit ScratchEvent(int device) : pool_(scratch(device)) {
    {
      std::lock_guard<std::mutex> lock(pool_.mu);
      if (!pool_.free.empty()) {
        event_ = pool_.free.back();
        pool_.free.pop_back();
        return;
      }
    }
    DeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
  }
  ~ScratchEvent() {
    std::lock_guard<std::mutex> lock(pool_.mu);
    try {
      pool_.free.push_back(event_);
    } catch (...) {
      EMBER_CUDA_WARN(cudaEventDestroy(event_));
    }
  }
  ScratchEvent(const ScratchEvent&) = delete;
  ScratchEvent& operator=(const ScratchEvent&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  ScratchEvents& pool_;
  cudaEvent_t event_ = nullptr;
};

}  // namespace

Event Event::from_ipc_handle(int device, const std::string& handle) {
  EMBER_CHECK_VALUE(handle.size() == kIpcEventHandleSize,
                    "An interprocess event handle is ", kIpcEventHandleSize,
                    " bytes (what Event.ipc_handle() returns), got ", handle.size(), " bytes");
  device = device < 0 ? current_device() : device;
  check_device_index(device);
  cudaIpcEventHandle_t h;
  std::memcpy(h.reserved, handle.data(), kIpcEventHandleSize);
  DeviceGuard guard(device);
  cudaEvent_t opened = nullptr;
  EMBER_CUDA_CHECK(cudaIpcOpenEventHandle(&opened, h));
  Event e(false, false, true);
  e.event_ = opened;
  e.device_ = device;
  e.recorded_ = true;  // the exporting process records it
  return e;
}

void Event::create(int device) {
  DeviceGuard guard(device);
  unsigned flags = timing_ ? cudaEventDefault : cudaEventDisableTiming;
  if (blocking_) flags |= cudaEventBlockingSync;
  if (interprocess_) flags |= cudaEventInterprocess | cudaEventDisableTiming;
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  device_ = device;
}

void Event::destroy() noexcept {
  if (event_ == nullptr) return;
  // A forked child cannot use the parent's events: forget them quietly.
  if (!in_bad_fork()) EMBER_CUDA_WARN(cudaEventDestroy(event_));
  event_ = nullptr;
}

void Event::record(StreamView s) {
  if (event_ == nullptr) {
    create(s.device());
  } else if (s.device() != device_) {
    throw Error(detail::str(
        "Event device cuda:", device_, " does not match the recording stream's device cuda:",
        s.device(), ". An event is recorded only on streams of the device it was first recorded "
        "on (streams of any device may wait on it): create another Event for cuda:",
        s.device(), "."));
  }
  DeviceGuard guard(s.device());
  EMBER_CUDA_CHECK(cudaEventRecord(event_, s.handle()));
  recorded_ = true;
}

void Event::wait(StreamView s) const {
  if (event_ == nullptr) return;
  DeviceGuard guard(s.device());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(s.handle(), event_, 0));
}

bool Event::query() const {
  if (event_ == nullptr) return true;
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();  // not an error: clear it
    return false;
  }
  EMBER_CUDA_CHECK(err);
  return false;
}

void Event::synchronize() const {
  if (event_ == nullptr) return;
  EMBER_CUDA_CHECK(cudaEventSynchronize(event_));
  check_index_errors(device_);  // runtime/device_error.hpp
}

float Event::elapsed_time(const Event& end) const {
  EMBER_CHECK(timing_ && end.timing_,
              "elapsed_time() needs two events created with enable_timing=True, but the ",
              !timing_ ? "start" : "end",
              " event was created without it: use ember.cuda.Event(enable_timing=True).");
  EMBER_CHECK(recorded_ && end.recorded_,
              "Both events must be recorded before calculating elapsed time: record both events "
              "first (start.record(), then end.record()); the ",
              !recorded_ ? "start" : "end", " event was never recorded.");
  EMBER_CHECK(device_ == end.device_, "elapsed_time() needs two events of one device, got cuda:",
              device_, " and cuda:", end.device_, ".");
  DeviceGuard guard(device_);
  float ms = 0;
  const cudaError_t err = cudaEventElapsedTime(&ms, event_, end.event_);
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    throw Error(
        "elapsed_time(): the events have not completed yet: call end_event.synchronize() (or "
        "ember.cuda.synchronize()) before asking for the elapsed time.");
  }
  EMBER_CUDA_CHECK(err);
  return ms;
}

std::string Event::ipc_handle() {
  EMBER_CHECK(interprocess_,
              "ipc_handle() needs an Event created with interprocess=True: "
              "ember.cuda.Event(interprocess=True).");
  if (event_ == nullptr) create(current_device());
  cudaIpcEventHandle_t h;
  EMBER_CUDA_CHECK(cudaIpcGetEventHandle(&h, event_));
  return std::string(h.reserved, kIpcEventHandleSize);
}

void wait_stream(StreamView waiter, StreamView waitee) {
  if (waiter == waitee) return;
  EMBER_CHECK(waitee.device() >= 0 && waitee.device() < kMaxDevices, "invalid stream device ",
              waitee.device());
  ScratchEvent ev(waitee.device());
  {
    DeviceGuard guard(waitee.device());
    EMBER_CUDA_CHECK(cudaEventRecord(ev.get(), waitee.handle()));
  }
  DeviceGuard guard(waiter.device());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(waiter.handle(), ev.get(), 0));
}

#else  // CPU-only build: the constructor already raised; lazy_init() explains.

Event Event::from_ipc_handle(int device, const std::string& handle) {
  EMBER_CHECK_VALUE(handle.size() == kIpcEventHandleSize,
                    "An interprocess event handle is ", kIpcEventHandleSize,
                    " bytes (what Event.ipc_handle() returns), got ", handle.size(), " bytes");
  lazy_init();
  throw Error("unreachable");
}
void Event::create(int device) { lazy_init(); }
void Event::destroy() noexcept { event_ = nullptr; }
void Event::record(StreamView s) { lazy_init(); }
void Event::wait(StreamView s) const { lazy_init(); }
bool Event::query() const {
  lazy_init();
  return true;
}
void Event::synchronize() const { lazy_init(); }
float Event::elapsed_time(const Event& end) const {
  lazy_init();
  return 0;
}
std::string Event::ipc_handle() {
  lazy_init();
  return {};
}
void wait_stream(StreamView waiter, StreamView waitee) { lazy_init(); }

#endif

}  // namespace ember::cuda
