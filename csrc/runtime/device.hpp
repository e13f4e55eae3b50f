// ember::Device: a value naming where data lives, like torch.device.
// "cpu", "cuda", "cuda:1", ("cuda", 0). An index of -1 means "no index given"
// (for "cuda": the current device at the time of use).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ember {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;

  Device() = default;
  Device(DeviceType t, int i = -1);

  // Parses "cpu", "cuda", "cuda:N", "cpu:0". Throws ember::Error (RuntimeError)
  // with the accepted forms when the string is not one of them.
  static Device parse(const std::string& spec);
  static DeviceType parse_type(const std::string& name);

  bool is_cuda() const noexcept { return type == DeviceType::CUDA; }
  bool is_cpu() const noexcept { return type == DeviceType::CPU; }
  bool has_index() const noexcept { return index >= 0; }

  std::string type_name() const;
  std::string str() const;   // "cuda:0", "cpu"
  std::string repr() const;  // "device(type='cuda', index=0)"

  bool operator==(const Device& o) const noexcept { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const noexcept { return !(*this == o); }
  size_t hash() const noexcept {
    return std::hash<int>()((static_cast<int>(type) << 16) ^ (index + 1));
  }
};

// torch.set_default_device / `with torch.device(...)`: the device that creation
// functions use when they are given none. Per thread, as torch's (its device
// context lives in a thread-local mode stack); CPU until set. Reading it is one
// thread-local load (the creation fast path reads it on every call).
Device default_device() noexcept;
void set_default_device(Device d) noexcept;

}  // namespace ember
