// torch.topk's radix select for one long line (topk.cu): the k smallest keys
// (k largest values when `largest`: the keys of sort_keys.hpp, inverted) of a
// contiguous CUDA tensor's elements, found without sorting the line: one
// 256-bin histogram pass per 8-bit digit of the key, from the top (as many
// passes as the dtype has bytes: 4 for float32), each followed by a one-block
// kernel picking the digit holding the k-th key, so the k-th key T and how
// many of the elements equal to T are needed stay on the device. The last
// pass also keeps per-chunk histograms, which give each chunk's counts below
// and equal to T; a select pass then writes, in input order, every element
// whose key is below T and the first needed ones equal to T. No host
// synchronisation. The k candidates come back unsorted (those below T, then
// those equal to T, each in input order); the caller sorts them (stable).
#pragma once

#include <cstdint>
#include <utility>

#include "tensor/tensor.hpp"

namespace ember::ops {

// (values, int64 indices) of x's k selected elements (1 <= k <= numel <= 2^31 - 1),
// unsorted as above. CUDA only.
std::pair<Tensor, Tensor> topk_candidates(const Tensor& x, int64_t k, bool largest);

namespace internal {
#if EMBER_WITH_CUDA
void topk_candidates_cuda(const Tensor& xc, int64_t k, bool largest, const Tensor& values,
                          const Tensor& indices);
#endif
}  // namespace internal

}  // namespace ember::ops
