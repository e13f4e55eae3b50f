#include "tensor/dlpack.hpp"

#include <vector>

#include "runtime/errors.hpp"

namespace ember::dlpack {

namespace {

// What a managed tensor owns: the exported tensor and its shape and strides.
struct Holder {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

Holder* make_holder(const Tensor& t) {
  auto* h = new Holder{t, t.sizes(), t.strides()};
  return h;
}

void fill_dltensor(DLTensor& dl, Holder* h) {
  const Tensor& t = h->tensor;
  dl.data = t.numel() == 0 ? nullptr : t.data_ptr();
  dl.device = to_dl_device(t);
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = h->shape.data();
  dl.strides = h->strides.data();
  dl.byte_offset = 0;
}

void delete_versioned(DLManagedTensorVersioned* self) {
  delete static_cast<Holder*>(self->manager_ctx);
  delete self;
}

void delete_legacy(DLManagedTensor* self) {
  delete static_cast<Holder*>(self->manager_ctx);
  delete self;
}

// Runs the release function once, when the storage dies.
void run_release(void* ctx) {
  auto* f = static_cast<std::function<void()>*>(ctx);
  (*f)();
  delete f;
}

}  // namespace

DLDataType to_dl_dtype(ScalarType t) {
  const auto bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool: return {kDLBool, 8, 1};
    case ScalarType::UInt8: return {kDLUInt, 8, 1};
    case ScalarType::BFloat16: return {kDLBfloat, 16, 1};
    case ScalarType::Float16:
    case ScalarType::Float32:
    case ScalarType::Float64: return {kDLFloat, bits, 1};
    case ScalarType::ComplexHalf:
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: return {kDLComplex, bits, 1};
    default: return {kDLInt, bits, 1};
  }
}

ScalarType from_dl_dtype(DLDataType t) {
  EMBER_CHECK_TYPE(t.lanes == 1, "DLPack tensors with ", t.lanes,
                   " lanes (vector types) are not supported by ember");
  switch (t.code) {
    case kDLBool:
      if (t.bits == 8) return ScalarType::Bool;
      break;
    case kDLUInt:
      if (t.bits == 8) return ScalarType::UInt8;
      if (t.bits == 1) return ScalarType::Bool;
      break;
    case kDLInt:
      if (t.bits == 8) return ScalarType::Int8;
      if (t.bits == 16) return ScalarType::Int16;
      if (t.bits == 32) return ScalarType::Int32;
      if (t.bits == 64) return ScalarType::Int64;
      break;
    case kDLFloat:
      if (t.bits == 16) return ScalarType::Float16;
      if (t.bits == 32) return ScalarType::Float32;
      if (t.bits == 64) return ScalarType::Float64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return ScalarType::BFloat16;
      break;
    case kDLComplex:
      if (t.bits == 32) return ScalarType::ComplexHalf;
      if (t.bits == 64) return ScalarType::ComplexFloat;
      if (t.bits == 128) return ScalarType::ComplexDouble;
      break;
    default:
      break;
  }
  throw TypeError(detail::str("Unsupported DLPack data type (code ", int(t.code), ", ",
                              int(t.bits), " bits): ember supports bool, uint8, int8-int64, "
                              "float16, bfloat16, float32, float64 and complex32-complex128"));
}

DLDevice to_dl_device(const Tensor& t) {
  if (t.is_cuda()) return {kDLCUDA, t.device().index};
  return {kDLCPU, 0};
}

DLManagedTensorVersioned* to_versioned(const Tensor& t, bool copied) {
  auto* m = new DLManagedTensorVersioned{};
  Holder* h = make_holder(t);
  m->version = {kMajor, kMinor};
  m->manager_ctx = h;
  m->deleter = &delete_versioned;
  m->flags = copied ? kFlagIsCopied : 0;
  fill_dltensor(m->dl_tensor, h);
  return m;
}

DLManagedTensor* to_legacy(const Tensor& t) {
  auto* m = new DLManagedTensor{};
  Holder* h = make_holder(t);
  m->manager_ctx = h;
  m->deleter = &delete_legacy;
  fill_dltensor(m->dl_tensor, h);
  return m;
}

Tensor from_dltensor(const DLTensor& dl, std::function<void()> release) {
  const ScalarType dtype = from_dl_dtype(dl.dtype);
  Device device;
  bool pinned = false;
  switch (dl.device.device_type) {
    case kDLCPU: device = Device(DeviceType::CPU); break;
    case kDLCUDAHost: device = Device(DeviceType::CPU); pinned = true; break;
    case kDLCUDA: device = Device(DeviceType::CUDA, dl.device.device_id); break;
    default:
      throw TypeError(detail::str("Unsupported DLPack device type ", int(dl.device.device_type),
                                  ": ember imports CPU (1), CUDA (2) and CUDA host (3) memory"));
  }
  EMBER_CHECK_VALUE(dl.ndim >= 0 && dl.ndim <= 64, "DLPack tensor has ", dl.ndim,
                    " dimensions; ember supports 0 to 64");
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  const size_t item = element_size(dtype);
  const int64_t numel = checked_numel(sizes, item);
  int64_t last = 0;
  for (int32_t d = 0; d < dl.ndim && numel > 0; ++d) {
    EMBER_CHECK_VALUE(strides[d] >= 0, "DLPack tensors with negative strides are not supported "
                      "by ember (strides ", shape_str(strides), "); copy the array first");
    last += (sizes[d] - 1) * strides[d];
  }
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(last + 1) * item;
  char* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // Complex elements are read as aligned {re, im} pairs (tensor/complex.hpp).
  EMBER_CHECK_VALUE(!is_complex(dtype) || reinterpret_cast<uintptr_t>(data) % item == 0,
                    "DLPack tensor of ", dtype_name(dtype), " at an address that is not a "
                    "multiple of ", item, " bytes; ember reads complex elements as aligned "
                    "pairs. Copy the data first.");
  auto* ctx = new std::function<void()>(std::move(release));
  Storage s = wrap_storage(data, nbytes, device, DataPtr{data, ctx, &run_release}, pinned);
  return Tensor(std::move(s), dtype, std::move(sizes), std::move(strides), 0);
}

}  // namespace ember::dlpack
