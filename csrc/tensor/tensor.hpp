// Tensor: a strided view of a Storage -- sizes, strides (in elements), an
// offset into the storage (in elements) and a dtype. Tensor is a cheap handle
// (a shared_ptr to TensorImpl), like at::Tensor: copies of a Tensor share the
// TensorImpl, so in-place changes of metadata (squeeze_, t_, set_) are seen
// through every handle. Views share the Storage but not the TensorImpl.
//
// This layer only describes memory: views are metadata operations
// (tensor/views.hpp); anything that moves data lives in ops/.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/device.hpp"
#include "tensor/dtype.hpp"
#include "tensor/shape.hpp"
#include "tensor/storage.hpp"

namespace ember {

// Most dimensions a tensor may have (NumPy's limit too).
constexpr int64_t kMaxDims = 64;

// What autograd (csrc/autograd/) attaches to a TensorImpl: requires_grad, .grad,
// grad_fn. Declared here as an interface so that this layer does not depend on
// autograd; null for tensors that require no grad and have no history.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

struct TensorImpl {
  Storage storage;
  Shape sizes;
  Shape strides;
  int64_t offset = 0;
  int64_t numel = 0;
  ScalarType dtype = ScalarType::Float32;
  bool contiguous = true;
  std::unique_ptr<AutogradMetaInterface> autograd;

  // Recomputes numel and contiguity. Throws RuntimeError when the element
  // count overflows int64 (an expand to 2**80 elements) or there are more
  // than kMaxDims dims, so no tensor ever holds a wrapped numel.
  void refresh();
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) noexcept : impl_(std::move(impl)) {}
  Tensor(Storage storage, ScalarType dtype, Shape sizes, Shape strides, int64_t offset);

  // Uninitialised memory. `device` must carry an index for CUDA (see
  // resolve_device); `pinned` only for CPU.
  static Tensor empty(const Shape& sizes, ScalarType dtype, const Device& device,
                      bool pinned = false);
  // Uninitialised memory with the given strides (which must not overlap).
  static Tensor empty_strided(const Shape& sizes, const Shape& strides, ScalarType dtype,
                              const Device& device, bool pinned = false);

  bool defined() const noexcept { return impl_ != nullptr; }
  TensorImpl* impl() const noexcept { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const noexcept { return impl_; }

  const Shape& sizes() const noexcept { return impl_->sizes; }
  const Shape& strides() const noexcept { return impl_->strides; }
  int64_t dim() const noexcept { return static_cast<int64_t>(impl_->sizes.size()); }
  int64_t size(int64_t d) const;    // wraps negative dims
  int64_t stride(int64_t d) const;  // wraps negative dims
  int64_t numel() const noexcept { return impl_->numel; }
  int64_t storage_offset() const noexcept { return impl_->offset; }
  ScalarType dtype() const noexcept { return impl_->dtype; }
  size_t itemsize() const noexcept { return element_size(impl_->dtype); }
  size_t nbytes() const noexcept { return static_cast<size_t>(impl_->numel) * itemsize(); }
  const Storage& storage() const noexcept { return impl_->storage; }
  const Device& device() const noexcept { return impl_->storage->device(); }
  bool is_cuda() const noexcept { return device().is_cuda(); }
  bool is_cpu() const noexcept { return device().is_cpu(); }
  bool is_pinned() const noexcept { return impl_->storage->is_pinned(); }
  bool is_contiguous() const noexcept { return impl_->contiguous; }
  bool is_non_overlapping_and_dense() const {
    return ember::is_non_overlapping_and_dense(sizes(), strides());
  }
  // The address of element [0, ..., 0].
  void* data_ptr() const noexcept {
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * int64_t(itemsize());
  }
  bool is_same(const Tensor& o) const noexcept { return impl_ == o.impl_; }

  // A new tensor over the same storage (no bounds check: see views.hpp's as_strided).
  Tensor view_with(Shape sizes, Shape strides, int64_t offset) const;
  // Changes this tensor's metadata in place (seen by every handle).
  void set_metadata(Shape sizes, Shape strides, int64_t offset);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// A CUDA device with its index filled in (the current device when it has
// none); CPU devices lose any index ("cpu:0" is "cpu").
Device resolve_device(const Device& d);

// RuntimeError unless both tensors are on the same device, with torch's message:
// "Expected all tensors to be on the same device, but found at least two
// devices, cuda:0 and cpu!"
void check_same_device(const Tensor& a, const Tensor& b);

}  // namespace ember
