#include "runtime/device.hpp"

#include <cctype>
#include <limits>

#include "runtime/errors.hpp"

namespace ember {

namespace {
constexpr const char* kForms =
    "Expected 'cpu', 'cuda', or 'cuda:N' with N a device index such as 'cuda:0'";
}

namespace {
thread_local Device t_default_device;  // CPU
}  // namespace

Device default_device() noexcept { return t_default_device; }
void set_default_device(Device d) noexcept { t_default_device = d; }

Device::Device(DeviceType t, int i) : type(t), index(i) {
  EMBER_CHECK(i >= -1, "Device index must not be negative, got ", i);
}

DeviceType Device::parse_type(const std::string& name) {
  if (name == "cuda") return DeviceType::CUDA;
  if (name == "cpu") return DeviceType::CPU;
  throw Error(detail::str("Invalid device type '", name, "'. ", kForms, "."));
}

Device Device::parse(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  if (name != "cuda" && name != "cpu") {
    throw Error(detail::str("Invalid device string: '", spec, "'. ", kForms, "."));
  }
  if (colon == std::string::npos) return Device(parse_type(name));
  const std::string digits = spec.substr(colon + 1);
  bool ok = !digits.empty() && digits.size() <= 9 && (digits.size() == 1 || digits[0] != '0');
  for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  if (!ok) {
    if (!digits.empty() && digits[0] == '-') {
      throw Error(detail::str("Invalid device string: '", spec,
                              "'. Device index must not be negative."));
    }
    throw Error(detail::str("Invalid device string: '", spec, "'. ", kForms, "."));
  }
  return Device(parse_type(name), std::stoi(digits));
}

std::string Device::type_name() const { return type == DeviceType::CUDA ? "cuda" : "cpu"; }

std::string Device::str() const {
  return has_index() ? type_name() + ":" + std::to_string(index) : type_name();
}

std::string Device::repr() const {
  if (!has_index()) return "device(type='" + type_name() + "')";
  return "device(type='" + type_name() + "', index=" + std::to_string(index) + ")";
}

}  // namespace ember
