// NVML, opened at run time, answers "how many GPUs?" and "which driver?"
// without initialising CUDA, so that a process may still fork afterwards.
// Absent NVML (no driver, containers without it), every call says "unknown".
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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

// Readings of GPU `index` (NVML's order), for torch.cuda.utilization and friends;
// -1 when unknown (no NVML, no such GPU, or the GPU does not report it).
enum class Reading {
  Utilization,        // percent of the last sample period a kernel ran
  MemoryUtilization,  // percent of it device memory was read or written
  Temperature,        // degrees Celsius (the GPU die)
  PowerDraw,          // milliwatts
  ClockRate,          // the SM clock, MHz
  MemoryUsed,         // bytes of device memory in use (all processes)
};
int64_t reading(int index, Reading what);
// (pid, bytes of GPU memory, 0 when unknown) of the compute processes on GPU `index`;
// nullopt-like: `ok` false when unknown.
struct Processes {
  bool ok = false;
  std::vector<std::pair<unsigned, uint64_t>> list;
};
Processes compute_processes(int index);

}  // namespace ember::nvml
