#include "runtime/peer_access.hpp"

#if EMBER_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"

namespace ember::cuda {

bool can_device_access_peer(int device, int peer) {
  const int n = device_count();
  EMBER_CHECK(device >= 0 && device < n, "Invalid device id: ", device, " (there are ", n,
              " visible GPUs)");
  EMBER_CHECK(peer >= 0 && peer < n, "Invalid peer device id: ", peer, " (there are ", n,
              " visible GPUs)");
#if EMBER_WITH_CUDA
  lazy_init();
  int can = 0;
  EMBER_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  return can != 0;
#else
  return false;
#endif
}

}  // namespace ember::cuda
