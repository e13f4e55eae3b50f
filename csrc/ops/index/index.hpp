// Advanced indexing (torch's index / index_put_): integer tensors and
// boolean masks select elements by value, so the result is a copy.
//
// `indices` has one entry per leading dimension of `self` (shorter lists
// leave the trailing dims alone); an undefined Tensor leaves that dim whole.
// A bool/uint8 mask covers as many dims as it has and stands for its
// nonzero() coordinates. The index tensors broadcast together to a shape B;
// as in NumPy and torch, B replaces the indexed dims where they are adjacent
// and goes first otherwise.
//
// On the CPU every index is checked before anything is written: out-of-range
// indices raise IndexError and leave `self` untouched (as in torch, not when
// the result has no elements: then nothing is read or written). On the GPU
// nothing waits for the indices (torch would assert on the device and kill the
// context instead): the offsets kernel records a bad index in the device's
// IndexErrorRecord (runtime/device_error.hpp), a gather writes zero there and
// a scatter skips it, and the IndexError surfaces at the next synchronising
// call. Masks on the GPU are counted on the device and their count read back
// once (the result's size depends on it, as in torch).
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
// self[indices] = values (broadcast to the indexed shape; of self's dtype,
// else torch's "Index put requires the source and destination dtypes
// match"). With duplicate indices one of the values wins; with
// `accumulate` the values are added instead, duplicates included (the
// backward of indexing; on the GPU with atomics, for floating dtypes, int32
// and int64).
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate = false);

// The coordinates of the nonzero elements of `t`, one int64 vector per dim
// (one for a 0-d `t`), row-major order, on t's device. On the GPU: one host
// read of the count, the rest on the device (nonzero.cu).
std::vector<Tensor> nonzero_columns(const Tensor& t);

namespace internal {
// off[i] = sum_j wrap(idx_j[i], sizes[j]) * strides[j] over contiguous int64
// index tensors of equal numel; throws IndexError for an index out of range.
// `dims` names the dims of self for the error message. The CUDA version never
// waits: a bad index is recorded in the device's IndexErrorRecord under `op`,
// and its offset is kBadIndexOffset (the gather/scatter kernels skip it).
void index_offsets_cpu(const std::vector<Tensor>& idx, const Shape& dims, const Shape& sizes,
                       const Shape& strides, const Tensor& out);
#if EMBER_WITH_CUDA
void index_offsets_cuda(const std::vector<Tensor>& idx, const Shape& dims, const Shape& sizes,
                        const Shape& strides, const Tensor& out, const char* op);
constexpr int64_t kBadIndexOffset = INT64_MIN;
std::vector<Tensor> nonzero_columns_cuda(const Tensor& t);
// out[i] = src[i + off[i]] (gather) or dst[i + off[i]] = src[i] (scatter)
// (kBadIndexOffset: the gather writes zero, the scatters write nothing),
// byte-wise by element size, over three operands of one shape.
void gather_cuda(const Tensor& out, const Tensor& src, const Tensor& off);
void scatter_cuda(const Tensor& dst, const Tensor& src, const Tensor& off);
// dst[i + off[i]] += src[i] with atomics, in dst's dtype.
void scatter_add_cuda(const Tensor& dst, const Tensor& src, const Tensor& off);
#endif
}  // namespace internal

}  // namespace ember::ops
