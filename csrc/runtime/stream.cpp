#include "runtime/stream.hpp"

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

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

}  // namespace ember::cuda
