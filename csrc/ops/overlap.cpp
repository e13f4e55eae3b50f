#include "ops/overlap.hpp"

#include <cstdint>
#include <utility>

#include "runtime/errors.hpp"

namespace ember::ops {

namespace {

// [first byte, one past the last byte] that a non-empty `t` touches.
std::pair<uintptr_t, uintptr_t> byte_range(const Tensor& t) {
  const auto base = reinterpret_cast<uintptr_t>(t.data_ptr());
  int64_t span = 0;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.sizes()[d] - 1) * t.strides()[d];
  return {base, base + static_cast<uintptr_t>((span + 1) * int64_t(t.itemsize()))};
}

}  // namespace

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  }
  return false;
}

void check_no_internal_overlap(const Tensor& t) {
  if (has_internal_overlap(t)) {
    throw Error(
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location. Please clone() the tensor before performing the operation.");
  }
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage().get() != b.storage().get() || a.numel() == 0 || b.numel() == 0) return false;
  const auto ra = byte_range(a), rb = byte_range(b);
  return ra.first < rb.second && rb.first < ra.second;
}

void check_no_partial_overlap(const Tensor& out, const Tensor& in) {
  if (!may_overlap(out, in)) return;
  if (out.sizes() == in.sizes() && out.strides() == in.strides() &&
      out.storage_offset() == in.storage_offset() && out.dtype() == in.dtype()) {
    return;
  }
  throw Error(
      "unsupported operation: some elements of the input tensor and the written-to tensor "
      "refer to a single memory location. Please clone() the tensor before performing the "
      "operation.");
}

}  // namespace ember::ops
