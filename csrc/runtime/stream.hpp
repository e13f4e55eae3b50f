// Streams: a non-owning StreamView that everything passes around, and the
// current stream, kept per thread and per device (as torch does).
//
// The default stream of every device is CUDA's legacy default stream (handle
// 0), as in torch. Every ember operation that touches the GPU -- kernels,
// copies, allocations, cuBLAS -- is issued on current_stream(its device).
//
// The owning Stream type, the stream pool and priorities live in this file's
// .cpp as the streams issue grows them; the rest of the core only needs this view.
#pragma once

#include <cstdint>

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

}  // namespace ember::cuda
