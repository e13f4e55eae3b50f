#include "runtime/nvml.hpp"

#include <mutex>

#include "runtime/dynlib.hpp"

namespace ember::nvml {

namespace {

// The few NVML entry points ember uses, declared here so that building needs no
// nvml.h (the C ABI is stable; these signatures are NVML's).
using nvmlReturn = int;
using nvmlDevice = void*;
using InitFn = nvmlReturn (*)();
using CountFn = nvmlReturn (*)(unsigned int*);
using HandleFn = nvmlReturn (*)(unsigned int, nvmlDevice*);
using UuidFn = nvmlReturn (*)(nvmlDevice, char*, unsigned int);
using DriverFn = nvmlReturn (*)(char*, unsigned int);
struct Utilization {
  unsigned int gpu, memory;
};
struct Memory {
  unsigned long long total, free, used;
};
struct ProcessInfo {  // nvmlProcessInfo_v1_t (the layout nvmlDeviceGetComputeRunningProcesses fills)
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
using UtilFn = nvmlReturn (*)(nvmlDevice, Utilization*);
using TempFn = nvmlReturn (*)(nvmlDevice, int, unsigned int*);
using PowerFn = nvmlReturn (*)(nvmlDevice, unsigned int*);
using ClockFn = nvmlReturn (*)(nvmlDevice, int, unsigned int*);
using MemoryFn = nvmlReturn (*)(nvmlDevice, Memory*);
using ProcsFn = nvmlReturn (*)(nvmlDevice, unsigned int*, ProcessInfo*);
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;         // NVML_CLOCK_SM
constexpr nvmlReturn kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

struct Nvml {
  DynLib lib{"libnvidia-ml.so.1", "libnvidia-ml.so"};
  bool ok = false;
  CountFn count = nullptr;
  HandleFn handle = nullptr;
  UuidFn uuid = nullptr;
  DriverFn driver = nullptr;
  // Optional readings (absent in old drivers: then unknown).
  UtilFn util = nullptr;
  TempFn temp = nullptr;
  PowerFn power = nullptr;
  ClockFn clock = nullptr;
  MemoryFn memory = nullptr;
  ProcsFn procs = nullptr;

  Nvml() {
    auto init = lib.get<InitFn>("nvmlInit_v2");
    count = lib.get<CountFn>("nvmlDeviceGetCount_v2");
    handle = lib.get<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
    uuid = lib.get<UuidFn>("nvmlDeviceGetUUID");
    driver = lib.get<DriverFn>("nvmlSystemGetDriverVersion");
    ok = init && count && handle && uuid && driver && init() == 0;
    util = lib.get<UtilFn>("nvmlDeviceGetUtilizationRates");
    temp = lib.get<TempFn>("nvmlDeviceGetTemperature");
    power = lib.get<PowerFn>("nvmlDeviceGetPowerUsage");
    clock = lib.get<ClockFn>("nvmlDeviceGetClockInfo");
    memory = lib.get<MemoryFn>("nvmlDeviceGetMemoryInfo");
    procs = lib.get<ProcsFn>("nvmlDeviceGetComputeRunningProcesses");
  }
};

Nvml& nvml() {
  static Nvml* instance = new Nvml();  // never destroyed: used until exit
  return *instance;
}

nvmlDevice device_handle(int index) {
  nvmlDevice dev = nullptr;
  if (!nvml().ok || index < 0 || nvml().handle(static_cast<unsigned int>(index), &dev) != 0) {
    return nullptr;
  }
  return dev;
}

}  // namespace

bool available() { return nvml().ok; }

int device_count() {
  if (!available()) return -1;
  unsigned int n = 0;
  return nvml().count(&n) == 0 ? static_cast<int>(n) : -1;
}

std::vector<std::string> device_uuids() {
  std::vector<std::string> out;
  const int n = device_count();
  for (int i = 0; i < n; ++i) {
    nvmlDevice dev = nullptr;
    char buf[96] = {0};
    if (nvml().handle(static_cast<unsigned int>(i), &dev) != 0 ||
        nvml().uuid(dev, buf, sizeof(buf)) != 0) {
      return {};
    }
    out.emplace_back(buf);
  }
  return out;
}

std::string driver_version() {
  if (!available()) return {};
  char buf[96] = {0};
  return nvml().driver(buf, sizeof(buf)) == 0 ? std::string(buf) : std::string();
}

int64_t reading(int index, Reading what) {
  nvmlDevice dev = device_handle(index);
  if (!dev) return -1;
  const Nvml& n = nvml();
  unsigned int v = 0;
  switch (what) {
    case Reading::Utilization:
    case Reading::MemoryUtilization: {
      Utilization u{};
      if (!n.util || n.util(dev, &u) != 0) return -1;
      return what == Reading::Utilization ? u.gpu : u.memory;
    }
    case Reading::Temperature:
      return n.temp && n.temp(dev, kTemperatureGpu, &v) == 0 ? int64_t(v) : -1;
    case Reading::PowerDraw:
      return n.power && n.power(dev, &v) == 0 ? int64_t(v) : -1;
    case Reading::ClockRate:
      return n.clock && n.clock(dev, kClockSm, &v) == 0 ? int64_t(v) : -1;
    case Reading::MemoryUsed: {
      Memory m{};
      return n.memory && n.memory(dev, &m) == 0 ? int64_t(m.used) : -1;
    }
  }
  return -1;
}

Processes compute_processes(int index) {
  Processes out;
  nvmlDevice dev = device_handle(index);
  if (!dev || !nvml().procs) return out;
  unsigned int count = 0;
  nvmlReturn r = nvml().procs(dev, &count, nullptr);
  if (r != 0 && r != kInsufficientSize) return out;
  std::vector<ProcessInfo> buf(count + 8);  // processes may start in between
  count = static_cast<unsigned int>(buf.size());
  if (nvml().procs(dev, &count, buf.data()) != 0) return out;
  out.ok = true;
  for (unsigned int i = 0; i < count; ++i) out.list.emplace_back(buf[i].pid, buf[i].used_gpu_memory);
  return out;
}

}  // namespace ember::nvml
