// Cumulative sums and products along one dim (torch.cumsum, torch.cumprod):
// bool and integer inputs give int64 (wrapping), float16/bfloat16 accumulate
// in float32; dtype= converts the input first. The result is contiguous.
//
// CPU: one running accumulator per line, lines spread over the thread pool.
// GPU: a few long lines (a 1-D tensor above all) take CUB's single-pass
// DeviceScan, one call per line. Other lines along a contiguous dim are
// scanned by a warp (or, when the lines are too few to fill the GPU, a block)
// in chunks: each thread scans 4 neighbouring elements of each of 4 groups
// (vector loads and stores), the warp scans its threads' totals with
// shuffles, the block its warps' totals, and a carry runs from group to group
// and chunk to chunk. Lines along a strided dim take one thread each
// (neighbouring threads read neighbouring elements).
#pragma once

#include <optional>

#include "tensor/iter.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

enum class ScanOp : uint8_t { Sum, Prod };

Tensor scan(ScanOp op, const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt,
            const Tensor& out = Tensor());

inline Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return scan(ScanOp::Sum, x, dim, dtype);
}
inline Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return scan(ScanOp::Prod, x, dim, dtype);
}

// The lines of a scan: `lines` lines of `len` elements; line l starts at the
// byte offset kept(l) in the input and at l's place in the output, whose
// lines are contiguous along the dim when the dim is innermost.
struct ScanPlan {
  int64_t lines = 0, len = 0;
  int64_t in_stride = 1;   // elements between neighbours along the dim
  int64_t out_stride = 1;  // elements between neighbours along the dim in the output
  IterLayout<2> kept;      // operand 0: output, 1: input (byte offsets of line starts)
};

namespace internal {
void scan_cpu(ScanOp op, const ScanPlan& p, ScalarType in, ScalarType out);
#if EMBER_WITH_CUDA
void scan_cuda(ScanOp op, const ScanPlan& p, ScalarType in, ScalarType out, int device);
#endif
}  // namespace internal

}  // namespace ember::ops
