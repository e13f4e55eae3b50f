// Streams: a non-owning StreamView that everything passes around, the current
// stream, kept per thread and per device (as torch does), and the owning Stream.
//
// The default stream of every device is CUDA's legacy default stream (handle
// 0), as in torch. Every ember operation that touches the GPU -- kernels,
// copies, allocations, cuBLAS -- is issued on current_stream(its device).
//
// Owning streams come from a pool per (device, priority):
// - Stream() pops a created CUDA stream from its pool, or creates one when the
//   pool is empty (cudaStreamCreateWithPriority, non-blocking as in torch), so
//   the pool grows to the number of streams alive at once and two live Stream
//   objects never share a CUDA stream.
// - ~Stream() pushes the CUDA stream back (last in, first out). It may still
//   have work queued: the next owner's work is simply ordered after it.
// - Pooled CUDA streams are never destroyed (the driver frees them at exit), so
//   a stale StreamView never names a destroyed stream.
#pragma once

#include <cstdint>
#include <utility>

#if EMBER_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ember::cuda {

#if EMBER_WITH_CUDA
using StreamHandle = cudaStream_t;
#else
using StreamHandle = void*;
#endif

// Largest number of devices ember tracks per-device state for.
constexpr int kMaxDevices = 64;

class StreamView {
 public:
  constexpr StreamView() = default;
  constexpr StreamView(StreamHandle handle, int device) : handle_(handle), device_(device) {}

  StreamHandle handle() const noexcept { return handle_; }
  int device() const noexcept { return device_; }
  uintptr_t id() const noexcept { return reinterpret_cast<uintptr_t>(handle_); }
  bool is_default() const noexcept { return handle_ == nullptr; }

  bool operator==(const StreamView& o) const noexcept {
    return handle_ == o.handle_ && device_ == o.device_;
  }
  bool operator!=(const StreamView& o) const noexcept { return !(*this == o); }

 private:
  StreamHandle handle_ = nullptr;
  int device_ = 0;
};

// The current stream of `device` (-1: the current device) for this thread;
// the default stream until set_current_stream() says otherwise.
StreamView current_stream(int device = -1);
// Makes `s` the current stream of its device for this thread.
void set_current_stream(StreamView s);
StreamView default_stream(int device = -1);

// True for the handles that mean "a default stream of the current device" to
// CUDA: 0 (legacy), cudaStreamLegacy (1) and cudaStreamPerThread (2): only the
// current device tells which device's. Calls on a stream make its device
// current for the call (a no-op when it already is), as torch does.
inline bool is_special_handle(StreamHandle h) noexcept {
  return reinterpret_cast<uintptr_t>(h) <= 2;
}

// The priorities `device` (-1: current) supports, as (least, greatest); lower
// numbers are higher priority (H100: (0, -5)). Cached per device.
std::pair<int, int> priority_range(int device = -1);
// `priority` moved into the device's range: above `least` gives least, below
// `greatest` gives greatest.
int clamp_priority(long long priority, int device = -1);

// True when all work queued on `s` has finished (cudaStreamQuery).
bool stream_query(StreamView s);
// Waits for all work queued on `s`. Blocks: call without the GIL.
void stream_synchronize(StreamView s);
// The stream's priority as CUDA reports it (cudaStreamGetPriority).
int stream_priority(StreamView s);
// The device a stream made elsewhere belongs to (cudaStreamGetDevice); -1 for
// the special handles, which mean "the current device's". The handle is
// trusted: CUDA cannot tell a garbage pointer from a stream.
int stream_device(StreamHandle h);

// An owning CUDA stream, taken from the pool (see the top of this file).
class Stream {
 public:
  // A stream on `device` (-1: current) with `priority` clamped into the
  // device's range.
  explicit Stream(int device = -1, long long priority = 0);
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamView view() const noexcept { return view_; }
  operator StreamView() const noexcept { return view_; }
  StreamHandle handle() const noexcept { return view_.handle(); }
  int device() const noexcept { return view_.device(); }
  int priority() const noexcept { return priority_; }
  // False once moved from.
  bool owns() const noexcept { return owns_; }

 private:
  void release() noexcept;

  StreamView view_;
  int priority_ = 0;
  bool owns_ = false;
};

// How many CUDA streams the pool of `device` has created so far, and how many
// of them are free now (for tests and diagnostics).
std::pair<int, int> stream_pool_stats(int device = -1);

}  // namespace ember::cuda
