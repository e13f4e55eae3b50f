// ember::Tensor for extensions: a counted reference to an ember tensor, with
// its metadata and data pointer, and the creation functions. Header-only
// over ember's C API (ember/c_api.h): no ember symbol is linked.
//
//   ember::Tensor y = ember::empty({n}, ember::kFloat32, x.device());
//   float* p = y.data_ptr<float>();      // TypeError unless y is float32
//
// Copies share the tensor (like torch's at::Tensor). Metadata is read once,
// when the handle is made: a tensor whose shape is changed in place from
// Python afterwards needs a new handle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ember/api.h"
#include "ember/device/half.cuh"

namespace ember {

enum class Dtype : int32_t {
  Bool = EMBER_BOOL,
  UInt8 = EMBER_UINT8,
  Int8 = EMBER_INT8,
  Int16 = EMBER_INT16,
  Int32 = EMBER_INT32,
  Int64 = EMBER_INT64,
  Float16 = EMBER_FLOAT16,
  BFloat16 = EMBER_BFLOAT16,
  Float32 = EMBER_FLOAT32,
  Float64 = EMBER_FLOAT64,
};
constexpr Dtype kBool = Dtype::Bool, kUInt8 = Dtype::UInt8, kInt8 = Dtype::Int8,
                kInt16 = Dtype::Int16, kInt32 = Dtype::Int32, kInt64 = Dtype::Int64,
                kFloat16 = Dtype::Float16, kBFloat16 = Dtype::BFloat16, kFloat32 = Dtype::Float32,
                kFloat64 = Dtype::Float64;

inline const char* dtype_name(Dtype d) {
  static const char* names[] = {"bool",  "uint8",   "int8",     "int16",   "int32",
                                "int64", "float16", "bfloat16", "float32", "float64"};
  const int i = static_cast<int>(d);
  return i >= 0 && i < 10 ? names[i] : "unknown";
}

// The Dtype of a C++ element type (float -> kFloat32, ember::Half -> kFloat16).
template <typename T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr Dtype value = kBool;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr Dtype value = kUInt8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr Dtype value = kInt8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr Dtype value = kInt16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr Dtype value = kInt32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr Dtype value = kInt64;
};
template <>
struct dtype_of<Half> {
  static constexpr Dtype value = kFloat16;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr Dtype value = kBFloat16;
};
template <>
struct dtype_of<float> {
  static constexpr Dtype value = kFloat32;
};
template <>
struct dtype_of<double> {
  static constexpr Dtype value = kFloat64;
};

struct Device {
  EmberDeviceType type = EMBER_CPU;
  int32_t index = -1;  // -1 for the CPU; for CUDA, -1 means the current device
  static Device cpu() { return Device{}; }
  static Device cuda(int32_t index = -1) { return Device{EMBER_CUDA, index}; }
  bool is_cuda() const { return type == EMBER_CUDA; }
  bool is_cpu() const { return type == EMBER_CPU; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

class Tensor {
 public:
  Tensor() = default;
  // Takes over one reference (what the C API's functions hand out).
  explicit Tensor(EmberTensor* owned) : h_(owned) { refresh(); }
  Tensor(const Tensor& o) : h_(o.h_ ? api().tensor_retain(o.h_) : nullptr), info_(o.info_) {}
  Tensor(Tensor&& o) noexcept : h_(o.h_), info_(o.info_) { o.h_ = nullptr; }
  Tensor& operator=(Tensor o) noexcept {
    std::swap(h_, o.h_);
    std::swap(info_, o.info_);
    return *this;
  }
  ~Tensor() {
    if (h_) api().tensor_release(h_);
  }

  bool defined() const { return h_ != nullptr; }
  const EmberTensor* handle() const { return h_; }

  void* data_ptr() const { return info_.data; }
  // The data as T*; TypeError unless the dtype is T's.
  template <typename T>
  T* data_ptr() const {
    EMBER_CHECK_TYPE(dtype() == dtype_of<T>::value, "data_ptr<", dtype_name(dtype_of<T>::value),
                     ">() called on a tensor of dtype ", dtype_name(dtype()));
    return static_cast<T*>(info_.data);
  }
  int64_t dim() const { return info_.ndim; }
  int64_t numel() const { return info_.numel; }
  int64_t size(int64_t d) const { return info_.sizes[wrap(d)]; }
  int64_t stride(int64_t d) const { return info_.strides[wrap(d)]; }
  std::vector<int64_t> sizes() const { return {info_.sizes, info_.sizes + info_.ndim}; }
  std::vector<int64_t> strides() const { return {info_.strides, info_.strides + info_.ndim}; }
  Dtype dtype() const { return static_cast<Dtype>(info_.dtype); }
  size_t element_size() const { return static_cast<size_t>(info_.itemsize); }
  size_t nbytes() const { return static_cast<size_t>(info_.numel) * element_size(); }
  Device device() const {
    return Device{static_cast<EmberDeviceType>(info_.device_type), info_.device_index};
  }
  bool is_cuda() const { return info_.device_type == EMBER_CUDA; }
  bool is_cpu() const { return info_.device_type == EMBER_CPU; }
  bool is_contiguous() const { return info_.is_contiguous != 0; }
  // Tells autograd that this extension wrote the tensor in place.
  void bump_version() const { api().tensor_bump_version(h_); }

 private:
  void refresh() {
    if (h_) api().tensor_info(h_, &info_);
  }
  int64_t wrap(int64_t d) const {
    const int64_t n = info_.ndim;
    EMBER_CHECK_INDEX(d >= -n && d < (n == 0 ? 1 : n),
                      "Dimension out of range (expected to be "
                      "in range of [",
                      -n, ", ", n - 1, "], but got ", d, ")");
    return d < 0 ? d + n : d;
  }
  EmberTensor* h_ = nullptr;
  EmberTensorInfo info_{};
};

namespace detail {
template <typename Fn>
Tensor create(Fn fn, const std::vector<int64_t>& sizes, Dtype dtype, Device device) {
  EmberTensor* out = nullptr;
  check(fn(static_cast<int32_t>(sizes.size()), sizes.data(), static_cast<int32_t>(dtype),
           device.type, device.index, &out));
  return Tensor(out);
}
}  // namespace detail

// A new uninitialised, contiguous tensor (CUDA memory from ember's caching
// allocator, on the device's current stream).
inline Tensor empty(const std::vector<int64_t>& sizes, Dtype dtype = kFloat32,
                    Device device = Device::cpu()) {
  return detail::create(api().empty, sizes, dtype, device);
}
inline Tensor zeros(const std::vector<int64_t>& sizes, Dtype dtype = kFloat32,
                    Device device = Device::cpu()) {
  return detail::create(api().zeros, sizes, dtype, device);
}
inline Tensor empty_like(const Tensor& t) { return empty(t.sizes(), t.dtype(), t.device()); }
inline Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.dtype(), t.device()); }

}  // namespace ember
