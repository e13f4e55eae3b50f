// The GPU sort of short lines (n <= kBlockSortMax) of any dtype: one thread
// block per line sorts the line's sort_keys (32-bit keys for 8/16/32-bit
// dtypes, 64-bit for 64-bit ones) in registers and shared memory
// (cub::BlockRadixSort, stable) with the position as the value,
// then writes the values and int64 indices: one kernel, one read and one write
// of the data (sort_block.cu; kept out of sort.cu so the two compile in
// parallel).
#pragma once

#include <cstdint>

#include "ops/sort/sort.hpp"

namespace ember::ops::internal {

constexpr int64_t kBlockSortMax = 4096;

#if EMBER_WITH_CUDA
// xc contiguous with 1 <= p.n <= kBlockSortMax; values
// (xc's dtype) and indices (int64) contiguous of its shape. Nothing waits.
void sort_block_cuda(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
                     const Tensor& indices);
#endif

}  // namespace ember::ops::internal
