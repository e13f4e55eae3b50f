#include "runtime/stream_guard.hpp"

#include <cstdio>

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember::cuda {

StreamGuard::StreamGuard(StreamView stream) : stream_(stream) {
  original_device_ = current_device();
  original_stream_ = current_stream(original_device_);
  original_target_stream_ =
      stream.device() == original_device_ ? original_stream_ : current_stream(stream.device());
  exchange_device(stream.device());
  set_current_stream(stream);
  active_ = true;
}

void StreamGuard::restore() {
  if (!active_) return;
  active_ = false;
  if (stream_.device() != original_device_) set_current_stream(original_target_stream_);
  set_current_stream(original_stream_);
  exchange_device(original_device_);
}

StreamGuard::~StreamGuard() {
  try {
    restore();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember: warning: could not restore the current stream: %s\n", e.what());
  }
}

StreamGuard::StreamGuard(StreamGuard&& o) noexcept
    : active_(o.active_),
      original_device_(o.original_device_),
      original_stream_(o.original_stream_),
      original_target_stream_(o.original_target_stream_),
      stream_(o.stream_) {
  o.active_ = false;
}

StreamGuard& StreamGuard::operator=(StreamGuard&& o) noexcept {
  if (this != &o) {
    try {
      restore();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ember: warning: could not restore the current stream: %s\n",
                   e.what());
    }
    active_ = o.active_;
    original_device_ = o.original_device_;
    original_stream_ = o.original_stream_;
    original_target_stream_ = o.original_target_stream_;
    stream_ = o.stream_;
    o.active_ = false;
  }
  return *this;
}

}  // namespace ember::cuda
