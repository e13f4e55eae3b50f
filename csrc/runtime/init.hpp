// Lazy, fork-safe CUDA initialisation and device counting.
//
// - `import ember` touches no CUDA API. device_count()/is_available() ask NVML
//   (opened at run time), which does not initialise the CUDA driver, so the
//   process may still fork; CUDA_VISIBLE_DEVICES is applied to NVML's answer.
//   Without NVML (or with MIG UUIDs) they fall back to cudaGetDeviceCount.
// - lazy_init() runs once before the first real CUDA work. A child forked after
//   its parent initialised CUDA gets a RuntimeError on its first CUDA use
//   instead of undefined behaviour (the driver does not survive fork).
#pragma once

#include <string>
#include <vector>

namespace ember::cuda {

bool compiled_with_cuda() noexcept;
int device_count();
bool is_available();

// Cheap once initialised (one atomic load). Throws ember::Error in a forked
// child of an initialised parent, CudaError when no GPU or driver is usable.
void lazy_init();
bool is_initialized() noexcept;
bool in_bad_fork() noexcept;

// CUDA versions as integers (13000 = 13.0): the runtime ember was built with,
// and the newest the installed driver supports (0 when no driver).
int runtime_version() noexcept;
int driver_version() noexcept;

// How many of `nvml_count` GPUs (with UUIDs `uuids`) a CUDA_VISIBLE_DEVICES
// value exposes, following CUDA's rules: a list of ordinals or UUID prefixes,
// cut at the first invalid entry; a repeated entry exposes none. -1 when it
// cannot be told without the CUDA runtime (MIG UUIDs). `env` null: unset.
int visible_device_count(const char* env, int nvml_count, const std::vector<std::string>& uuids);

}  // namespace ember::cuda
