#include "tensor/tensor.hpp"

#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"

namespace ember {

void TensorImpl::refresh() {
  EMBER_CHECK(static_cast<int64_t>(sizes.size()) <= kMaxDims, "a tensor can have at most ",
              kMaxDims, " dimensions, got ", sizes.size());
  numel = checked_numel(sizes);
  contiguous = ember::is_contiguous(sizes, strides);
}

Tensor::Tensor(Storage storage, ScalarType dtype, Shape sizes, Shape strides, int64_t offset)
    : impl_(std::make_shared<TensorImpl>()) {
  impl_->storage = std::move(storage);
  impl_->sizes = std::move(sizes);
  impl_->strides = std::move(strides);
  impl_->offset = offset;
  impl_->dtype = dtype;
  impl_->refresh();
}

Tensor Tensor::empty(const Shape& sizes, ScalarType dtype, const Device& device, bool pinned) {
  return empty_strided(sizes, contiguous_strides(sizes), dtype, device, pinned);
}

Tensor Tensor::empty_strided(const Shape& sizes, const Shape& strides, ScalarType dtype,
                             const Device& device, bool pinned) {
  const size_t itemsize = element_size(dtype);
  const int64_t numel = checked_numel(sizes, itemsize);
  EMBER_CHECK(strides.size() == sizes.size(), "mismatch in length of strides and shape");
  // Extent of the storage: 1 + sum((size - 1) * stride), in elements.
  int64_t extent = numel == 0 ? 0 : 1;
  for (size_t i = 0; i < sizes.size() && numel > 0; ++i) {
    EMBER_CHECK(strides[i] >= 0, "empty_strided: strides must be non-negative, got ", strides[i]);
    int64_t span = 0;
    EMBER_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
                    !__builtin_add_overflow(extent, span, &extent),
                "Storage size calculation overflowed with sizes=", shape_str(sizes),
                " and strides=", shape_str(strides));
  }
  int64_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(extent, static_cast<int64_t>(itemsize), &nbytes),
              "Storage size calculation overflowed with sizes=", shape_str(sizes));
  Storage storage;
  if (device.is_cuda()) {
    EMBER_CHECK(!pinned, "Only dense CPU tensors can be pinned; pin_memory=True needs "
                         "device='cpu'.");
    storage = new_cuda_storage(resolve_device(device).index, static_cast<size_t>(nbytes));
  } else {
    storage = new_cpu_storage(static_cast<size_t>(nbytes), pinned);
  }
  return Tensor(std::move(storage), dtype, sizes, strides, 0);
}

int64_t Tensor::size(int64_t d) const { return impl_->sizes[wrap_dim(d, dim())]; }
int64_t Tensor::stride(int64_t d) const { return impl_->strides[wrap_dim(d, dim())]; }

Tensor Tensor::view_with(Shape sizes, Shape strides, int64_t offset) const {
  return Tensor(impl_->storage, impl_->dtype, std::move(sizes), std::move(strides), offset);
}

void Tensor::set_metadata(Shape sizes, Shape strides, int64_t offset) {
  impl_->sizes = std::move(sizes);
  impl_->strides = std::move(strides);
  impl_->offset = offset;
  impl_->refresh();
}

Device resolve_device(const Device& d) {
  if (d.is_cpu()) return Device(DeviceType::CPU);
  if (d.has_index()) {
    cuda::check_device_index(d.index);
    return d;
  }
  return Device(DeviceType::CUDA, cuda::current_device());
}

void check_same_device(const Tensor& a, const Tensor& b) {
  if (a.device() != b.device()) {
    throw Error(detail::str("Expected all tensors to be on the same device, but found at least "
                            "two devices, ",
                            a.device().str(), " and ", b.device().str(), "!"));
  }
}

}  // namespace ember
