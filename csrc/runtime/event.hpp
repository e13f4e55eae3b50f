// Events: an owning, move-only Event with torch.cuda.Event's semantics, and
// stream-to-stream waits.
//
// - The CUDA event is created lazily, on the first record() (on the recording
//   stream's device) or ipc_handle() (on the current device), as in torch.
//   From then on only streams of that device may record it; streams of any
//   device may wait on it.
// - Flags: cudaEventDisableTiming unless enable_timing; blocking adds
//   cudaEventBlockingSync (synchronize() sleeps instead of spinning);
//   interprocess adds cudaEventInterprocess, which CUDA only allows with timing
//   disabled.
// - The Event destroys its CUDA event (an event opened from an IPC handle too).
// - wait_stream() records a pooled scratch event: no CUDA event is created per
//   call once the pool is warm.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/stream.hpp"

#if EMBER_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ember::cuda {

#if EMBER_WITH_CUDA
using EventHandle = cudaEvent_t;
#else
using EventHandle = void*;
#endif

// Bytes in an interprocess event handle (CUDA_IPC_HANDLE_SIZE).
constexpr size_t kIpcEventHandleSize = 64;

class Event {
 public:
  // Throws ValueError for interprocess with timing; initialises CUDA (so it
  // throws a clear RuntimeError where no GPU is usable).
  explicit Event(bool enable_timing = false, bool blocking = false, bool interprocess = false);
  // Opens an event another process exported with ipc_handle().
  static Event from_ipc_handle(int device, const std::string& handle);
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Captures the work queued on `s` so far. `s` must be on the event's device.
  void record(StreamView s);
  // Makes future work on `s` wait for the captured work; a no-op before the
  // first record (as in torch).
  void wait(StreamView s) const;
  // True when the captured work has finished (or nothing was ever recorded).
  bool query() const;
  // Waits for the captured work. Blocks: call without the GIL.
  void synchronize() const;
  // Milliseconds from this event to `end`; both recorded, timed and finished.
  float elapsed_time(const Event& end) const;
  // The interprocess handle (kIpcEventHandleSize bytes).
  std::string ipc_handle();

  bool is_created() const noexcept { return event_ != nullptr; }
  bool was_recorded() const noexcept { return recorded_; }
  int device() const noexcept { return device_; }  // -1 before creation
  EventHandle handle() const noexcept { return event_; }
  bool enable_timing() const noexcept { return timing_; }
  bool blocking() const noexcept { return blocking_; }
  bool interprocess() const noexcept { return interprocess_; }

 private:
  void create(int device);
  void destroy() noexcept;

  EventHandle event_ = nullptr;
  int device_ = -1;
  bool timing_ = false;
  bool blocking_ = false;
  bool interprocess_ = false;
  bool recorded_ = false;
};

// Makes all future work on `waiter` wait for the work queued on `waitee` so
// far (torch's Stream.wait_stream). A no-op when they are the same stream.
void wait_stream(StreamView waiter, StreamView waitee);

}  // namespace ember::cuda
