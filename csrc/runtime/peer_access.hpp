// torch.cuda.can_device_access_peer: whether one GPU can address another's memory.
#pragma once

namespace ember::cuda {

// True when `device` can access `peer`'s memory directly (cudaDeviceCanAccessPeer);
// both indices are checked (an IndexError-like ember::Error names the bad one).
bool can_device_access_peer(int device, int peer);

}  // namespace ember::cuda
