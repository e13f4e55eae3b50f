// Moving and converting data: copy_ between any two tensors (any dtypes, any
// devices, any strides, src broadcast to dst), and what is built on it --
// to(), contiguous(), clone(), reshape(), flatten().
//
// Ordering and synchronisation (torch's rules):
// - GPU work is queued on the current stream of the device it runs on; a copy
//   between two GPUs is ordered after the current streams of both.
// - copy_(non_blocking=True) from pinned host memory to a GPU, or from a GPU to
//   pinned host memory, returns at once: the copy runs on the current stream.
// - Every other copy that involves host memory returns only when the host
//   memory may be read or reused (the caller releases the GIL around it).
// - GPU-to-GPU copies never wait on the host.
#pragma once

#include <cstdint>

#include "tensor/tensor.hpp"

namespace ember::ops {

// dst[...] = src[...]: src broadcasts to dst's shape; values are converted to
// dst's dtype. dst must not have overlapping elements (RuntimeError as in
// torch); a src that partially overlaps dst is read before dst is written.
void copy_(const Tensor& dst, const Tensor& src, bool non_blocking = false);

// A tensor on `device` with `dtype`: `t` itself when nothing changes and
// copy is false, otherwise a new tensor (dense, with t's dimension order).
// GPU -> CPU with non_blocking allocates the result in pinned memory and
// returns before the copy has finished (synchronise before reading it).
Tensor to(const Tensor& t, const Device& device, ScalarType dtype, bool non_blocking = false,
          bool copy = false, bool pin_memory = false);

// t itself when contiguous, otherwise a contiguous copy on t's device.
Tensor contiguous(const Tensor& t);
// A copy that keeps t's dimension order when t is dense (torch's preserve_format).
Tensor clone(const Tensor& t);
// A view when the strides allow it, otherwise a contiguous copy (torch's reshape).
Tensor reshape(const Tensor& t, const Shape& shape);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);

namespace internal {

// dst and src hold the same dtype in the same dense layout: the copy is one
// block of dst.nbytes() bytes starting at each data_ptr (a contiguous tensor,
// or e.g. two transposed ones).
bool same_dense_layout(const Tensor& dst, const Tensor& src);

// Copies between tensors of the same shape on the CPU (src already expanded).
void copy_cpu(const Tensor& dst, const Tensor& src);

#if EMBER_WITH_CUDA
// Same-device GPU copy with conversion, on the current stream of dst's device
// (copy.cu). dst and src have the same shape.
void copy_cuda_same_device(const Tensor& dst, const Tensor& src);
#endif

}  // namespace internal

}  // namespace ember::ops
