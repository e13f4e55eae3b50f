#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/sleep.hpp"

namespace ember::cuda {

namespace {

__global__ void spin_kernel(int64_t cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

}  // namespace

void sleep_cycles(int64_t cycles, StreamView s) {
  EMBER_CHECK_VALUE(cycles >= 0, "_sleep() needs a number of cycles >= 0, got ", cycles);
  // A kernel must be launched from its stream's device.
  DeviceGuard guard(s.device());
  spin_kernel<<<1, 1, 0, s.handle()>>>(cycles);
  EMBER_KERNEL_LAUNCH_CHECK();
}

}  // namespace ember::cuda
