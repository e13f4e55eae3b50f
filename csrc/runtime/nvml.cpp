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

struct Nvml {
  DynLib lib{"libnvidia-ml.so.1", "libnvidia-ml.so"};
  bool ok = false;
  CountFn count = nullptr;
  HandleFn handle = nullptr;
  UuidFn uuid = nullptr;
  DriverFn driver = nullptr;

  Nvml() {
    auto init = lib.get<InitFn>("nvmlInit_v2");
    count = lib.get<CountFn>("nvmlDeviceGetCount_v2");
    handle = lib.get<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
    uuid = lib.get<UuidFn>("nvmlDeviceGetUUID");
    driver = lib.get<DriverFn>("nvmlSystemGetDriverVersion");
    ok = init && count && handle && uuid && driver && init() == 0;
  }
};

Nvml& nvml() {
  static Nvml* instance = new Nvml();  // never destroyed: used until exit
  return *instance;
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

}  // namespace ember::nvml
