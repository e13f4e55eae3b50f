// StreamGuard: makes a stream current for a scope and restores what was
// current before, the stream counterpart of DeviceGuard (runtime/cuda_device.hpp)
// in the shape of c10's CUDAStreamGuard.
//
// - Entering makes the stream's device the current device and the stream the
//   current stream of that device (for this thread).
// - Leaving restores, in this order, the previous current stream of the
//   stream's device, the previous current stream of the previous device, and
//   the previous current device: a stream of another device leaves both
//   devices as they were.
// - A default-constructed guard is inactive and restores nothing. Guards move
//   (the moved-from one becomes inactive), so that a binding can keep one per
//   `with` block on a stack; they are not copied.
// - The destructor never throws: a failure to restore is reported on stderr.
#pragma once

#include "runtime/stream.hpp"

namespace ember::cuda {

class StreamGuard {
 public:
  StreamGuard() = default;
  explicit StreamGuard(StreamView stream);
  ~StreamGuard();
  StreamGuard(StreamGuard&& o) noexcept;
  StreamGuard& operator=(StreamGuard&& o) noexcept;
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

  bool active() const noexcept { return active_; }
  // The device that was current when the guard was made.
  int original_device() const noexcept { return original_device_; }
  // The current stream of original_device() when the guard was made.
  StreamView original_stream() const noexcept { return original_stream_; }
  // The current stream of the guarded stream's device when the guard was made
  // (the same as original_stream() when the devices are the same).
  StreamView original_stream_of_target() const noexcept { return original_target_stream_; }
  // The guarded stream.
  StreamView stream() const noexcept { return stream_; }

  // Restores now (throws on a CUDA failure) and makes the guard inactive.
  void restore();

 private:
  bool active_ = false;
  int original_device_ = -1;
  StreamView original_stream_;
  StreamView original_target_stream_;
  StreamView stream_;
};

}  // namespace ember::cuda
