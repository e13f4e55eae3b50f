// softmax and log_softmax along one dim (floating inputs; dtype= converts
// first): one logsumexp reduction (kept in float32 for float16/bfloat16, in
// one pass: running max and rescaled sum), then one elementwise pass,
// exp(x - lse) or x - lse, computed in float32 and rounded once.
#pragma once

#include <optional>

#include "ops/elementwise.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops {

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

namespace internal {
void exp_diff_cpu(const ElementwiseIter& it, bool log);
#if EMBER_WITH_CUDA
void exp_diff_cuda(const ElementwiseIter& it, bool log);
#endif
}  // namespace internal

}  // namespace ember::ops
