// torch.sort's core: values and int64 indices of a tensor sorted along one
// dim, ascending or descending. Always stable (equal keys keep their input
// order), so stable=False and stable=True give the same, valid, result. The
// keys are sort_keys.hpp's order-preserving unsigned bits: NaN sorts as the
// largest value (first when descending), -0.0 equals +0.0.
//
// Both results are contiguous tensors of x's shape. The dim is never moved:
// line r = (o, i) of a contiguous [outer, n, inner] view is read and written
// with stride `inner`.
//
// CPU: each line's (key, index) pairs sorted with std::sort (the index breaks
// ties: stable), lines spread over the thread pool.
// GPU: lines of at most 4096 elements are sorted one thread block per line
// (sort_block.cu, cub::BlockRadixSort); longer lines by CUB's device-wide
// radix or segmented sort over the keys
// (sort.cu; docs/design/ops_sort.md lists the paths), with the positions as
// values and a last kernel gathering the values and writing the indices.
// Scratch from the caching allocator on the current stream; nothing waits for
// the GPU. At most 2^31 - 1 elements per call on the GPU.
#pragma once

#include <tuple>
#include <utility>

#include "tensor/tensor.hpp"

namespace ember::ops {

// Sorting, selection and search order values: complex ones raise, as torch
// ("Sort does not support complex dtypes on CPU", or NotImplementedError
// "\"op\" not implemented for 'ComplexFloat'" when `op` names it).
void check_orderable(const Tensor& x, const char* op = nullptr);

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending);

// torch.unique / unique_consecutive of a CUDA tensor's elements (flattened):
// (values, inverse, counts); inverse and counts are empty unless asked for.
// sorted: the distinct values in ascending order (one radix sort: keys only
// for integers without inverse); else runs of equal neighbours. NaNs are never
// equal, -0.0 equals +0.0 (the run keeps its first element). One host
// synchronisation (the number of runs), two for a sorted int32/int64 input of
// 2^16+ elements (its range first: only the bits it spans are sorted). The CPU
// path is composed in Python.
std::tuple<Tensor, Tensor, Tensor> unique_flat(const Tensor& x, bool sorted, bool return_inverse,
                                               bool return_counts);

// Elements of a contiguous tensor seen as [outer, n, inner] with the sorted
// (or scanned) dim in the middle.
struct LinePlan {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t lines() const { return outer * inner; }
};
LinePlan line_plan(const Tensor& x, int64_t d);

namespace internal {
#if EMBER_WITH_CUDA
// xc contiguous; values (xc's dtype) and indices (int64) contiguous of its shape.
void sort_cuda(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
               const Tensor& indices);
// xc contiguous, 1 to 2^31 - 1 elements.
std::tuple<Tensor, Tensor, Tensor> unique_cuda(const Tensor& xc, bool sorted, bool return_inverse,
                                               bool return_counts);
#endif
}  // namespace internal

}  // namespace ember::ops
