// torch.cummax / cummin on the CPU (cum_extreme.hpp).
#include "ops/sort/cum_extreme.hpp"

#include <type_traits>

#include "ops/copy/copy.hpp"
#include "ops/cpu_parallel.hpp"
#include "ops/sort/sort.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

std::pair<Tensor, Tensor> cum_extreme(bool is_max, const Tensor& x, int64_t dim) {
  check_orderable(x, is_max ? "cummax" : "cummin");
  const int64_t d = x.dim() == 0 ? (wrap_dim(dim, 1), int64_t(0)) : wrap_dim(dim, x.dim());
  const Tensor xc = contiguous(x);
  Tensor values = Tensor::empty(x.sizes(), x.dtype(), x.device());
  Tensor indices = Tensor::empty(x.sizes(), ScalarType::Int64, x.device());
  if (x.numel() == 0) return {values, indices};
  const LinePlan p = line_plan(xc, d);
#if EMBER_WITH_CUDA
  if (x.is_cuda()) {
    internal::cum_extreme_cuda(is_max, xc, p, values, indices);
    return {values, indices};
  }
#endif
  dispatch(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value,
                                 float, T>;
    const T* in = static_cast<const T*>(xc.data_ptr());
    T* out = static_cast<T*>(values.data_ptr());
    int64_t* idx = static_cast<int64_t*>(indices.data_ptr());
    const int64_t n = p.n, inner = p.inner;
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1));
    parallel_for(p.lines(), grain, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / inner, i = r - o * inner;
        const int64_t base = o * n * inner + i;
        C best = C(in[base]);
        T best_t = in[base];
        int64_t at = 0;
        for (int64_t j = 0; j < n; ++j) {
          const T vt = in[base + j * inner];
          const C v = C(vt);
          if (takes_extreme<C>(v, best, is_max)) {
            best = v;
            best_t = vt;
            at = j;
          }
          out[base + j * inner] = best_t;
          idx[base + j * inner] = at;
        }
      }
    });
  });
  return {values, indices};
}

}  // namespace ember::ops
