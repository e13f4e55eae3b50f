// Cumulative sums and products along one dim (torch.cumsum, torch.cumprod):
// bool and integer inputs give int64 (wrapping), float16/bfloat16 accumulate
// in float32; dtype= converts the input first. The result is contiguous.
//
// CPU: one running accumulator per line, lines spread over the thread pool.
// GPU: lines along a contiguous dim are scanned by a warp (short lines) or a
// block (long lines) in chunks: each thread scans 4 neighbouring elements,
// the warp scans its threads' totals with shuffles, the block its warps'
// totals, and a carry runs from chunk to chunk. Lines along a strided dim
// take one thread each (neighbouring threads read neighbouring elements).
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
