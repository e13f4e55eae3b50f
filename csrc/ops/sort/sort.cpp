// torch.sort's checks and the CPU sort (see sort.hpp).
#include "ops/sort/sort.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/sort/sort_keys.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

LinePlan line_plan(const Tensor& x, int64_t d) {
  LinePlan p;
  for (int64_t k = 0; k < x.dim(); ++k) {
    if (k < d) p.outer *= x.sizes()[k];
    if (k > d) p.inner *= x.sizes()[k];
  }
  p.n = x.dim() == 0 ? 1 : x.sizes()[d];
  return p;
}

namespace {

template <typename U>
void sort_cpu(const Tensor& xc, const LinePlan& p, bool descending, const Tensor& values,
              const Tensor& indices) {
  const U* x = static_cast<const U*>(xc.data_ptr());
  U* v = static_cast<U*>(values.data_ptr());
  int64_t* ix = static_cast<int64_t*>(indices.data_ptr());
  const sort_keys::Kind kind = sort_keys::kind_of(xc.dtype());
  const bool bf16 = xc.dtype() == ScalarType::BFloat16;
  const int64_t n = p.n, inner = p.inner;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1) / 8);
  parallel_for(p.lines(), grain, [&](int64_t b, int64_t e) {
    std::vector<std::pair<U, int64_t>> pairs(static_cast<size_t>(n));
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / inner, i = r - o * inner;
      const int64_t base = o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) {
        pairs[j] = {sort_keys::key<U>(x[base + j * inner], kind, bf16, descending), j};
      }
      std::sort(pairs.begin(), pairs.end());  // the index breaks ties: stable
      for (int64_t j = 0; j < n; ++j) {
        v[base + j * inner] = x[base + pairs[j].second * inner];
        ix[base + j * inner] = pairs[j].second;
      }
    }
  });
}

}  // namespace

void check_orderable(const Tensor& x, const char* op) {
  if (!is_complex(x.dtype())) return;
  if (op) {
    throw NotImplementedError(detail::str("\"", op, x.is_cuda() ? "_cuda" : "_cpu",
                                          "\" not implemented for '",
                                          torch_scalar_name(x.dtype()), "'"));
  }
  throw Error(detail::str("Sort does not support complex dtypes on ",
                          x.is_cuda() ? "CUDA" : "CPU"));
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending) {
  check_orderable(x);
  const int64_t d = x.dim() == 0 ? (wrap_dim(dim, 1), int64_t(0)) : wrap_dim(dim, x.dim());
  const Tensor xc = contiguous(x);
  Tensor values = Tensor::empty(x.sizes(), x.dtype(), x.device());
  Tensor indices = Tensor::empty(x.sizes(), ScalarType::Int64, x.device());
  if (x.numel() == 0) return {values, indices};
  const LinePlan p = line_plan(xc, d);
#if EMBER_WITH_CUDA
  if (x.is_cuda()) {
    internal::sort_cuda(xc, p, descending, values, indices);
    return {values, indices};
  }
#endif
  dispatch_bits(xc.itemsize(), [&](auto tag) {
    using U = typename decltype(tag)::type;
    sort_cpu<U>(xc, p, descending, values, indices);
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor, Tensor> unique_flat(const Tensor& x, bool sorted, bool return_inverse,
                                               bool return_counts) {
  if (is_complex(x.dtype())) {
    throw NotImplementedError(detail::str("\"unique\" not implemented for '",
                                          torch_scalar_name(x.dtype()), "'"));
  }
#if EMBER_WITH_CUDA
  if (x.is_cuda() && x.numel() > 0) {
    return internal::unique_cuda(contiguous(x), sorted, return_inverse, return_counts);
  }
#endif
  EMBER_CHECK(false, "unique_flat: takes a CUDA tensor with elements (ember's CPU unique is "
              "composed in Python)");
  return {};
}

}  // namespace ember::ops
