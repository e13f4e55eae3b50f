// DLPack: the ABI structs of the DLPack 1.x specification
// (https://dmlc.github.io/dlpack/latest/, dlpack.h), written out from the
// spec, and the conversions between them and ember tensors. The Python side
// (capsules, __dlpack__, streams) is in bindings/tensor_interop.cpp.
#pragma once

#include <cstdint>
#include <functional>

#include "tensor/tensor.hpp"

extern "C" {

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
};

struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; may be NULL (compact row-major) in legacy capsules
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // extern "C"

namespace ember::dlpack {

constexpr uint32_t kMajor = 1;
constexpr uint32_t kMinor = 1;
constexpr uint64_t kFlagReadOnly = 1ull << 0;
constexpr uint64_t kFlagIsCopied = 1ull << 1;

DLDataType to_dl_dtype(ScalarType t);
// TypeError for types ember does not have (complex, float8, vector lanes...).
ScalarType from_dl_dtype(DLDataType t);
DLDevice to_dl_device(const Tensor& t);

// New managed tensors that keep `t` (and so its storage) alive until the
// consumer calls their deleter.
DLManagedTensorVersioned* to_versioned(const Tensor& t, bool copied);
DLManagedTensor* to_legacy(const Tensor& t);

// A tensor viewing `dl`'s memory; `release` runs when the last view of it
// dies (it calls the producer's deleter). Throws TypeError/BufferError-like
// ember errors for what ember cannot represent; `release` is then not called.
Tensor from_dltensor(const DLTensor& dl, std::function<void()> release);

}  // namespace ember::dlpack
