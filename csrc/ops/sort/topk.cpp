// torch.topk's radix select: checks and the device dispatch (see topk.hpp).
#include "ops/sort/topk.hpp"

#include <limits>

#include "ops/copy/copy.hpp"
#include "runtime/errors.hpp"

namespace ember::ops {

std::pair<Tensor, Tensor> topk_candidates(const Tensor& x, int64_t k, bool largest) {
  if (is_complex(x.dtype())) {
    throw Error(detail::str("topk does not support complex dtypes on ", x.is_cuda() ? "CUDA" : "CPU"));
  }
  EMBER_CHECK(k >= 1 && k <= x.numel() && x.numel() <= std::numeric_limits<int>::max(),
              "topk_candidates: 1 <= k <= numel <= 2^31 - 1, got k = ", k, " of ", x.numel());
  Tensor values = Tensor::empty({k}, x.dtype(), x.device());
  Tensor indices = Tensor::empty({k}, ScalarType::Int64, x.device());
#if EMBER_WITH_CUDA
  if (x.is_cuda()) {
    internal::topk_candidates_cuda(contiguous(x), k, largest, values, indices);
    return {values, indices};
  }
#endif
  EMBER_CHECK(false, "topk_candidates: takes a CUDA tensor (ember's CPU topk sorts)");
  return {};
}

}  // namespace ember::ops
