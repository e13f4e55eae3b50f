// NVML, opened at run time, answers "how many GPUs?" and "which driver?"
// without initialising CUDA, so that a process may still fork afterwards.
// Absent NVML (no driver, containers without it), every call says "unknown".
#pragma once

#include <string>
#include <vector>

namespace ember::nvml {

// True when libnvidia-ml could be opened and initialised.
bool available();
// Number of GPUs NVML sees (ignores CUDA_VISIBLE_DEVICES); -1 when unknown.
int device_count();
// UUIDs ("GPU-xxxxxxxx-...") of the GPUs in NVML's order; empty when unknown.
std::vector<std::string> device_uuids();
// The driver's version string, e.g. "580.159.04"; empty when unknown.
std::string driver_version();

}  // namespace ember::nvml
